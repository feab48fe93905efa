from enum import StrEnum


class CountTokensRequestSystemType1ItemType(StrEnum):
    TEXT = "text"

    def __str__(self) -> str:
        return str(self.value)
