from enum import StrEnum


class DeletedResponseObject(StrEnum):
    RESPONSE = "response"

    def __str__(self) -> str:
        return str(self.value)
