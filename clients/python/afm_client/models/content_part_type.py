from enum import StrEnum


class ContentPartType(StrEnum):
    IMAGE_URL = "image_url"
    INPUT_AUDIO = "input_audio"
    TEXT = "text"

    def __str__(self) -> str:
        return str(self.value)
