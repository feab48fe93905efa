from enum import StrEnum


class CompletionChoiceFinishReasonType1(StrEnum):
    CANCELLED = "cancelled"
    ERROR = "error"
    LENGTH = "length"
    STOP = "stop"

    def __str__(self) -> str:
        return str(self.value)
