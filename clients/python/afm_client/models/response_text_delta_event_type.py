from enum import StrEnum


class ResponseTextDeltaEventType(StrEnum):
    RESPONSE_OUTPUT_TEXT_DELTA = "response.output_text.delta"
    RESPONSE_REASONING_TEXT_DELTA = "response.reasoning_text.delta"

    def __str__(self) -> str:
        return str(self.value)
