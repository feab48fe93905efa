from enum import StrEnum


class MessagesClientToolTypeType2Type1(StrEnum):
    CUSTOM = "custom"

    def __str__(self) -> str:
        return str(self.value)
