from enum import StrEnum


class MessagesAssistantMessageParamRole(StrEnum):
    ASSISTANT = "assistant"

    def __str__(self) -> str:
        return str(self.value)
