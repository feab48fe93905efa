from enum import StrEnum


class ToolCallDeltaType(StrEnum):
    FUNCTION = "function"

    def __str__(self) -> str:
        return str(self.value)
