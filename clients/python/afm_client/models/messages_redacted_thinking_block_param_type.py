from enum import StrEnum


class MessagesRedactedThinkingBlockParamType(StrEnum):
    REDACTED_THINKING = "redacted_thinking"

    def __str__(self) -> str:
        return str(self.value)
