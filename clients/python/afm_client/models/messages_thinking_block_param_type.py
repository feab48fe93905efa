from enum import StrEnum


class MessagesThinkingBlockParamType(StrEnum):
    THINKING = "thinking"

    def __str__(self) -> str:
        return str(self.value)
