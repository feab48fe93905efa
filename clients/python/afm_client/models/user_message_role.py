from enum import StrEnum


class UserMessageRole(StrEnum):
    USER = "user"

    def __str__(self) -> str:
        return str(self.value)
