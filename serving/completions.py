"""Text completions: CompletionRequest -> GenerationRequest (translator) and engine output ->
`text_completion` objects and stream events (shapers)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from engine.types import GenerationRequest, GenerationStats, TokenLogprob
from generated.models import CompletionRequest
from serving import ids
from serving.chat import error_payload
from serving.driver import Failed, Final, Generation, Start, Step, collect, encode
from serving.errors import InvalidRequest
from serving.sampling import SamplingFields, sampling_params
from serving.usage import timings, usage
from serving.values import plain

if TYPE_CHECKING:
    from serving.model_context import ModelContext


async def to_request(state: ModelContext, req: CompletionRequest, request_id: str, *,
                     priority: int = 0) -> GenerationRequest:
    """The translator: tokenise the prompt and merge sampling fields (400 when refused)."""
    engine = state.require_engine()
    s = state.settings
    if req.logprobs is not None and req.logprobs > s.max_logprobs:
        raise InvalidRequest(f"logprobs may be at most {s.max_logprobs} on this server",
                             param="logprobs")
    prompt = plain(req.prompt)
    if isinstance(prompt, str):
        # like vLLM and mlx-lm: the tokenizer's own special tokens (a BOS, where it has one)
        tokens = await asyncio.to_thread(engine.encode, prompt, True)
    else:
        bad = [t for t in prompt if not 0 <= t < engine.vocab_size]
        if bad:
            raise InvalidRequest(f"Token id {bad[0]} is outside the vocabulary", param="prompt")
        tokens = list(prompt)
    params = sampling_params(s, SamplingFields.of(req), prompt_tokens=len(tokens),
                             max_context=engine.max_context,
                             logprobs=req.logprobs is not None, top_logprobs=req.logprobs or 0,
                             prompt_param="prompt", defaults=state.generation_defaults)
    return GenerationRequest(request_id=request_id, prompt_tokens=tokens, params=params,
                             priority=priority)


def legacy_logprobs(lps: list[TokenLogprob], offset0: int) -> dict[str, Any]:
    """Token logprobs in the completions API's column layout."""
    offsets, pos = [], offset0
    for lp in lps:
        offsets.append(pos)
        pos += len(lp.token)
    return {"tokens": [lp.token for lp in lps], "token_logprobs": [lp.logprob for lp in lps],
            "top_logprobs": [{t.token: t.logprob for t in lp.top_logprobs} for lp in lps],
            "text_offset": offsets}


def _base(state: ModelContext) -> dict[str, Any]:
    return {"id": ids.new_id("cmpl-"), "object": "text_completion", "created": ids.now(),
            "model": state.model_id, "system_fingerprint": ids.fingerprint(state.model_id)}


async def complete(state: ModelContext, request: GenerationRequest) -> dict[str, Any]:
    """Run to the end and shape the `text_completion` object."""
    done = await collect(state.require_engine(), request, state.settings.queue_timeout)
    return {
        **_base(state),
        "choices": [{"index": 0, "text": done.text,
                     "logprobs": (legacy_logprobs(done.logprobs, 0) if request.params.logprobs
                                  else None),
                     "finish_reason": done.finish_reason}],
        "usage": usage(done.stats), "timings": timings(done.stats),
    }


async def stream(state: ModelContext, request: GenerationRequest, *,
                 with_usage: bool = True) -> AsyncIterator[dict[str, Any]]:
    """Admit the request (503 surfaces here), then return its stream events."""
    generation = await Generation.open(state.require_engine(), request,
                                       state.settings.queue_timeout)
    encoder = CompletionEncoder(_base(state), request.params.logprobs, with_usage)
    return encode(generation, encoder, request.request_id)


class CompletionEncoder:
    """The driver's events as `text_completion` stream objects: one per piece of text (with
    its logprobs in column layout), the finish (or error) chunk, then the usage chunk."""

    def __init__(self, base: dict[str, Any], logprobs: bool, with_usage: bool = True) -> None:
        self.base = base
        self.logprobs = logprobs
        self.with_usage = with_usage
        self.offset = 0

    def chunk(self, text: str, finish: str | None, lps: dict[str, Any] | None
              ) -> dict[str, Any]:
        return {**self.base, "choices": [{"index": 0, "text": text, "logprobs": lps,
                                          "finish_reason": finish}]}

    def error_chunk(self, text: str, message: str) -> dict[str, Any]:
        return {**self.base, "choices": [{"index": 0, "text": text, "logprobs": None,
                                          "finish_reason": "error"}],
                "error": error_payload(message)}

    def start(self, event: Start) -> list[dict[str, Any]]:
        return []

    def step(self, event: Step) -> list[dict[str, Any]]:
        if not (event.text or event.logprobs):
            return []
        lps = legacy_logprobs(event.logprobs, self.offset) if self.logprobs else None
        self.offset += len(event.text)
        return [self.chunk(event.text, None, lps)]

    def _usage(self, stats: GenerationStats) -> list[dict[str, Any]]:
        return [{**self.base, "choices": [], "usage": usage(stats)}] if self.with_usage else []

    async def final(self, event: Final) -> list[dict[str, Any]]:
        return [self.chunk("", event.finish_reason, None), *self._usage(event.stats)]

    async def failed(self, event: Failed) -> list[dict[str, Any]]:
        return [self.error_chunk(f"[error] {event.message}", event.message),
                *self._usage(event.stats)]

    def crashed(self, exc: Exception) -> list[dict[str, Any]]:
        return [self.error_chunk("[error] internal error", str(exc))]

    def ping(self) -> list[dict[str, Any]]:
        return []
