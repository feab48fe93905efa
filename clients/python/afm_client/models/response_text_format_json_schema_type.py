from enum import StrEnum


class ResponseTextFormatJsonSchemaType(StrEnum):
    JSON_SCHEMA = "json_schema"

    def __str__(self) -> str:
        return str(self.value)
