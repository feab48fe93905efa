from enum import StrEnum


class CpuWeightsKind(StrEnum):
    FLOAT32 = "float32"
    NATIVE = "native"

    def __str__(self) -> str:
        return str(self.value)
