from enum import StrEnum


class MessagesToolChoiceAutoType(StrEnum):
    AUTO = "auto"

    def __str__(self) -> str:
        return str(self.value)
