from enum import StrEnum


class ResponseInputMessageItemType(StrEnum):
    MESSAGE = "message"

    def __str__(self) -> str:
        return str(self.value)
