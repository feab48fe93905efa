from enum import StrEnum


class ResponseObjectObject(StrEnum):
    RESPONSE = "response"

    def __str__(self) -> str:
        return str(self.value)
