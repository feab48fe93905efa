from enum import StrEnum


class TranscriptionStreamEventType(StrEnum):
    ERROR = "error"
    TRANSCRIPT_TEXT_DELTA = "transcript.text.delta"
    TRANSCRIPT_TEXT_DONE = "transcript.text.done"

    def __str__(self) -> str:
        return str(self.value)
