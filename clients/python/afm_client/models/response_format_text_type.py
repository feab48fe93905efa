from enum import StrEnum


class ResponseFormatTextType(StrEnum):
    TEXT = "text"

    def __str__(self) -> str:
        return str(self.value)
