"""Anthropic Messages streams: engine output -> the named events (`message_start`, `ping`,
`content_block_start` / `_delta` / `_stop`, `message_delta`, `message_stop`, `error`)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from serving import sealed
from serving.context import current_request_id
from serving.driver import Failed, Final, Generation, Start, Step, encode
from serving.messages import message, stop_reason, tool_use_id, usage
from serving.output_parser import Delta
from serving.prepare import Prepared
from serving.sealed import seal

if TYPE_CHECKING:
    from serving.model_context import ModelContext

PING_SECONDS = 10.0
"""A `ping` event goes out whenever the stream has been quiet this long (and once at the start)."""


def error_event(text: str, type: str = "api_error") -> dict[str, Any]:
    """The stream's `error` event (Anthropic's envelope)."""
    return {"type": "error", "error": {"type": type, "message": text},
            "request_id": current_request_id()}


async def stream(state: ModelContext, p: Prepared, omit_thinking: bool = False
                 ) -> AsyncIterator[dict[str, Any]]:
    """Admit the request (529/503 surface here, before any output), then return the named
    stream events; a failure after that becomes an `error` event."""
    generation = await Generation.open(state.require_engine(), p.request,
                                       state.settings.queue_timeout, p.output_parser())
    encoder = MessageEncoder(message(state, [], None, None, {}),
                             _Blocks(sealed.key(state), omit_thinking))
    return encode(generation, encoder, p.request.request_id, heartbeat=PING_SECONDS)


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


class MessageEncoder:
    """The driver's events as Messages stream events: `message_start` and a `ping`, the
    content blocks, `message_delta` (stop reason, usage) and `message_stop`; an `error` event
    when the engine failed; a `ping` whenever the stream was quiet."""

    def __init__(self, head: dict[str, Any], blocks: _Blocks) -> None:
        self.head = head
        self.blocks = blocks

    def start(self, event: Start) -> list[dict[str, Any]]:
        use = {"input_tokens": event.prompt_tokens, "output_tokens": 0,
               "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
        return [{"type": "message_start", "message": {**self.head, "usage": use}},
                {"type": "ping"}]

    def step(self, event: Step) -> list[dict[str, Any]]:
        return [out for delta in event.deltas for out in self.blocks.feed(delta)]

    async def final(self, event: Final) -> list[dict[str, Any]]:
        reason, stop = stop_reason(event, self.blocks.has_calls)
        return [*self.blocks.close(),
                {"type": "message_delta", "delta": {"stop_reason": reason,
                                                    "stop_sequence": stop},
                 "usage": usage(event.stats)},
                {"type": "message_stop"}]

    async def failed(self, event: Failed) -> list[dict[str, Any]]:
        return [error_event(f"Generation failed: {event.message}")]

    def crashed(self, exc: Exception) -> list[dict[str, Any]]:
        return [error_event("Internal server error")]

    def ping(self) -> list[dict[str, Any]]:
        return [{"type": "ping"}]
