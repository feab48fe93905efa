from enum import StrEnum


class ResponseFunctionToolType(StrEnum):
    FUNCTION = "function"

    def __str__(self) -> str:
        return str(self.value)
