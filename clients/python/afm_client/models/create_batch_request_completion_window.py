from enum import StrEnum


class CreateBatchRequestCompletionWindow(StrEnum):
    VALUE_0 = "24h"

    def __str__(self) -> str:
        return str(self.value)
