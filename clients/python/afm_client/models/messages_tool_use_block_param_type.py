from enum import StrEnum


class MessagesToolUseBlockParamType(StrEnum):
    TOOL_USE = "tool_use"

    def __str__(self) -> str:
        return str(self.value)
