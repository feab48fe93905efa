from enum import StrEnum


class CreateResponseRequestTruncationType1(StrEnum):
    AUTO = "auto"
    DISABLED = "disabled"

    def __str__(self) -> str:
        return str(self.value)
