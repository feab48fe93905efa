from enum import StrEnum


class ResponseToolChoiceType0Type2Type1(StrEnum):
    AUTO = "auto"
    NONE = "none"
    REQUIRED = "required"

    def __str__(self) -> str:
        return str(self.value)
