from enum import StrEnum


class BatchObject(StrEnum):
    BATCH = "batch"

    def __str__(self) -> str:
        return str(self.value)
