from enum import StrEnum


class ResponseErrorEventType(StrEnum):
    ERROR = "error"

    def __str__(self) -> str:
        return str(self.value)
