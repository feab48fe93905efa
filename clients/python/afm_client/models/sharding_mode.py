from enum import StrEnum


class ShardingMode(StrEnum):
    PIPELINE = "pipeline"
    TENSOR = "tensor"

    def __str__(self) -> str:
        return str(self.value)
