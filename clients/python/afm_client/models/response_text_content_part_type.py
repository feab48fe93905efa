from enum import StrEnum


class ResponseTextContentPartType(StrEnum):
    INPUT_TEXT = "input_text"
    OUTPUT_TEXT = "output_text"
    REASONING_TEXT = "reasoning_text"
    SUMMARY_TEXT = "summary_text"
    TEXT = "text"

    def __str__(self) -> str:
        return str(self.value)
