from enum import StrEnum


class HealthStatus(StrEnum):
    HEALTHY = "healthy"

    def __str__(self) -> str:
        return str(self.value)
