from enum import StrEnum


class ResponseIncompleteDetailsType0Reason(StrEnum):
    CONTENT_FILTER = "content_filter"
    MAX_OUTPUT_TOKENS = "max_output_tokens"

    def __str__(self) -> str:
        return str(self.value)
