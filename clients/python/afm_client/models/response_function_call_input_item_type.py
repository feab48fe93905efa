from enum import StrEnum


class ResponseFunctionCallInputItemType(StrEnum):
    FUNCTION_CALL = "function_call"

    def __str__(self) -> str:
        return str(self.value)
