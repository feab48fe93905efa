from enum import StrEnum


class MessagesToolChoiceToolType(StrEnum):
    TOOL = "tool"

    def __str__(self) -> str:
        return str(self.value)
