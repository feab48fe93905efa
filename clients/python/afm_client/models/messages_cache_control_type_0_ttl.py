from enum import StrEnum


class MessagesCacheControlType0Ttl(StrEnum):
    VALUE_0 = "5m"
    VALUE_1 = "1h"

    def __str__(self) -> str:
        return str(self.value)
