from enum import StrEnum


class SpeculativeProfileType0Method(StrEnum):
    DRAFT_MODEL = "draft_model"
    NGRAM = "ngram"

    def __str__(self) -> str:
        return str(self.value)
