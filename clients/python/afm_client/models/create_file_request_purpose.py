from enum import StrEnum


class CreateFileRequestPurpose(StrEnum):
    BATCH = "batch"

    def __str__(self) -> str:
        return str(self.value)
