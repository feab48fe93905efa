from enum import StrEnum


class MessagesCacheControlType0Type(StrEnum):
    EPHEMERAL = "ephemeral"

    def __str__(self) -> str:
        return str(self.value)
