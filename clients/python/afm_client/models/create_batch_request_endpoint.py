from enum import StrEnum


class CreateBatchRequestEndpoint(StrEnum):
    VALUE_0 = "/v1/chat/completions"
    VALUE_1 = "/v1/completions"
    VALUE_2 = "/v1/embeddings"
    VALUE_3 = "/v1/responses"

    def __str__(self) -> str:
        return str(self.value)
