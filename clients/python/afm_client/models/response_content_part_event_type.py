from enum import StrEnum


class ResponseContentPartEventType(StrEnum):
    RESPONSE_CONTENT_PART_ADDED = "response.content_part.added"
    RESPONSE_CONTENT_PART_DONE = "response.content_part.done"
    RESPONSE_REASONING_PART_ADDED = "response.reasoning_part.added"
    RESPONSE_REASONING_PART_DONE = "response.reasoning_part.done"

    def __str__(self) -> str:
        return str(self.value)
