from enum import StrEnum


class BatchStatus(StrEnum):
    CANCELLED = "cancelled"
    CANCELLING = "cancelling"
    COMPLETED = "completed"
    EXPIRED = "expired"
    FAILED = "failed"
    FINALIZING = "finalizing"
    IN_PROGRESS = "in_progress"
    VALIDATING = "validating"

    def __str__(self) -> str:
        return str(self.value)
