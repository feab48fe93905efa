"""Anthropic Messages operations: createMessage (JSON or named-event SSE) and
countMessageTokens.

createMessage -> serving.messages.to_spec -> serving.prepare.prepare -> engine ChatEngine
-> serving.messages.complete / serving.messages_stream.stream. Errors on these routes use
Anthropic's envelope (afm.errors.error_reply, chosen by route).
"""

from __future__ import annotations

from typing import Any

from starlette.responses import Response

from afm.state import get_state
from generated.models import (
    MessagesCountTokensRequest,
    MessagesCountTokensResponse,
    MessagesMessage,
    MessagesRequest,
)
from handlers.replies import json_response, named_sse_response, request_id, until_disconnect
from serving import messages, messages_stream, sealed
from serving.prepare import prepare
from serving.sampling import check_streaming


async def create_message(body: dict[str, Any], **_query: Any) -> Response:
    req = MessagesRequest.model_validate(body)
    check_streaming(get_state().settings, bool(req.stream))
    state = await get_state().for_model(req.model)
    prepared = await prepare(state, messages.to_spec(req, sealed.key(state)), request_id())
    omit = messages.omits_thinking(req)
    if req.stream:
        events = await messages_stream.stream(state, prepared, omit)
        return named_sse_response(events, headers=prepared.headers)
    result = await until_disconnect(messages.complete(state, prepared, omit))
    return json_response(MessagesMessage.model_validate(result), headers=prepared.headers)


async def count_message_tokens(body: dict[str, Any], **_query: Any) -> Response:
    req = MessagesCountTokensRequest.model_validate(body)
    result = await messages.count_tokens(await get_state().for_model(req.model), req)
    return json_response(MessagesCountTokensResponse.model_validate(result))
