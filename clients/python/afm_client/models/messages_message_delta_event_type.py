from enum import StrEnum


class MessagesMessageDeltaEventType(StrEnum):
    MESSAGE_DELTA = "message_delta"

    def __str__(self) -> str:
        return str(self.value)
