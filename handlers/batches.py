"""Batch operations: createBatch, listBatches, retrieveBatch, cancelBatch (durable, run by
afm.batch_worker), and createBatchCompletions (multiplexed SSE)."""

from __future__ import annotations

from typing import Any

from starlette.responses import Response

from afm import storage
from afm.state import get_state
from generated.models import Batch, BatchCompletionsRequest, BatchList, CreateBatchRequest
from handlers.files import in_store
from handlers.replies import json_response, sse_response
from serving.batch import batch_completions


async def create_batch(body: dict[str, Any]) -> Response:
    state = get_state()
    req = CreateBatchRequest.model_validate(body)
    obj = await in_store(state, lambda s: s.batches.create(
        req.input_file_id, req.endpoint.value, req.completion_window, req.metadata))
    if state.worker is not None:
        state.worker.wake()
    return json_response(Batch.model_validate(obj))


async def list_batches(limit: int = 20, after: str | None = None) -> Response:
    items, more = await in_store(get_state(), lambda s: s.batches.list(limit=limit, after=after))
    return json_response(BatchList(
        object="list", data=[Batch.model_validate(i) for i in items], has_more=more,
        first_id=items[0]["id"] if items else None, last_id=items[-1]["id"] if items else None))


async def retrieve_batch(batch_id: str) -> Response:
    obj = await in_store(get_state(), lambda s: s.batches.get(batch_id))
    return json_response(Batch.model_validate(obj))


async def cancel_batch(batch_id: str) -> Response:
    state = get_state()

    def cancel(s: storage.Store) -> dict[str, Any]:
        try:
            return s.batches.cancel(batch_id)
        except storage.Conflict:  # already finished: returned as is
            return s.batches.get(batch_id)

    obj = await in_store(state, cancel)
    if state.worker is not None:
        state.worker.wake()
    return json_response(Batch.model_validate(obj))


async def create_batch_completions(body: dict[str, Any]) -> Response:
    req = BatchCompletionsRequest.model_validate(body)
    return sse_response(batch_completions(get_state(), req))
