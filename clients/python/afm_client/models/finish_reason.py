from enum import StrEnum


class FinishReason(StrEnum):
    CANCELLED = "cancelled"
    ERROR = "error"
    LENGTH = "length"
    STOP = "stop"
    TOOL_CALLS = "tool_calls"

    def __str__(self) -> str:
        return str(self.value)
