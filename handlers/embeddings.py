"""Embedding operation: createEmbedding -> engine.embeddings.EmbeddingModel.embed (MLX)."""

from __future__ import annotations

import asyncio
import base64
from typing import Any

import numpy as np
from starlette.responses import Response

from afm.errors import InvalidRequest
from afm.state import AppState, get_state
from generated.models import EmbeddingList
from handlers.responses import dump, json_response


def _inputs(raw: Any) -> list[str] | list[list[int]]:
    """Normalise the four accepted input shapes; 400 for empty ones."""
    if isinstance(raw, str):
        raw = [raw]
    if not raw:
        raise InvalidRequest("'input' must not be empty", param="input")
    if all(isinstance(x, int) for x in raw):
        return [list(raw)]
    if all(isinstance(x, list) for x in raw):
        if any(not x for x in raw):
            raise InvalidRequest("'input' contains an empty token list", param="input")
        return [list(x) for x in raw]
    if all(isinstance(x, str) for x in raw):
        for i, text in enumerate(raw):
            if not text.strip():
                raise InvalidRequest(f"input[{i}] is empty", param="input")
        return list(raw)
    raise InvalidRequest("'input' must be a string, strings, token ids or token-id lists",
                         param="input")


def _encode(vector: np.ndarray, fmt: str) -> list[float] | str:
    if fmt == "base64":
        return base64.b64encode(vector.astype("<f4").tobytes()).decode()
    return [float(x) for x in vector]


async def create_embedding(body: dict[str, Any]) -> Response:
    payload, truncated = await _embed(get_state(), body)
    headers = {"X-Embedding-Truncated": "true"} if truncated else None
    return json_response(payload, headers=headers)


async def create_embedding_payload(state: AppState, body: dict[str, Any]) -> dict[str, Any]:
    """The embedding list as a plain dict (for batch lines)."""
    payload, _ = await _embed(state, body)
    return dump(payload)


async def _embed(state: AppState, body: dict[str, Any]) -> tuple[EmbeddingList, bool]:
    model_id = state.resolve_embedding_id(body.get("model"))
    inputs = _inputs(body["input"])
    model = await state.embedding_model(model_id)
    dims = body.get("dimensions")
    if dims is not None and dims > model.dimensions:
        raise InvalidRequest(f"dimensions may be at most {model.dimensions} for {model_id}",
                             param="dimensions")
    try:
        result = await asyncio.to_thread(model.embed, inputs, dims)
    except ValueError as exc:
        raise InvalidRequest(str(exc), param="input") from exc
    fmt = body.get("encoding_format") or "float"
    payload = EmbeddingList.model_validate({
        "object": "list",
        "data": [{"object": "embedding", "index": i, "embedding": _encode(v, fmt)}
                 for i, v in enumerate(result.vectors)],
        "model": model_id,
        "usage": {"prompt_tokens": result.prompt_tokens, "total_tokens": result.prompt_tokens},
    })
    return payload, result.truncated
