from enum import StrEnum


class MessagesToolReferenceBlockParamType(StrEnum):
    TOOL_REFERENCE = "tool_reference"

    def __str__(self) -> str:
        return str(self.value)
