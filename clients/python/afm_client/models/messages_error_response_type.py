from enum import StrEnum


class MessagesErrorResponseType(StrEnum):
    ERROR = "error"

    def __str__(self) -> str:
        return str(self.value)
