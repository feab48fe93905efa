from enum import StrEnum


class MessagesTextBlockType(StrEnum):
    TEXT = "text"

    def __str__(self) -> str:
        return str(self.value)
