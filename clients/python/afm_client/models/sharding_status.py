from enum import StrEnum


class ShardingStatus(StrEnum):
    FAILED = "failed"
    SERVING = "serving"

    def __str__(self) -> str:
        return str(self.value)
