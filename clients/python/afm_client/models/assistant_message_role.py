from enum import StrEnum


class AssistantMessageRole(StrEnum):
    ASSISTANT = "assistant"

    def __str__(self) -> str:
        return str(self.value)
