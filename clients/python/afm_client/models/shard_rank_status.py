from enum import StrEnum


class ShardRankStatus(StrEnum):
    OK = "ok"
    STOPPING = "stopping"
    UNREACHABLE = "unreachable"

    def __str__(self) -> str:
        return str(self.value)
