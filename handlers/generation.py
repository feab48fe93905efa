"""Shared by the chat and completions handlers: request fields -> engine parameters (with the
documented precedence), running a request against the engine, usage/timings shaping and SSE."""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import AsyncIterator, Awaitable
from dataclasses import dataclass
from typing import Any, TypeVar

from afm.context import current_request_id
from afm.errors import ApiError, InvalidRequest, ServiceUnavailable, server_busy
from afm.settings import Settings
from engine.types import (
    EngineUnavailableError,
    GenerationEvent,
    GenerationRequest,
    GenerationStats,
    SamplingParams,
    ServerBusyError,
    TokenLogprob,
)

T = TypeVar("T")

SSE_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


def new_id(prefix: str) -> str:
    return prefix + uuid.uuid4().hex[:24]


def fingerprint(model_id: str) -> str:
    """`afm_mlx__` + the model id with `/` replaced by `__`."""
    return "afm_mlx__" + model_id.replace("/", "__")


def first_set(*values: Any) -> Any:
    """The first value that is not None (request field, alias, server default...)."""
    for value in values:
        if value is not None:
            return value
    return None


def stop_list(cli: list[str], request_stop: str | list[str] | None) -> tuple[str, ...]:
    """CLI stops first, then the request's; de-duplicated; empty strings dropped."""
    extra = [request_stop] if isinstance(request_stop, str) else list(request_stop or [])
    merged: list[str] = []
    for item in [*cli, *extra]:
        if item and item not in merged:
            merged.append(item)
    return tuple(merged)


def sampling_params(
    settings: Settings,
    body: dict[str, Any],
    *,
    prompt_tokens: int,
    max_context: int,
    logprobs: bool,
    top_logprobs: int,
    default_max_tokens: int | None = None,
    prompt_param: str = "messages",
) -> SamplingParams:
    """Merge request values over server flags over backend defaults (request wins)."""
    max_tokens = first_set(body.get("max_tokens"), body.get("max_completion_tokens"),
                           default_max_tokens, settings.max_tokens)
    room = max_context - prompt_tokens
    if room <= 0:
        raise InvalidRequest(
            f"The prompt has {prompt_tokens} tokens, which leaves no room in the model's "
            f"{max_context}-token context", param=prompt_param, code="context_length_exceeded")
    defaults = SamplingParams()
    return SamplingParams(
        temperature=float(first_set(body.get("temperature"), settings.temperature,
                                    defaults.temperature)),
        top_p=float(first_set(body.get("top_p"), settings.top_p, defaults.top_p)),
        top_k=int(first_set(body.get("top_k"), settings.top_k, defaults.top_k)),
        min_p=float(first_set(body.get("min_p"), settings.min_p, defaults.min_p)),
        repetition_penalty=float(first_set(body.get("repetition_penalty"),
                                           body.get("repeat_penalty"),
                                           settings.repetition_penalty,
                                           defaults.repetition_penalty)),
        presence_penalty=float(first_set(body.get("presence_penalty"),
                                         settings.presence_penalty, defaults.presence_penalty)),
        frequency_penalty=float(first_set(body.get("frequency_penalty"),
                                          settings.frequency_penalty,
                                          defaults.frequency_penalty)),
        seed=first_set(body.get("seed"), settings.seed),
        max_tokens=int(min(max_tokens, room)),
        stop=stop_list(settings.stop, body.get("stop")),
        ignore_eos=bool(body.get("ignore_eos") or False),
        logprobs=logprobs,
        top_logprobs=top_logprobs,
    )


def check_common(settings: Settings, body: dict[str, Any]) -> None:
    """Rules shared by chat and completions that the contract cannot express."""
    if body.get("stream") and not settings.streaming:
        raise InvalidRequest("Streaming is disabled on this server (--no-streaming); "
                             "send stream=false", param="stream")
    n = body.get("n")
    if n is not None and n != 1:
        raise InvalidRequest("Only n=1 is supported", param="n")


def usage(stats: GenerationStats) -> dict[str, Any]:
    """OpenAI usage plus AFM's timing extensions."""
    def rate(n: int, seconds: float) -> float:
        return round(n / seconds, 3) if seconds > 0 else 0.0

    return {
        "prompt_tokens": stats.prompt_tokens,
        "completion_tokens": stats.completion_tokens,
        "total_tokens": stats.prompt_tokens + stats.completion_tokens,
        "prompt_tokens_details": {"cached_tokens": stats.cached_tokens},
        "prompt_time": round(stats.prompt_time, 6),
        "completion_time": round(stats.completion_time, 6),
        "total_time": round(stats.total_time, 6),
        "queue_time": round(stats.queue_time, 6),
        "prompt_tokens_per_second": rate(stats.prompt_tokens - stats.cached_tokens,
                                         stats.prompt_time),
        "completion_tokens_per_second": rate(stats.completion_tokens, stats.completion_time),
        "peak_memory_gib": round(stats.peak_memory_gib, 6),
    }


def timings(stats: GenerationStats) -> dict[str, Any]:
    """llama.cpp-style timings."""
    prompt_n = stats.prompt_tokens - stats.cached_tokens
    prompt_ms = stats.prompt_time * 1000
    predicted_ms = stats.completion_time * 1000
    return {
        "prompt_n": prompt_n,
        "prompt_ms": round(prompt_ms, 3),
        "predicted_n": stats.completion_tokens,
        "predicted_ms": round(predicted_ms, 3),
        "prompt_per_second": round(prompt_n / prompt_ms * 1000, 3) if prompt_ms > 0 else 0.0,
        "predicted_per_second": (round(stats.completion_tokens / predicted_ms * 1000, 3)
                                 if predicted_ms > 0 else 0.0),
        "cache_n": stats.cached_tokens,
    }


async def first_event(stream: AsyncIterator[GenerationEvent],
                      queue_timeout: float) -> GenerationEvent:
    """Wait for admission and the first event, mapping capacity failures to 503."""
    try:
        return await anext(stream)
    except ServerBusyError as exc:
        raise server_busy(queue_timeout) from exc
    except EngineUnavailableError as exc:
        raise ServiceUnavailable(str(exc), type="backend_unavailable",
                                 code="backend_unavailable") from exc


@dataclass
class Generated:
    """A whole generation: its text, per-token logprobs and the final event."""

    text: str
    logprobs: list[TokenLogprob]
    final: GenerationEvent

    @property
    def stats(self) -> GenerationStats:
        return self.final.stats or GenerationStats()


async def generate_all(engine: Any, request: GenerationRequest,
                       queue_timeout: float) -> Generated:
    """Run a request to its end (503 on capacity, 500 on an engine error)."""
    stream = engine.generate(request)
    try:
        event = await first_event(stream, queue_timeout)
        text: list[str] = []
        logprobs: list[TokenLogprob] = []
        while True:
            text.append(event.text)
            logprobs.extend(event.logprobs)
            if event.finish_reason is not None:
                break
            event = await anext(stream)
    finally:
        await stream.aclose()
    if event.finish_reason == "error":
        raise ApiError(f"Generation failed: {event.error}")
    return Generated("".join(text), logprobs, event)


async def until_disconnect(work: Awaitable[T]) -> T:
    """Await ``work`` unless the client disconnects first; then cancel it (which closes the
    engine stream and frees its slot) and re-raise CancelledError."""
    from connexion import request

    task = asyncio.ensure_future(work)
    starlette_request = request._starlette_request  # noqa: SLF001 - no public accessor

    async def watch() -> None:
        while not task.done():
            if await starlette_request.is_disconnected():
                task.cancel()
                return
            await asyncio.sleep(0.05)

    watcher = asyncio.ensure_future(watch())
    try:
        return await task
    finally:
        watcher.cancel()


def sse(data: dict[str, Any] | str) -> bytes:
    payload = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
    return f"data: {payload}\n\n".encode()


def error_payload(message: str, type: str = "internal_error") -> dict[str, Any]:
    return {"message": message, "type": type, "code": None, "request_id": current_request_id()}


def api_error_from(exc: Exception) -> ApiError:
    if isinstance(exc, ApiError):
        return exc
    if isinstance(exc, ValueError):
        return InvalidRequest(str(exc))
    return ApiError("Internal server error")


def now() -> int:
    return int(time.time())
