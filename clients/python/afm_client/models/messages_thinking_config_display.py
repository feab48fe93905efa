from enum import StrEnum


class MessagesThinkingConfigDisplay(StrEnum):
    OMITTED = "omitted"
    SUMMARIZED = "summarized"

    def __str__(self) -> str:
        return str(self.value)
