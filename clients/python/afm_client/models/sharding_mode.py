from enum import StrEnum


class ShardingMode(StrEnum):
    TENSOR = "tensor"

    def __str__(self) -> str:
        return str(self.value)
