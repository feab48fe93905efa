from enum import StrEnum


class FileObjectStatus(StrEnum):
    ERROR = "error"
    PROCESSED = "processed"
    UPLOADED = "uploaded"

    def __str__(self) -> str:
        return str(self.value)
