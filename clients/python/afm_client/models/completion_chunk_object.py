from enum import StrEnum


class CompletionChunkObject(StrEnum):
    TEXT_COMPLETION = "text_completion"

    def __str__(self) -> str:
        return str(self.value)
