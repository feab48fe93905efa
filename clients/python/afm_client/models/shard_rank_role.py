from enum import StrEnum


class ShardRankRole(StrEnum):
    HTTP = "http"
    WORKER = "worker"

    def __str__(self) -> str:
        return str(self.value)
