from enum import StrEnum


class ResponseReasoningTextType(StrEnum):
    REASONING_TEXT = "reasoning_text"

    def __str__(self) -> str:
        return str(self.value)
