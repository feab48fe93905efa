from enum import StrEnum


class ResponseFunctionToolChoiceType(StrEnum):
    FUNCTION = "function"

    def __str__(self) -> str:
        return str(self.value)
