from enum import StrEnum


class TranscriptionRequestResponseFormat(StrEnum):
    JSON = "json"
    TEXT = "text"
    VERBOSE_JSON = "verbose_json"

    def __str__(self) -> str:
        return str(self.value)
