"""Completion operation: createCompletion (raw prompt, JSON or SSE).

createCompletion -> serving.completions.to_request -> engine ChatEngine
-> serving.completions.complete / serving.completions.stream.
"""

from __future__ import annotations

from typing import Any

from starlette.responses import Response

from afm.state import get_state
from generated.models import Completion, CompletionRequest
from handlers.replies import json_response, request_id, sse_response, until_disconnect
from serving import completions
from serving.chat import include_usage
from serving.sampling import check_streaming


async def create_completion(body: dict[str, Any]) -> Response:
    req = CompletionRequest.model_validate(body)
    check_streaming(get_state().settings, bool(req.stream))
    state = await get_state().for_model(req.model)
    request = await completions.to_request(state, req, request_id())
    if req.stream:
        return sse_response(await completions.stream(state, request,
                                                     with_usage=include_usage(req)))
    result = await until_disconnect(completions.complete(state, request))
    return json_response(Completion.model_validate(result))
