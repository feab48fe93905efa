from enum import StrEnum


class ResponseOutputMessageType(StrEnum):
    MESSAGE = "message"

    def __str__(self) -> str:
        return str(self.value)
