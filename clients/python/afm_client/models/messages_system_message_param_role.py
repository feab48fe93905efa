from enum import StrEnum


class MessagesSystemMessageParamRole(StrEnum):
    SYSTEM = "system"

    def __str__(self) -> str:
        return str(self.value)
