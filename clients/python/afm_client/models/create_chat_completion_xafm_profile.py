from enum import StrEnum


class CreateChatCompletionXAFMProfile(StrEnum):
    EXTENDED = "extended"
    FALSE = "false"
    TRUE = "true"

    def __str__(self) -> str:
        return str(self.value)
