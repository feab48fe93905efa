from enum import StrEnum


class ResponseTextFormatJsonObjectType(StrEnum):
    JSON_OBJECT = "json_object"

    def __str__(self) -> str:
        return str(self.value)
