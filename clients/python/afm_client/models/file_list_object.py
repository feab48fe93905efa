from enum import StrEnum


class FileListObject(StrEnum):
    LIST = "list"

    def __str__(self) -> str:
        return str(self.value)
