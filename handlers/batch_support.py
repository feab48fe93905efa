"""Glue for batches: run one batch line through the same engine as live traffic (at a lower
priority), validate line bodies against the contract, and multiplex batch completions."""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import AsyncIterator
from typing import Any

import yaml
from connexion.json_schema import Draft4RequestValidator, resolve_refs
from starlette.responses import Response, StreamingResponse

from afm.context import request_id_var
from afm.contract import SPEC_PATH
from afm.errors import ApiError
from afm.state import AppState
from generated.models import BatchCompletionsRequest
from handlers import generation as gen

log = logging.getLogger("afm.batches")

BATCH_PRIORITY = 10
BUSY_RETRY_DELAY = 0.5
"""Seconds before a batch line that found no free slot (server_busy) is submitted again."""
SCHEMAS = {
    "/v1/chat/completions": "ChatCompletionRequest",
    "/v1/completions": "CompletionRequest",
    "/v1/embeddings": "EmbeddingRequest",
}


@functools.cache
def _validator(endpoint: str) -> Draft4RequestValidator:
    spec = resolve_refs(yaml.safe_load(SPEC_PATH.read_text()))
    return Draft4RequestValidator(spec["components"]["schemas"][SCHEMAS[endpoint]])


def validate_line_body(endpoint: str, body: dict[str, Any]) -> list[str]:
    """Contract violations of one batch line's body (empty when valid). Thread-safe."""
    if endpoint not in SCHEMAS:
        return [f"endpoint {endpoint} is not supported for batches"]
    errors = sorted(_validator(endpoint).iter_errors(body), key=lambda e: list(e.path))
    return [f"{'.'.join(map(str, e.path)) or 'body'}: {e.message}" for e in errors[:5]]


async def execute_line(state: AppState, endpoint: str, body: dict[str, Any],
                       request_id: str) -> tuple[int, dict[str, Any]]:
    """Run one line; returns (status, response body or error envelope).

    A line that waited past the queue timeout (503 ``server_busy``, capacity pressure) is
    retried after a pause instead of failing: batch lines queue behind interactive traffic by
    design, and the batch's completion window (or a cancel) bounds the wait.
    """
    token = request_id_var.set(request_id)
    try:
        while True:
            try:
                return 200, await _run(state, endpoint, dict(body, stream=False), request_id)
            except ApiError as exc:
                if exc.type != "server_busy":
                    return exc.status, exc.body()
            log.info("batch line %s found the server busy; retrying", request_id)
            await asyncio.sleep(BUSY_RETRY_DELAY)
    finally:
        request_id_var.reset(token)


async def _run(state: AppState, endpoint: str, body: dict[str, Any],
               request_id: str) -> dict[str, Any]:
    if endpoint == "/v1/chat/completions":
        from handlers.chat import complete_chat
        from handlers.chat_request import prepare_chat

        prepared = await prepare_chat(state, body, request_id, priority=BATCH_PRIORITY)
        return await complete_chat(state, prepared)
    if endpoint == "/v1/completions":
        from handlers.completions import _complete, _prepare

        req = await _prepare(state, body)
        req.priority = BATCH_PRIORITY
        return await _complete(state, req, body)
    if endpoint == "/v1/embeddings":
        from handlers.embeddings import create_embedding_payload

        return await create_embedding_payload(state, body)
    raise ApiError(f"Unsupported batch endpoint {endpoint}", status=400,
                   type="invalid_request_error")


async def stream_batch_completions(state: AppState, req: BatchCompletionsRequest) -> Response:
    """Run up to 64 chat requests together; multiplex their chunks over one SSE stream."""
    from handlers.chat import complete_chat
    from handlers.chat_request import prepare_chat

    ids = [item.custom_id for item in req.requests]
    if len(set(ids)) != len(ids):
        raise gen.InvalidRequest("custom_id values must be unique", param="requests")
    state.require_engine()
    queue: asyncio.Queue[bytes | None] = asyncio.Queue()
    parent = request_id_var.get() or "batch"

    async def one(index: int, custom_id: str, body: dict[str, Any]) -> None:
        request_id = f"{parent}-{index}"
        token = request_id_var.set(request_id)
        try:
            prepared = await prepare_chat(state, dict(body, stream=False), request_id)
            result = await complete_chat(state, prepared)
            choice = result["choices"][0]
            message = choice["message"]
            delta = {k: v for k, v in message.items() if v is not None}
            if "tool_calls" in delta:  # chunk shape: each call carries its index
                delta["tool_calls"] = [{"index": i, **call}
                                       for i, call in enumerate(delta["tool_calls"])]
            await queue.put(gen.sse({
                "custom_id": custom_id, "id": result["id"], "object": "chat.completion.chunk",
                "created": result["created"], "model": result["model"],
                "choices": [{"index": 0, "delta": delta, "logprobs": choice["logprobs"],
                             "finish_reason": choice["finish_reason"]}],
                "usage": result["usage"]}))
        except ApiError as exc:
            await queue.put(gen.sse({"custom_id": custom_id, "object": "batch.error",
                                     "status_code": exc.status, **exc.body()}))
        except Exception as exc:  # noqa: BLE001 - one failure never stops the others
            log.exception("batch completion %s failed", custom_id)
            await queue.put(gen.sse({"custom_id": custom_id, "object": "batch.error",
                                     "status_code": 500,
                                     "error": gen.error_payload(str(exc))}))
        finally:
            request_id_var.reset(token)

    bodies = [item.body.model_dump(mode="json", exclude_unset=True) for item in req.requests]

    async def events() -> AsyncIterator[bytes]:
        tasks = [asyncio.ensure_future(one(i, cid, body))
                 for i, (cid, body) in enumerate(zip(ids, bodies, strict=True))]
        done = asyncio.ensure_future(asyncio.gather(*tasks, return_exceptions=True))
        done.add_done_callback(lambda _: queue.put_nowait(None))
        try:
            while (item := await queue.get()) is not None:
                yield item
            yield gen.sse("[DONE]")
        finally:
            for task in tasks:
                task.cancel()

    return StreamingResponse(events(), media_type="text/event-stream", headers=gen.SSE_HEADERS)

