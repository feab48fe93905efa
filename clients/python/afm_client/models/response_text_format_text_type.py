from enum import StrEnum


class ResponseTextFormatTextType(StrEnum):
    TEXT = "text"

    def __str__(self) -> str:
        return str(self.value)
