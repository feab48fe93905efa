from enum import StrEnum


class SpeechStreamEventType(StrEnum):
    ERROR = "error"
    SPEECH_AUDIO_DELTA = "speech.audio.delta"
    SPEECH_AUDIO_DONE = "speech.audio.done"

    def __str__(self) -> str:
        return str(self.value)
