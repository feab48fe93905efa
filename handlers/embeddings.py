"""Embedding operation: createEmbedding -> serving.embeddings.embed -> engine embeddings."""

from __future__ import annotations

from typing import Any

from starlette.responses import Response

from afm.state import get_state
from generated.models import EmbeddingList, EmbeddingRequest
from handlers.replies import json_response
from serving.embeddings import embed


async def create_embedding(body: dict[str, Any]) -> Response:
    payload, truncated = await embed(get_state(), EmbeddingRequest.model_validate(body))
    headers = {"X-Embedding-Truncated": "true"} if truncated else None
    return json_response(EmbeddingList.model_validate(payload), headers=headers)
