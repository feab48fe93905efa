"""Anthropic Messages streams: engine output -> the named events (`message_start`, `ping`,
`content_block_start` / `_delta` / `_stop`, `message_delta`, `message_stop`, `error`)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from afm.context import current_request_id
from engine.output import Delta
from engine.types import GenerationStats
from serving import sealed
from serving.messages import message, stop_reason, tool_use_id, usage
from serving.prepare import Prepared
from serving.run import OpenedGeneration, Step
from serving.sealed import seal

if TYPE_CHECKING:
    from afm.state import AppState

log = logging.getLogger("afm.messages")

PING_SECONDS = 10.0
"""A `ping` event goes out whenever the stream has been quiet this long (and once at the start)."""


def error_event(text: str, type: str = "api_error") -> dict[str, Any]:
    """The stream's `error` event (Anthropic's envelope)."""
    return {"type": "error", "error": {"type": type, "message": text},
            "request_id": current_request_id()}


async def stream(state: AppState, p: Prepared, omit_thinking: bool = False
                 ) -> AsyncIterator[dict[str, Any]]:
    """Admit the request (529/503 surface here, before any output), then return the named
    stream events; a failure after that becomes an `error` event."""
    opened = await OpenedGeneration.open(state.require_engine(), p.request,
                                         state.settings.queue_timeout, p.output_parser())
    return _events(state, p, opened, _Blocks(sealed.key(state), omit_thinking))


async def with_pings(steps: AsyncIterator[Step], every: float) -> AsyncIterator[Step | None]:
    """The steps, with None whenever ``every`` seconds pass without one."""
    pending: asyncio.Future[Step] | None = None
    try:
        while True:
            if pending is None:
                pending = asyncio.ensure_future(anext(steps))
            done, _ = await asyncio.wait({pending}, timeout=every)
            if not done:
                yield None
                continue
            task, pending = pending, None
            try:
                step = task.result()
            except StopAsyncIteration:
                return
            yield step
    finally:
        if pending is not None:  # closed early: stop reading before the caller closes `steps`
            pending.cancel()
            await asyncio.wait({pending})


class _Blocks:
    """Turns output deltas into content_block_start / _delta / _stop events; a thinking block
    ends with a `signature_delta` sealing its text (its `thinking_delta`s are left out when
    thinking is omitted)."""

    def __init__(self, secret: bytes, omit_thinking: bool = False) -> None:
        self.index = -1
        self.kind: str | None = None
        self.has_calls = False
        self.secret = secret
        self.omit_thinking = omit_thinking
        self.thinking: list[str] = []

    def _open(self, block: dict[str, Any]) -> list[dict[str, Any]]:
        events = self.close()
        self.index += 1
        self.kind = block["type"]
        return [*events, {"type": "content_block_start", "index": self.index,
                          "content_block": block}]

    def _delta(self, delta: dict[str, Any]) -> dict[str, Any]:
        return {"type": "content_block_delta", "index": self.index, "delta": delta}

    def close(self) -> list[dict[str, Any]]:
        if self.kind is None:
            return []
        events = []
        if self.kind == "thinking":
            events.append(self._delta({"type": "signature_delta",
                                       "signature": seal(self.secret, "".join(self.thinking))}))
            self.thinking = []
        self.kind = None
        return [*events, {"type": "content_block_stop", "index": self.index}]

    def feed(self, delta: Delta) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        if delta.reasoning_content is not None:
            if self.kind != "thinking":
                out += self._open({"type": "thinking", "thinking": "", "signature": ""})
            self.thinking.append(delta.reasoning_content)
            if not self.omit_thinking:
                out.append(self._delta({"type": "thinking_delta",
                                        "thinking": delta.reasoning_content}))
        if delta.content is not None:
            if self.kind != "text":
                out += self._open({"type": "text", "text": ""})
            out.append(self._delta({"type": "text_delta", "text": delta.content}))
        call = delta.tool_call
        if call is not None:
            if call.id is not None:
                self.has_calls = True
                out += self._open({"type": "tool_use", "id": tool_use_id(call.id),
                                   "name": call.name, "input": {}})
            if call.arguments:
                out.append(self._delta({"type": "input_json_delta",
                                        "partial_json": call.arguments}))
        return out


async def _events(state: AppState, p: Prepared, opened: OpenedGeneration,
                  blocks: _Blocks) -> AsyncIterator[dict[str, Any]]:
    engine = state.require_engine()
    text: list[str] = []
    steps = with_pings(opened.steps(), PING_SECONDS)
    try:
        prompt = len(p.request.prompt_tokens)
        yield {"type": "message_start", "message": message(
            state, [], None, None, {"input_tokens": prompt, "output_tokens": 0,
                                    "cache_creation_input_tokens": 0,
                                    "cache_read_input_tokens": 0})}
        yield {"type": "ping"}
        final = None
        async for step in steps:
            if step is None:
                yield {"type": "ping"}
                continue
            text.append(step.text)
            for delta in step.deltas:
                for event in blocks.feed(delta):
                    yield event
            final = step.final
        assert final is not None
        if final.finish_reason == "error":
            log.error("request %s failed mid-stream: %s", p.request.request_id, final.error)
            yield error_event(f"Generation failed: {final.error}")
            return
        for event in blocks.close():
            yield event
        reason, stop = stop_reason(engine, p, "".join(text), final, blocks.has_calls)
        yield {"type": "message_delta", "delta": {"stop_reason": reason, "stop_sequence": stop},
               "usage": usage(final.stats or GenerationStats())}
        yield {"type": "message_stop"}
    except Exception:  # noqa: BLE001 - an error after 200 becomes an error event
        log.exception("request %s: stream failed", p.request.request_id)
        yield error_event("Internal server error")
    finally:
        await steps.aclose()
        await opened.aclose()
