from enum import StrEnum


class ChatDeltaRole(StrEnum):
    ASSISTANT = "assistant"

    def __str__(self) -> str:
        return str(self.value)
