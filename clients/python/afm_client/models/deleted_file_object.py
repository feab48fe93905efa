from enum import StrEnum


class DeletedFileObject(StrEnum):
    FILE = "file"

    def __str__(self) -> str:
        return str(self.value)
