from enum import StrEnum


class MessagesToolChoiceAnyType(StrEnum):
    ANY = "any"

    def __str__(self) -> str:
        return str(self.value)
