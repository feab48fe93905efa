from enum import StrEnum


class MessagesThinkingConfigType(StrEnum):
    ADAPTIVE = "adaptive"
    BETWEEN_TOOLS = "between_tools"
    DISABLED = "disabled"
    ENABLED = "enabled"

    def __str__(self) -> str:
        return str(self.value)
