"""Token operations: tokenize, detokenize, countTokens - with the served model's tokenizer and
chat template, so counts equal the prompt_tokens a chat request reports."""

from __future__ import annotations

import asyncio
from typing import Any

from starlette.responses import Response

from afm.errors import InvalidRequest, TokenizeUnsupported
from afm.state import AppState, get_state
from generated.models import CountTokensResponse, DetokenizeResponse, TokenizeResponse
from handlers.responses import json_response


def _engine(state: AppState) -> Any:
    if state.engine is None:
        raise TokenizeUnsupported(
            "tokenize endpoints require an MLX model — "
            f"{state.settings.backend.capitalize()} backend has no public tokenizer")
    return state.engine


async def _render(state: AppState, body: dict[str, Any], messages: list[dict[str, Any]],
                  add_generation_prompt: bool = True) -> list[int]:
    """The chat prompt's tokens, rendered exactly as createChatCompletion renders them."""
    from jinja2 import TemplateError

    from engine.templating import render_prompt
    from handlers.chat_request import normalise_messages, template_kwargs

    engine = _engine(state)
    normalised = normalise_messages(messages, state.settings.instructions)
    kwargs = template_kwargs(state, body)
    try:
        text = await asyncio.to_thread(render_prompt, engine.tokenizer, normalised,
                                       body.get("tools") or None, kwargs, add_generation_prompt)
    except TemplateError as exc:
        raise InvalidRequest(f"The chat template rejected these messages: {exc}",
                             param="messages") from exc
    return await asyncio.to_thread(engine.encode, text)


async def tokenize(body: dict[str, Any]) -> Response:
    state = get_state()
    engine = _engine(state)
    given = [k for k in ("text", "prompt", "messages") if body.get(k) is not None]
    if len(given) != 1:
        raise InvalidRequest("Send exactly one of 'text', 'prompt' or 'messages'",
                             param="text")
    if given[0] == "messages":
        tokens = await _render(state, body, body["messages"],
                               body.get("add_generation_prompt", True))
    else:
        tokens = await asyncio.to_thread(engine.encode, body[given[0]],
                                         bool(body.get("add_special_tokens", False)))
    return json_response(TokenizeResponse(tokens=tokens, count=len(tokens),
                                          model=state.model_id,
                                          max_model_len=engine.max_context))


async def detokenize(body: dict[str, Any]) -> Response:
    state = get_state()
    engine = _engine(state)
    tokens = body["tokens"]
    bad = [t for t in tokens if not 0 <= t < engine.vocab_size]
    if bad:
        raise InvalidRequest(f"Token id {bad[0]} is outside the vocabulary "
                             f"(0..{engine.vocab_size - 1})", param="tokens")
    text = await asyncio.to_thread(engine.decode, tokens)
    return json_response(DetokenizeResponse(text=text, prompt=text, model=state.model_id))


async def count_tokens(body: dict[str, Any]) -> Response:
    state = get_state()
    messages = list(body["messages"])
    system = body.get("system")
    if system:
        text = system if isinstance(system, str) else "".join(p["text"] for p in system)
        messages.insert(0, {"role": "system", "content": text})
    tokens = await _render(state, body, messages)
    return json_response(CountTokensResponse(input_tokens=len(tokens), model=state.model_id))
