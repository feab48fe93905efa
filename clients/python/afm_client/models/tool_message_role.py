from enum import StrEnum


class ToolMessageRole(StrEnum):
    TOOL = "tool"

    def __str__(self) -> str:
        return str(self.value)
