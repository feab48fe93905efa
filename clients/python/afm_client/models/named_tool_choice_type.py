from enum import StrEnum


class NamedToolChoiceType(StrEnum):
    FUNCTION = "function"

    def __str__(self) -> str:
        return str(self.value)
