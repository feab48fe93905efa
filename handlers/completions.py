"""Completion operation: createCompletion (raw prompt, JSON or SSE) -> ChatEngine.generate."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from starlette.responses import Response, StreamingResponse

from afm.context import current_request_id, new_request_id
from afm.errors import InvalidRequest
from afm.state import AppState, get_state
from engine.types import GenerationEvent, GenerationRequest, GenerationStats
from generated.models import Completion
from handlers import generation as gen
from handlers.responses import json_response


def _legacy_logprobs(events_lps: list[Any], offset0: int) -> dict[str, Any]:
    tokens, token_lps, tops, offsets = [], [], [], []
    pos = offset0
    for lp in events_lps:
        tokens.append(lp.token)
        token_lps.append(lp.logprob)
        tops.append({t.token: t.logprob for t in lp.top_logprobs})
        offsets.append(pos)
        pos += len(lp.token)
    return {"tokens": tokens, "token_logprobs": token_lps, "top_logprobs": tops,
            "text_offset": offsets}


async def _prepare(state: AppState, body: dict[str, Any]) -> GenerationRequest:
    engine = state.require_engine()
    s = state.settings
    gen.check_common(s, body)
    if body.get("echo"):
        raise InvalidRequest("echo=true is not supported", param="echo")
    if (body.get("best_of") or 1) != 1:
        raise InvalidRequest("Only best_of=1 is supported", param="best_of")
    n_logprobs = body.get("logprobs")
    if n_logprobs is not None and n_logprobs > s.max_logprobs:
        raise InvalidRequest(f"logprobs may be at most {s.max_logprobs} on this server",
                             param="logprobs")
    prompt = body["prompt"]
    if isinstance(prompt, str):
        if not prompt:
            raise InvalidRequest("'prompt' must not be empty", param="prompt")
        # like vLLM and mlx-lm: the tokenizer's own special tokens (a BOS, where it has one)
        tokens = await asyncio.to_thread(engine.encode, prompt, True)
    else:
        bad = [t for t in prompt if not 0 <= t < engine.vocab_size]
        if bad:
            raise InvalidRequest(f"Token id {bad[0]} is outside the vocabulary", param="prompt")
        tokens = list(prompt)
    params = gen.sampling_params(s, body, prompt_tokens=len(tokens),
                                 max_context=engine.max_context,
                                 logprobs=n_logprobs is not None,
                                 top_logprobs=n_logprobs or 0, prompt_param="prompt")
    return GenerationRequest(request_id=current_request_id() or new_request_id(),
                             prompt_tokens=tokens, params=params)


async def create_completion(body: dict[str, Any]) -> Response:
    state = get_state()
    req = await _prepare(state, body)
    if body.get("stream"):
        return await _stream(state, req, body)
    result = await gen.until_disconnect(_complete(state, req, body))
    return json_response(Completion.model_validate(result))


async def _complete(state: AppState, req: GenerationRequest,
                    body: dict[str, Any]) -> dict[str, Any]:
    done = await gen.generate_all(state.require_engine(), req, state.settings.queue_timeout)
    stats = done.stats
    return {
        "id": gen.new_id("cmpl-"), "object": "text_completion", "created": gen.now(),
        "model": state.model_id, "system_fingerprint": gen.fingerprint(state.model_id),
        "choices": [{"index": 0, "text": done.text,
                     "logprobs": (_legacy_logprobs(done.logprobs, 0) if req.params.logprobs
                                  else None),
                     "finish_reason": done.final.finish_reason}],
        "usage": gen.usage(stats), "timings": gen.timings(stats),
    }


async def _stream(state: AppState, req: GenerationRequest, body: dict[str, Any]) -> Response:
    stream = state.require_engine().generate(req)
    first = await gen.first_event(stream, state.settings.queue_timeout)
    base = {"id": gen.new_id("cmpl-"), "object": "text_completion", "created": gen.now(),
            "model": state.model_id, "system_fingerprint": gen.fingerprint(state.model_id)}
    include_usage = (body.get("stream_options") or {}).get("include_usage")
    include_usage = True if include_usage is None else include_usage

    def chunk(text: str, finish: str | None, lps: dict[str, Any] | None) -> bytes:
        return gen.sse({**base, "choices": [{"index": 0, "text": text, "logprobs": lps,
                                             "finish_reason": finish}]})

    async def events() -> AsyncIterator[bytes]:
        event: GenerationEvent = first
        offset = 0
        try:
            while True:
                lps = _legacy_logprobs(event.logprobs, offset) if req.params.logprobs else None
                if event.text or event.logprobs:
                    yield chunk(event.text, None, lps)
                    offset += len(event.text)
                if event.finish_reason is not None:
                    break
                event = await anext(stream)
            stats = event.stats or GenerationStats()
            if event.finish_reason == "error":
                yield gen.sse({**base, "choices": [{
                    "index": 0, "text": f"[error] {event.error}", "logprobs": None,
                    "finish_reason": "error"}], "error": gen.error_payload(str(event.error))})
            else:
                yield chunk("", event.finish_reason, None)
            if include_usage:
                yield gen.sse({**base, "choices": [], "usage": gen.usage(stats)})
            yield gen.sse("[DONE]")
        except Exception as exc:  # noqa: BLE001 - after 200, errors become an error chunk
            yield gen.sse({**base, "choices": [{"index": 0, "text": "[error] internal error",
                                                "logprobs": None, "finish_reason": "error"}],
                           "error": gen.error_payload(str(exc))})
            yield gen.sse("[DONE]")
        finally:
            await stream.aclose()

    return StreamingResponse(events(), media_type="text/event-stream", headers=gen.SSE_HEADERS)
