from enum import StrEnum


class ResponseReasoningItemType(StrEnum):
    REASONING = "reasoning"

    def __str__(self) -> str:
        return str(self.value)
