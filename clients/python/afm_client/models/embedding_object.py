from enum import StrEnum


class EmbeddingObject(StrEnum):
    EMBEDDING = "embedding"

    def __str__(self) -> str:
        return str(self.value)
