from enum import StrEnum


class SpeechRequestResponseFormat(StrEnum):
    AAC = "aac"
    MP3 = "mp3"
    WAV = "wav"

    def __str__(self) -> str:
        return str(self.value)
