from enum import StrEnum


class MessagesContentBlockStopEventType(StrEnum):
    CONTENT_BLOCK_STOP = "content_block_stop"

    def __str__(self) -> str:
        return str(self.value)
