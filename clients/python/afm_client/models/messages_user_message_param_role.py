from enum import StrEnum


class MessagesUserMessageParamRole(StrEnum):
    USER = "user"

    def __str__(self) -> str:
        return str(self.value)
