"""Token operations: tokenize, detokenize, countTokens -> serving.tokens."""

from __future__ import annotations

from typing import Any

from starlette.responses import Response

from afm.state import get_state
from generated.models import (
    CountTokensRequest,
    CountTokensResponse,
    DetokenizeRequest,
    DetokenizeResponse,
    TokenizeRequest,
    TokenizeResponse,
)
from handlers.replies import json_response
from serving import tokens


async def tokenize(body: dict[str, Any]) -> Response:
    req = TokenizeRequest.model_validate(body)
    result = await tokens.tokenize(await get_state().for_model(req.root.model), req)
    return json_response(TokenizeResponse.model_validate(result))


async def detokenize(body: dict[str, Any]) -> Response:
    req = DetokenizeRequest.model_validate(body)
    result = await tokens.detokenize(await get_state().for_model(req.model), req)
    return json_response(DetokenizeResponse.model_validate(result))


async def count_tokens(body: dict[str, Any]) -> Response:
    req = CountTokensRequest.model_validate(body)
    result = await tokens.count_tokens(await get_state().for_model(req.model), req)
    return json_response(CountTokensResponse.model_validate(result))
