from enum import StrEnum


class FileObjectObject(StrEnum):
    FILE = "file"

    def __str__(self) -> str:
        return str(self.value)
