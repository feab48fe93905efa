from enum import StrEnum


class TranscriptionUsageType(StrEnum):
    DURATION = "duration"

    def __str__(self) -> str:
        return str(self.value)
