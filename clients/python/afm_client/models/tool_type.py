from enum import StrEnum


class ToolType(StrEnum):
    FUNCTION = "function"

    def __str__(self) -> str:
        return str(self.value)
