from enum import StrEnum


class ResponseArgumentsDeltaEventType(StrEnum):
    RESPONSE_FUNCTION_CALL_ARGUMENTS_DELTA = "response.function_call_arguments.delta"

    def __str__(self) -> str:
        return str(self.value)
