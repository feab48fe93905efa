from enum import StrEnum


class MessagesMessageStopEventType(StrEnum):
    MESSAGE_STOP = "message_stop"

    def __str__(self) -> str:
        return str(self.value)
