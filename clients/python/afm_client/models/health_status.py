from enum import StrEnum


class HealthStatus(StrEnum):
    HEALTHY = "healthy"
    UNAVAILABLE = "unavailable"

    def __str__(self) -> str:
        return str(self.value)
