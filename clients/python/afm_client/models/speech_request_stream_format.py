from enum import StrEnum


class SpeechRequestStreamFormat(StrEnum):
    AUDIO = "audio"
    SSE = "sse"

    def __str__(self) -> str:
        return str(self.value)
