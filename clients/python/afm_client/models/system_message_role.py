from enum import StrEnum


class SystemMessageRole(StrEnum):
    DEVELOPER = "developer"
    SYSTEM = "system"

    def __str__(self) -> str:
        return str(self.value)
