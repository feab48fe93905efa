from enum import StrEnum


class MessagesThinkingBlockType(StrEnum):
    THINKING = "thinking"

    def __str__(self) -> str:
        return str(self.value)
