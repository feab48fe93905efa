from enum import StrEnum


class ChatChunkChoiceFinishReasonType1(StrEnum):
    CANCELLED = "cancelled"
    ERROR = "error"
    LENGTH = "length"
    STOP = "stop"
    TOOL_CALLS = "tool_calls"

    def __str__(self) -> str:
        return str(self.value)
