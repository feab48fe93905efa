from enum import StrEnum


class HealthStatus(StrEnum):
    DRAINING = "draining"
    HEALTHY = "healthy"
    UNAVAILABLE = "unavailable"

    def __str__(self) -> str:
        return str(self.value)
