from enum import StrEnum


class ResponseNamespaceFunctionTypeType3Type1(StrEnum):
    FUNCTION = "function"

    def __str__(self) -> str:
        return str(self.value)
