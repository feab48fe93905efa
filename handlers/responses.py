"""Responses operations: createResponse (JSON, SSE, or background), retrieveResponse,
deleteResponse, listResponseInputItems and cancelResponse.

createResponse -> serving.responses.open_plan (translator, stored conversation) ->
serving.prepare -> engine -> serving.responses.complete / stream / start_background.
"""

from __future__ import annotations

from typing import Any

from starlette.responses import Response

from afm.state import get_state
from generated.models import (
    CreateResponseRequest,
    DeletedResponse,
    ResponseInputItemList,
    ResponseObject,
    ResponseStoredInputItem,
)
from handlers.replies import json_response, request_id, sse_response, until_disconnect
from serving import responses
from serving.sampling import check_streaming


async def create_response(body: dict[str, Any]) -> Response:
    req = CreateResponseRequest.model_validate(body)
    check_streaming(get_state().settings, bool(req.stream))
    state = await get_state().for_model(req.model)
    plan = await responses.open_plan(state, req, request_id())
    headers = plan.prepared.headers
    if plan.background:
        queued = await responses.start_background(state, plan)
        return json_response(ResponseObject.model_validate(queued), headers=headers)
    if plan.stream:
        events = await responses.stream(state, plan)
        return sse_response(events, headers=headers, named=True)
    outcome = await until_disconnect(responses.complete(state, plan))  # stored, unless cut
    return json_response(ResponseObject.model_validate(outcome.response), headers=headers)


async def retrieve_response(response_id: str) -> Response:
    obj = await responses.retrieve(get_state(), response_id)
    return json_response(ResponseObject.model_validate(obj))


async def delete_response(response_id: str) -> Response:
    await responses.delete(get_state(), response_id)
    return json_response(DeletedResponse(id=response_id, object="response", deleted=True))


async def list_response_input_items(response_id: str, limit: int = 20, after: str | None = None,
                                    order: str = "desc", **_query: Any) -> Response:
    items, more = await responses.input_items_page(get_state(), response_id, limit, after, order)
    return json_response(ResponseInputItemList(
        object="list", data=[ResponseStoredInputItem.model_validate(i) for i in items],
        has_more=more, first_id=items[0]["id"] if items else None,
        last_id=items[-1]["id"] if items else None))


async def cancel_response(response_id: str) -> Response:
    obj = await responses.cancel(get_state(), response_id)
    return json_response(ResponseObject.model_validate(obj))
