"""Running a request on the engine: admission (capacity errors -> 503 before any output),
and collecting a whole generation for non-streamed replies."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from afm.context import note_usage
from afm.errors import ApiError, ShuttingDown, backend_unavailable, server_busy
from engine.output import Delta, OutputProcessor
from engine.types import (
    EngineDrainingError,
    EngineUnavailableError,
    GenerationEvent,
    GenerationRequest,
    GenerationStats,
    ServerBusyError,
    TokenLogprob,
)

if TYPE_CHECKING:
    from engine.chat_engine import ChatEngine


async def first_event(stream: AsyncIterator[GenerationEvent],
                      queue_timeout: float) -> GenerationEvent:
    """Wait for admission and the first event, mapping capacity failures, a server that drains
    to stop and a sharded group lost before any output to 503."""
    try:
        event = await anext(stream)
    except ServerBusyError as exc:
        raise server_busy(queue_timeout) from exc
    except EngineDrainingError as exc:
        raise ShuttingDown() from exc
    except EngineUnavailableError as exc:
        from engine.distributed import lost_reason

        raise backend_unavailable(str(exc), group_failed=lost_reason() is not None) from exc
    check_group_lost(event)
    return event


def check_group_lost(event: GenerationEvent) -> None:
    """A generation that ended in an error because its sharded group failed: 503
    ``backend_unavailable`` with Retry-After, as for the requests that come after it."""
    if event.finish_reason != "error":
        return
    from engine.distributed import lost_reason

    if lost_reason() is not None:
        raise backend_unavailable(f"Generation failed: {event.error}", group_failed=True)


def note_final(event: GenerationEvent) -> None:
    """Hand a finished generation's token counts to the access log (once per generation)."""
    if event.stats is not None:
        note_usage(tokens_in=event.stats.prompt_tokens, tokens_out=event.stats.completion_tokens)


@dataclass
class Generated:
    """A whole generation: its text, per-token logprobs, the final event and the token ids."""

    text: str
    logprobs: list[TokenLogprob]
    final: GenerationEvent
    token_ids: list[int] = field(default_factory=list)

    @property
    def stats(self) -> GenerationStats:
        return self.final.stats or GenerationStats()

    @property
    def finish_reason(self) -> str:
        return self.final.finish_reason or "stop"


async def generate_all(engine: ChatEngine, request: GenerationRequest,
                       queue_timeout: float) -> Generated:
    """Run a request to its end (503 on capacity or a lost group, 500 on an engine error)."""
    stream = engine.generate(request)
    try:
        event = await first_event(stream, queue_timeout)
        text: list[str] = []
        logprobs: list[TokenLogprob] = []
        token_ids: list[int] = []
        while True:
            text.append(event.text)
            logprobs.extend(event.logprobs)
            token_ids.extend(event.token_ids)
            if event.finish_reason is not None:
                break
            event = await anext(stream)
    finally:
        await stream.aclose()
    note_final(event)
    check_group_lost(event)
    if event.finish_reason == "error":
        raise ApiError(f"Generation failed: {event.error}")
    return Generated("".join(text), logprobs, event, token_ids)


@dataclass
class Step:
    """What one engine event adds to a streamed reply: its raw text, the parsed deltas (when a
    parser is given), token logprobs and, on the last step, the final event (finish reason,
    stats, error) and the step's token ids."""

    text: str
    deltas: list[Delta]
    logprobs: list[TokenLogprob]
    final: GenerationEvent | None = None
    token_ids: list[int] = field(default_factory=list)


class OpenedGeneration:
    """A generation admitted by the engine (its first event received), read step by step.

    Opening waits for admission, so capacity errors (503) surface before a stream's 200.
    """

    def __init__(self, stream: AsyncIterator[GenerationEvent], first: GenerationEvent,
                 parser: OutputProcessor | None) -> None:
        self._stream = stream
        self._first: GenerationEvent | None = first
        self._parser = parser

    @classmethod
    async def open(cls, engine: ChatEngine, request: GenerationRequest, queue_timeout: float,
                   parser: OutputProcessor | None = None) -> OpenedGeneration:
        stream = engine.generate(request)
        try:
            first = await first_event(stream, queue_timeout)
        except BaseException:
            await stream.aclose()
            raise
        return cls(stream, first, parser)

    async def steps(self) -> AsyncIterator[Step]:
        """Each event as a :class:`Step`; the last has ``final`` set."""
        event = self._first
        self._first = None
        while event is not None:
            text = event.text
            deltas = self._parser.feed(text) if self._parser and text else []
            if event.finish_reason is not None:
                if self._parser is not None:
                    deltas += self._parser.flush(truncated=event.finish_reason == "length")
                note_final(event)
                yield Step(text, deltas, event.logprobs, event, event.token_ids)
                return
            yield Step(text, deltas, event.logprobs, token_ids=event.token_ids)
            event = await anext(self._stream)

    async def aclose(self) -> None:
        """Close the engine stream (cancels the request if it is still running)."""
        await self._stream.aclose()


def finish_reason(reason: str | None, has_calls: bool) -> str:
    """The engine's reason, as `tool_calls` when a turn that stopped made calls."""
    reason = reason or "stop"
    return "tool_calls" if has_calls and reason == "stop" else reason
