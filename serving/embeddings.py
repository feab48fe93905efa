"""Embeddings: EmbeddingRequest -> an embedding model call -> the `list` of embeddings."""

from __future__ import annotations

import asyncio
import base64
from typing import TYPE_CHECKING, Any

import numpy as np

from generated.models import EmbeddingRequest
from serving.context import note_usage
from serving.errors import InvalidRequest
from serving.values import plain

if TYPE_CHECKING:
    from serving.model_context import Server


def inputs(raw: Any) -> list[str] | list[list[int]]:
    """The four accepted input shapes as texts or token-id lists (the contract already
    refuses empty and blank inputs)."""
    raw = plain(raw)
    if isinstance(raw, str):
        return [raw]
    if all(isinstance(x, int) for x in raw):
        return [list(raw)]
    return list(raw)


def _encode(vector: np.ndarray, fmt: str) -> list[float] | str:
    if fmt == "base64":
        return base64.b64encode(vector.astype("<f4").tobytes()).decode()
    return [float(x) for x in vector]


async def embed(state: Server, req: EmbeddingRequest) -> tuple[dict[str, Any], bool]:
    """The embedding list, and whether any input was truncated to the model's window."""
    model_id = state.resolve_embedding_id(req.model)
    model = await state.embedding_model(model_id)
    dims = req.dimensions
    if dims is not None and dims > model.dimensions:
        raise InvalidRequest(f"dimensions may be at most {model.dimensions} for {model_id}",
                             param="dimensions")
    try:
        result = await asyncio.to_thread(model.embed, inputs(req.input), dims)
    except ValueError as exc:
        raise InvalidRequest(str(exc), param="input") from exc
    note_usage(model=model_id, tokens_in=result.prompt_tokens)
    fmt = plain(req.encoding_format) or "float"
    payload = {
        "object": "list",
        "data": [{"object": "embedding", "index": i, "embedding": _encode(v, fmt)}
                 for i, v in enumerate(result.vectors)],
        "model": model_id,
        "usage": {"prompt_tokens": result.prompt_tokens, "total_tokens": result.prompt_tokens},
    }
    return payload, result.truncated
