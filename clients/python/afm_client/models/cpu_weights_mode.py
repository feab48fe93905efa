from enum import StrEnum


class CpuWeightsMode(StrEnum):
    AUTO = "auto"
    FLOAT32 = "float32"
    NATIVE = "native"

    def __str__(self) -> str:
        return str(self.value)
