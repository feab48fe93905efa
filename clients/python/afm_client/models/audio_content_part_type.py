from enum import StrEnum


class AudioContentPartType(StrEnum):
    INPUT_AUDIO = "input_audio"

    def __str__(self) -> str:
        return str(self.value)
