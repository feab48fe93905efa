"""Chat operations: createChatCompletion (JSON or SSE) and cancelChatCompletion.

createChatCompletion -> serving.chat.to_spec -> serving.prepare.prepare -> engine ChatEngine
-> serving.chat.complete / serving.chat.stream.
"""

from __future__ import annotations

from typing import Any

from starlette.responses import Response

from afm.errors import NotFound
from afm.state import get_state
from generated.models import ChatCompletion, ChatCompletionCancellation, ChatCompletionRequest
from handlers.replies import json_response, request_id, sse_response, until_disconnect
from serving import audio, chat
from serving.prepare import prepare
from serving.sampling import check_streaming


async def create_chat_completion(body: dict[str, Any]) -> Response:
    from connexion import request

    if isinstance(body.get("messages"), list):  # input_audio parts -> their transcript
        body = {**body, "messages": await audio.transcribe_input_audio(
            get_state().speech, body["messages"])}
    req = ChatCompletionRequest.model_validate(body)
    check_streaming(get_state().settings, bool(req.stream))
    state = await get_state().for_model(req.model)
    prepared = await prepare(state, chat.to_spec(req), request_id())
    profile = request.headers.get("x-afm-profile", "").lower()
    if req.stream:
        events = await chat.stream(state, prepared, with_usage=chat.include_usage(req),
                                   profile=profile)
        return sse_response(events, headers=prepared.headers)
    result = await until_disconnect(chat.complete(state, prepared, profile))
    return json_response(ChatCompletion.model_validate(result), headers=prepared.headers)


async def cancel_chat_completion(request_id: str) -> Response:
    if not get_state().cancel(request_id):
        raise NotFound(f"No in-flight request with id '{request_id}' (it may already be "
                       "complete)", param="request_id")
    return json_response(ChatCompletionCancellation(
        id=request_id, object="chat.completion.cancellation", cancelled=True))
