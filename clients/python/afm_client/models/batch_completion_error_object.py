from enum import StrEnum


class BatchCompletionErrorObject(StrEnum):
    BATCH_ERROR = "batch.error"

    def __str__(self) -> str:
        return str(self.value)
