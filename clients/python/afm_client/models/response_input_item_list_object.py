from enum import StrEnum


class ResponseInputItemListObject(StrEnum):
    LIST = "list"

    def __str__(self) -> str:
        return str(self.value)
