from enum import StrEnum


class MessagesToolChoiceNoneType(StrEnum):
    NONE = "none"

    def __str__(self) -> str:
        return str(self.value)
