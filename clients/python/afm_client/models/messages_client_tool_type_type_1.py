from enum import StrEnum


class MessagesClientToolTypeType1(StrEnum):
    CUSTOM = "custom"

    def __str__(self) -> str:
        return str(self.value)
