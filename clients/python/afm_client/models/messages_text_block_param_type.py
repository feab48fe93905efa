from enum import StrEnum


class MessagesTextBlockParamType(StrEnum):
    TEXT = "text"

    def __str__(self) -> str:
        return str(self.value)
