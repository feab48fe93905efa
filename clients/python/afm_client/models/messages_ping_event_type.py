from enum import StrEnum


class MessagesPingEventType(StrEnum):
    PING = "ping"

    def __str__(self) -> str:
        return str(self.value)
