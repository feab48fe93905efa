"""Batches through the serving layer: one stored batch line run as the same request a live
client would send (at a lower priority), and batch completions (up to 64 chat requests)
multiplexed into one event stream."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from generated.models import (
    BatchCompletionsRequest,
    ChatCompletionRequest,
    CompletionRequest,
    CreateResponseRequest,
    EmbeddingRequest,
)
from serving import chat, completions, embeddings, responses
from serving.chat import error_payload
from serving.context import lease_scope, request_id_var
from serving.errors import ApiError, InvalidRequest, ShuttingDown
from serving.prepare import prepare

if TYPE_CHECKING:
    from serving.model_context import Server

log = logging.getLogger("afm.batches")

BATCH_PRIORITY = 10
"""Engine priority of batch lines: interactive requests (0) go first."""
BUSY_RETRY_DELAY = 0.5
"""Seconds before a batch line that found no free slot (server_busy) is submitted again."""


async def run_line(state: Server, endpoint: str, body: dict[str, Any],
                   request_id: str) -> dict[str, Any]:
    """One line's response body, computed as the live endpoint computes it."""
    body = dict(body, stream=False)
    if endpoint == "/v1/embeddings":
        payload, _ = await embeddings.embed(state, EmbeddingRequest.model_validate(body))
        return payload
    model = await state.for_model(body.get("model"))
    if endpoint == "/v1/chat/completions":
        spec = chat.to_spec(ChatCompletionRequest.model_validate(body), priority=BATCH_PRIORITY)
        return await chat.complete(model, await prepare(model, spec, request_id))
    if endpoint == "/v1/completions":
        request = await completions.to_request(
            model, CompletionRequest.model_validate(body), request_id, priority=BATCH_PRIORITY)
        return await completions.complete(model, request)
    if endpoint == "/v1/responses":
        req = CreateResponseRequest.model_validate(dict(body, background=False))
        return await responses.create(model, req, request_id, priority=BATCH_PRIORITY)
    raise InvalidRequest(f"Unsupported batch endpoint {endpoint}")


async def execute_line(state: Server, endpoint: str, body: dict[str, Any],
                       request_id: str) -> tuple[int, dict[str, Any]]:
    """Run one line; returns (status, response body or error envelope).

    A line that waited past the queue timeout (503 ``server_busy``, capacity pressure) is
    retried after a pause instead of failing: batch lines queue behind interactive traffic by
    design, and the batch's completion window (or a cancel) bounds the wait. A line refused
    because the server is stopping raises :class:`ShuttingDown` (the worker leaves it for the
    next start).
    """
    token = request_id_var.set(request_id)
    try:
        while True:
            try:
                with lease_scope():  # the line holds its model until it is done
                    return 200, await run_line(state, endpoint, body, request_id)
            except ShuttingDown:
                raise
            except ApiError as exc:
                if exc.type != "server_busy":
                    return exc.status, exc.body()
            log.info("batch line %s found the server busy; retrying", request_id)
            await asyncio.sleep(BUSY_RETRY_DELAY)
    finally:
        request_id_var.reset(token)


def _as_chunk(custom_id: str, result: dict[str, Any]) -> dict[str, Any]:
    """A whole chat completion as one `chat.completion.chunk` tagged with its custom_id."""
    choice = result["choices"][0]
    delta = {k: v for k, v in choice["message"].items() if v is not None}
    if "tool_calls" in delta:  # chunk shape: each call carries its index
        delta["tool_calls"] = [{"index": i, **call} for i, call in enumerate(delta["tool_calls"])]
    return {"custom_id": custom_id, "id": result["id"], "object": "chat.completion.chunk",
            "created": result["created"], "model": result["model"],
            "choices": [{"index": 0, "delta": delta, "logprobs": choice["logprobs"],
                         "finish_reason": choice["finish_reason"]}],
            "usage": result["usage"]}


def batch_completions(state: Server, req: BatchCompletionsRequest
                      ) -> AsyncIterator[dict[str, Any]]:
    """Run the requests together; each finished one becomes an event (a chunk, or a
    `batch.error` with its status) as soon as it is done. One failure never stops the others."""
    ids = [item.custom_id for item in req.requests]
    if len(set(ids)) != len(ids):
        raise InvalidRequest("custom_id values must be unique", param="requests")
    if not state.backend_available:
        state.require_engine()  # 503 before the stream starts
    parent = request_id_var.get() or "batch"
    return _multiplex(state, req, parent)


async def _multiplex(state: Server, req: BatchCompletionsRequest,
                     parent: str) -> AsyncIterator[dict[str, Any]]:
    queue: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()

    async def one(index: int, custom_id: str, body: ChatCompletionRequest) -> None:
        request_id = f"{parent}-{index}"
        token = request_id_var.set(request_id)
        try:
            spec = chat.to_spec(body)
            view = await state.for_model(body.model)
            result = await chat.complete(view, await prepare(view, spec, request_id))
            await queue.put(_as_chunk(custom_id, result))
        except ApiError as exc:
            await queue.put({"custom_id": custom_id, "object": "batch.error",
                             "status_code": exc.status, **exc.body()})
        except Exception as exc:  # noqa: BLE001 - one failure never stops the others
            log.exception("batch completion %s failed", custom_id)
            await queue.put({"custom_id": custom_id, "object": "batch.error",
                             "status_code": 500, "error": error_payload(str(exc))})
        finally:
            request_id_var.reset(token)

    tasks = [asyncio.ensure_future(one(i, item.custom_id, item.body))
             for i, item in enumerate(req.requests)]
    done = asyncio.ensure_future(asyncio.gather(*tasks, return_exceptions=True))
    done.add_done_callback(lambda _: queue.put_nowait(None))
    try:
        while (item := await queue.get()) is not None:
            yield item
    finally:
        for task in tasks:
            task.cancel()
