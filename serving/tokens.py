"""Token routes: tokenize, detokenize and count tokens with the served model's tokenizer and
chat template, so counts equal the prompt_tokens a chat request reports."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from generated.models import (
    CountTokensRequest,
    DetokenizeRequest,
    TokenizeMessagesRequest,
    TokenizeRequest,
    TokenizeTextRequest,
)
from serving.chat import function_tools, template_messages
from serving.errors import InvalidRequest, TokenizeUnsupported
from serving.prepare import render_tokens, template_kwargs
from serving.values import plain, unwrap

if TYPE_CHECKING:
    from engine.chat_engine import ChatEngine
    from serving.model_context import ModelContext


def tokenizer_engine(state: ModelContext) -> ChatEngine:
    """The engine whose tokenizer serves these routes (422 on backends without one)."""
    if state.engine is None:
        raise TokenizeUnsupported(
            "tokenize endpoints require an MLX model — "
            f"{state.settings.backend.capitalize()} backend has no public tokenizer")
    return state.engine


async def _chat_tokens(state: ModelContext, messages: list[dict[str, Any]], tools: Any,
                       request_kwargs: dict[str, Any] | None,
                       add_generation_prompt: bool = True) -> list[int]:
    """The chat prompt's tokens, rendered exactly as a chat completion renders them."""
    tokenizer_engine(state)
    kwargs = template_kwargs(state, None, request_kwargs)
    _, tokens = await render_tokens(state, messages, function_tools(tools), kwargs,
                                    add_generation_prompt)
    return tokens


async def tokenize(state: ModelContext, req: TokenizeRequest) -> dict[str, Any]:
    """Tokens of a text (optionally with the tokenizer's special tokens) or of rendered chat
    messages; the contract guarantees exactly one of `text`, `prompt`, `messages`."""
    engine = tokenizer_engine(state)
    shape = unwrap(req)
    if isinstance(shape, TokenizeMessagesRequest):
        tokens = await _chat_tokens(state, template_messages(shape.messages), shape.tools,
                                    shape.chat_template_kwargs, shape.add_generation_prompt)
    else:
        text = shape.text if isinstance(shape, TokenizeTextRequest) else shape.prompt
        tokens = await asyncio.to_thread(engine.encode, text, shape.add_special_tokens)
    return {"tokens": tokens, "count": len(tokens), "model": state.model_id,
            "max_model_len": engine.max_context}


async def detokenize(state: ModelContext, req: DetokenizeRequest) -> dict[str, Any]:
    engine = tokenizer_engine(state)
    tokens = plain(req.tokens)
    bad = [t for t in tokens if not 0 <= t < engine.vocab_size]
    if bad:
        raise InvalidRequest(f"Token id {bad[0]} is outside the vocabulary "
                             f"(0..{engine.vocab_size - 1})", param="tokens")
    text = await asyncio.to_thread(engine.decode, tokens)
    return {"text": text, "prompt": text, "model": state.model_id}


async def count_tokens(state: ModelContext, req: CountTokensRequest) -> dict[str, Any]:
    messages = template_messages(req.messages)
    system = plain(req.system)
    if system:
        text = system if isinstance(system, str) else "".join(p["text"] for p in system)
        messages.insert(0, {"role": "system", "content": text})
    tokens = await _chat_tokens(state, messages, req.tools, None)
    return {"input_tokens": len(tokens), "model": state.model_id}
