from enum import StrEnum


class BatchListObject(StrEnum):
    LIST = "list"

    def __str__(self) -> str:
        return str(self.value)
