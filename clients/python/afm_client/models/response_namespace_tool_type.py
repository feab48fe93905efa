from enum import StrEnum


class ResponseNamespaceToolType(StrEnum):
    NAMESPACE = "namespace"

    def __str__(self) -> str:
        return str(self.value)
