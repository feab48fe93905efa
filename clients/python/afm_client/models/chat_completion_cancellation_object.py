from enum import StrEnum


class ChatCompletionCancellationObject(StrEnum):
    CHAT_COMPLETION_CANCELLATION = "chat.completion.cancellation"

    def __str__(self) -> str:
        return str(self.value)
