"""Chat operations: createChatCompletion (JSON or SSE) and cancelChatCompletion.

createChatCompletion -> handlers.chat_request.prepare_chat -> engine ChatEngine.generate.
"""

from __future__ import annotations

import logging
import platform
from collections.abc import AsyncIterator
from typing import Any

from starlette.responses import Response, StreamingResponse

from afm.context import current_request_id, new_request_id
from afm.errors import NotFound
from afm.state import AppState, get_state
from engine.output import OutputProcessor
from engine.types import GenerationEvent, GenerationStats
from generated.models import ChatCompletion, ChatCompletionCancellation
from handlers import generation as gen
from handlers.chat_request import PreparedChat, logprob_json, prepare_chat, tool_call_json
from handlers.responses import json_response

log = logging.getLogger("afm.chat")


async def create_chat_completion(body: dict[str, Any]) -> Response:
    from connexion import request

    state = get_state()
    request_id = current_request_id() or new_request_id()
    prepared = await prepare_chat(state, body, request_id)
    profile = request.headers.get("x-afm-profile", "").lower()
    if prepared.stream:
        return await stream_chat(state, prepared, profile)
    result = await gen.until_disconnect(complete_chat(state, prepared, profile))
    return json_response(ChatCompletion.model_validate(result), headers=prepared.headers)


async def cancel_chat_completion(request_id: str) -> Response:
    engine = get_state().require_engine()
    if not engine.cancel(request_id):
        raise NotFound(f"No in-flight request with id '{request_id}' (it may already be "
                       "complete)", param="request_id")
    return json_response(ChatCompletionCancellation(
        id=request_id, object="chat.completion.cancellation", cancelled=True))


def _processor(p: PreparedChat) -> OutputProcessor:
    return OutputProcessor(p.tool_format, p.tools, p.reasoning_started, p.parse_tools,
                           parallel_tool_calls=p.parallel_tool_calls,
                           parse_reasoning=p.parse_reasoning)


def _finish_reason(reason: str, has_calls: bool) -> str:
    return "tool_calls" if has_calls and reason == "stop" else reason


def afm_profile(state: AppState, stats: GenerationStats, mode: str) -> dict[str, Any]:
    """The X-AFM-Profile payload; Apple-only measurements are null on this host."""
    import os

    engine_stats = state.engine.stats() if state.engine else {}
    gib = float(2**30)
    blas = None
    try:
        from engine.blas import preload_fast_blas

        blas = preload_fast_blas().name
    except Exception:  # noqa: BLE001 - informational only
        blas = None
    profile: dict[str, Any] = {
        "object": "afm_profile",
        "weights_memory_gib": round(engine_stats.get("weights_bytes", 0) / gib, 6),
        "kv_cache_memory_gib": round(engine_stats.get("kv_bytes", 0) / gib, 6),
        "peak_memory_gib": round(stats.peak_memory_gib, 6),
        "prefill_tokens_per_second": gen.usage(stats)["prompt_tokens_per_second"],
        "decode_tokens_per_second": gen.usage(stats)["completion_tokens_per_second"],
        "gpu_utilization": None,
        "memory_bandwidth_gbps": None,
        "host": {"platform": platform.system(), "machine": platform.machine(),
                 "processor": platform.processor() or None, "cpu_count": os.cpu_count(),
                 "memory_gib": None, "mlx_device": "cpu" if platform.system() != "Darwin"
                 else "gpu", "blas": blas},
    }
    if mode == "extended":
        profile["samples"] = engine_stats.get("samples") or []
    return profile


async def complete_chat(state: AppState, p: PreparedChat, profile: str = "") -> dict[str, Any]:
    """Run a chat request to the end and shape the chat.completion object."""
    engine = state.require_engine()
    done = await gen.generate_all(engine, p.request, state.settings.queue_timeout)
    processor = _processor(p)
    processor.feed(done.text)
    final = processor.finish()
    stats = done.stats
    message: dict[str, Any] = {"role": "assistant", "content": final.content}
    if final.reasoning_content is not None:
        message["reasoning_content"] = final.reasoning_content
    if final.tool_calls:
        message["tool_calls"] = [tool_call_json(c) for c in final.tool_calls]
    result: dict[str, Any] = {
        "id": gen.new_id("chatcmpl-"),
        "object": "chat.completion",
        "created": gen.now(),
        "model": state.model_id,
        "system_fingerprint": gen.fingerprint(state.model_id),
        "choices": [{
            "index": 0,
            "message": message,
            "logprobs": ({"content": [logprob_json(lp) for lp in done.logprobs]}
                         if p.logprobs else None),
            "finish_reason": _finish_reason(done.final.finish_reason or "stop",
                                            bool(final.tool_calls)),
        }],
        "usage": gen.usage(stats),
        "timings": gen.timings(stats),
    }
    if profile in ("true", "1", "extended"):
        result["afm_profile"] = afm_profile(state, stats, profile)
    return result


def _delta_json(delta: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if delta.content is not None:
        out["content"] = delta.content
    if delta.reasoning_content is not None:
        out["reasoning_content"] = delta.reasoning_content
    if delta.tool_call is not None:
        tc = delta.tool_call
        call: dict[str, Any] = {"index": tc.index}
        if tc.id is not None:
            call["id"] = tc.id
            call["type"] = "function"
            call["function"] = {"name": tc.name, "arguments": tc.arguments}
        else:
            call["function"] = {"arguments": tc.arguments}
        out["tool_calls"] = [call]
    return out


async def stream_chat(state: AppState, p: PreparedChat, profile: str = "") -> Response:
    """Start an SSE stream; capacity errors (503) surface before the response starts."""
    engine = state.require_engine()
    stream = engine.generate(p.request)
    first = await gen.first_event(stream, state.settings.queue_timeout)
    chunk_id = gen.new_id("chatcmpl-")
    created = gen.now()
    base = {"id": chunk_id, "object": "chat.completion.chunk", "created": created,
            "model": state.model_id, "system_fingerprint": gen.fingerprint(state.model_id)}

    def chunk(delta: dict[str, Any], finish: str | None = None,
              logprobs: list[dict[str, Any]] | None = None) -> bytes:
        choice: dict[str, Any] = {"index": 0, "delta": delta, "finish_reason": finish}
        if p.logprobs:
            choice["logprobs"] = {"content": logprobs or []}
        else:
            choice["logprobs"] = None
        return gen.sse({**base, "choices": [choice]})

    async def events() -> AsyncIterator[bytes]:
        processor = _processor(p)
        event: GenerationEvent | None = first
        has_calls = has_content = False
        try:
            # content null until text comes: a calls-only turn accumulates to content null, as
            # the JSON reply has it
            yield chunk({"role": "assistant", "content": None})
            while event is not None:
                deltas = processor.feed(event.text) if event.text else []
                if event.finish_reason is not None:
                    deltas += processor.flush()
                lps = [logprob_json(lp) for lp in event.logprobs]
                for i, delta in enumerate(deltas):
                    has_calls = has_calls or delta.tool_call is not None
                    has_content = has_content or delta.content is not None
                    yield chunk(_delta_json(delta), logprobs=lps if i == 0 else None)
                if lps and not deltas:
                    yield chunk({}, logprobs=lps)
                if event.finish_reason is not None:
                    break
                event = await anext(stream)
            assert event is not None
            stats = event.stats or GenerationStats()
            if event.finish_reason == "error":
                log.error("request %s failed mid-stream: %s", p.request.request_id, event.error)
                yield gen.sse({**base, "choices": [{
                    "index": 0, "delta": {"content": f"[error] {event.error}"},
                    "logprobs": None, "finish_reason": "error"}],
                    "error": gen.error_payload(f"Generation failed: {event.error}")})
            else:
                # an empty answer without calls: content "", as in the JSON reply
                yield chunk({} if has_calls or has_content else {"content": ""},
                            _finish_reason(event.finish_reason or "stop", has_calls))
            if p.include_usage:
                yield gen.sse({**base, "choices": [], "usage": gen.usage(stats),
                               "timings": gen.timings(stats)})
            if profile in ("true", "1", "extended"):
                yield gen.sse({**base, "choices": [],
                               "afm_profile": afm_profile(state, stats, profile)})
            yield gen.sse("[DONE]")
        except Exception as exc:  # noqa: BLE001 - an error after 200 becomes an error chunk
            log.exception("request %s: stream failed", p.request.request_id)
            yield gen.sse({**base, "choices": [{
                "index": 0, "delta": {"content": "[error] internal error"}, "logprobs": None,
                "finish_reason": "error"}], "error": gen.error_payload(str(exc))})
            yield gen.sse("[DONE]")
        finally:
            await stream.aclose()

    return StreamingResponse(events(), media_type="text/event-stream",
                             headers={**gen.SSE_HEADERS, **p.headers})
