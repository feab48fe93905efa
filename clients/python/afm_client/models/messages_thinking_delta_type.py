from enum import StrEnum


class MessagesThinkingDeltaType(StrEnum):
    THINKING_DELTA = "thinking_delta"

    def __str__(self) -> str:
        return str(self.value)
