from enum import StrEnum


class ResponseReasoningInputItemType(StrEnum):
    REASONING = "reasoning"

    def __str__(self) -> str:
        return str(self.value)
