from enum import StrEnum


class ResponseArgumentsDoneEventType(StrEnum):
    RESPONSE_FUNCTION_CALL_ARGUMENTS_DONE = "response.function_call_arguments.done"

    def __str__(self) -> str:
        return str(self.value)
