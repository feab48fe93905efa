from enum import StrEnum


class ResponseFunctionCallOutputInputItemType(StrEnum):
    FUNCTION_CALL_OUTPUT = "function_call_output"

    def __str__(self) -> str:
        return str(self.value)
