from enum import StrEnum


class ResponseTextDoneEventType(StrEnum):
    RESPONSE_OUTPUT_TEXT_DONE = "response.output_text.done"
    RESPONSE_REASONING_TEXT_DONE = "response.reasoning_text.done"

    def __str__(self) -> str:
        return str(self.value)
