from enum import StrEnum


class MessagesTextDeltaType(StrEnum):
    TEXT_DELTA = "text_delta"

    def __str__(self) -> str:
        return str(self.value)
