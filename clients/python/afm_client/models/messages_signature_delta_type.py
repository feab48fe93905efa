from enum import StrEnum


class MessagesSignatureDeltaType(StrEnum):
    SIGNATURE_DELTA = "signature_delta"

    def __str__(self) -> str:
        return str(self.value)
