from enum import StrEnum


class TranscriptionVerboseTask(StrEnum):
    TRANSCRIBE = "transcribe"

    def __str__(self) -> str:
        return str(self.value)
