from enum import StrEnum


class FileObjectPurpose(StrEnum):
    BATCH = "batch"
    BATCH_OUTPUT = "batch_output"

    def __str__(self) -> str:
        return str(self.value)
