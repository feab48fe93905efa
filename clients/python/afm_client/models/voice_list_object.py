from enum import StrEnum


class VoiceListObject(StrEnum):
    LIST = "list"

    def __str__(self) -> str:
        return str(self.value)
