from enum import StrEnum


class ResponseLifecycleEventType(StrEnum):
    RESPONSE_COMPLETED = "response.completed"
    RESPONSE_CREATED = "response.created"
    RESPONSE_FAILED = "response.failed"
    RESPONSE_INCOMPLETE = "response.incomplete"
    RESPONSE_IN_PROGRESS = "response.in_progress"
    RESPONSE_QUEUED = "response.queued"

    def __str__(self) -> str:
        return str(self.value)
