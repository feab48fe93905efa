from enum import StrEnum


class ResponseOutputItemEventType(StrEnum):
    RESPONSE_OUTPUT_ITEM_ADDED = "response.output_item.added"
    RESPONSE_OUTPUT_ITEM_DONE = "response.output_item.done"

    def __str__(self) -> str:
        return str(self.value)
