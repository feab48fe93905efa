from enum import StrEnum


class HealthBackendName(StrEnum):
    FOUNDATION = "foundation"
    MLX = "mlx"

    def __str__(self) -> str:
        return str(self.value)
