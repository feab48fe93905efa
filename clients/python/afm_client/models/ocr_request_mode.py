from enum import StrEnum


class OcrRequestMode(StrEnum):
    DOCUMENT = "document"
    TABLE = "table"
    TEXT = "text"

    def __str__(self) -> str:
        return str(self.value)
