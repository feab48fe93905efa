from enum import StrEnum


class OcrRequestRecognitionLevel(StrEnum):
    ACCURATE = "accurate"
    FAST = "fast"

    def __str__(self) -> str:
        return str(self.value)
