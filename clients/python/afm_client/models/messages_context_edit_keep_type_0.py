from enum import StrEnum


class MessagesContextEditKeepType0(StrEnum):
    ALL = "all"

    def __str__(self) -> str:
        return str(self.value)
