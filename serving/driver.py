"""The one generation driver under every surface.

:class:`Generation` turns the engine's events for one request into typed events: a
:class:`Start`, a :class:`Step` per piece of output (raw text, the output parser's deltas,
logprobs, token ids), then a :class:`Final` or, when the engine failed mid-generation, a
:class:`Failed`. Each surface is an :class:`Encoder` of those events: :func:`encode` runs a
stream through one (with the one catch-all for errors after the 200), :func:`collect` gathers a
whole generation for a JSON reply.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, TypeVar

from engine.types import GenerationEvent, GenerationRequest, GenerationStats, TokenLogprob
from serving.output_parser import Delta, OutputProcessor
from serving.run import first_event, generation_failed, note_final

if TYPE_CHECKING:
    from engine.chat_engine import ChatEngine

log = logging.getLogger("afm.serving")

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)


@dataclass(frozen=True)
class Start:
    """The request was admitted: the stream may begin."""

    prompt_tokens: int


@dataclass(frozen=True)
class Step:
    """What one engine event adds: its raw text, the parser's deltas (none without a parser),
    token logprobs and token ids."""

    text: str
    deltas: list[Delta]
    logprobs: list[TokenLogprob]
    token_ids: list[int]


@dataclass(frozen=True)
class Final:
    """The generation ended: "stop", "length" or "cancelled", the stop string that ended it
    (None when none did), and whether the text is exactly its tokens' decoding."""

    finish_reason: str
    stats: GenerationStats
    stop_sequence: str | None = None
    text_exact: bool = True


@dataclass(frozen=True)
class Failed:
    """The engine failed mid-generation (``message`` is its error)."""

    message: str
    stats: GenerationStats


Event = Start | Step | Final | Failed


def _final(event: GenerationEvent) -> Final | Failed:
    stats = event.stats or GenerationStats()
    if event.finish_reason == "error":
        return Failed(str(event.error), stats)
    return Final(event.finish_reason or "stop", stats, event.stop_sequence, event.text_exact)


class Generation:
    """A generation admitted by the engine (its first event received), read as typed events.

    Opening waits for admission, so capacity errors (503) surface before a stream's 200.
    """

    def __init__(self, stream: AsyncIterator[GenerationEvent], first: GenerationEvent,
                 prompt_tokens: int, parser: OutputProcessor | None) -> None:
        self._stream = stream
        self._first: GenerationEvent | None = first
        self._prompt_tokens = prompt_tokens
        self._parser = parser

    @classmethod
    async def open(cls, engine: ChatEngine, request: GenerationRequest, queue_timeout: float,
                   parser: OutputProcessor | None = None) -> Generation:
        stream = engine.generate(request)
        try:
            first = await first_event(stream, queue_timeout)
        except BaseException:
            await stream.aclose()
            raise
        return cls(stream, first, len(request.prompt_tokens), parser)

    async def events(self) -> AsyncIterator[Event]:
        """Start, the steps, then Final or Failed (a last step's output comes before it)."""
        yield Start(self._prompt_tokens)
        event, self._first = self._first, None
        parser = self._parser
        while event is not None:
            text = event.text
            deltas = parser.feed(text) if parser is not None and text else []
            last = event.finish_reason is not None
            if last and parser is not None:
                deltas += parser.flush(truncated=event.finish_reason == "length")
            if text or deltas or event.logprobs or event.token_ids:
                yield Step(text, deltas, event.logprobs, event.token_ids)
            if last:
                note_final(event)
                yield _final(event)
                return
            event = await anext(self._stream)

    async def aclose(self) -> None:
        """Close the engine stream (cancels the request if it is still running)."""
        await self._stream.aclose()


class Encoder(Protocol[T_co]):
    """A surface's shape of the driver's events. Each hook returns the wire events to send;
    ``final`` and ``failed`` may wait (e.g. to store the result before the terminal event)."""

    def start(self, event: Start) -> Iterable[T_co]: ...

    def step(self, event: Step) -> Iterable[T_co]: ...

    async def final(self, event: Final) -> Iterable[T_co]: ...

    async def failed(self, event: Failed) -> Iterable[T_co]: ...

    def crashed(self, exc: Exception) -> Iterable[T_co]:
        """The stream broke after the 200 (a bug): the surface's error event."""
        ...

    def ping(self) -> Iterable[T_co]:
        """The stream was quiet for the heartbeat interval."""
        ...


async def with_heartbeat(events: AsyncIterator[Event], every: float | None
                         ) -> AsyncIterator[Event | None]:
    """The events, with None whenever ``every`` seconds pass without one (never when None)."""
    if every is None:
        async for event in events:
            yield event
        return
    pending: asyncio.Future[Event] | None = None
    try:
        while True:
            if pending is None:
                pending = asyncio.ensure_future(anext(events))
            done, _ = await asyncio.wait({pending}, timeout=every)
            if not done:
                yield None
                continue
            task, pending = pending, None
            try:
                event = task.result()
            except StopAsyncIteration:
                return
            yield event
    finally:
        if pending is not None:  # closed early: stop reading before the caller closes `events`
            pending.cancel()
            await asyncio.wait({pending})


async def encode(generation: Generation, encoder: Encoder[T], request_id: str, *,
                 heartbeat: float | None = None) -> AsyncIterator[T]:
    """A surface's stream: the generation's events through ``encoder``. An engine failure is
    logged and encoded by ``failed``; any other error after the 200 by ``crashed``."""
    events = with_heartbeat(generation.events(), heartbeat)
    try:
        async for event in events:
            if event is None:
                out = encoder.ping()
            elif isinstance(event, Step):
                out = encoder.step(event)
            elif isinstance(event, Start):
                out = encoder.start(event)
            elif isinstance(event, Final):
                out = await encoder.final(event)
            else:
                log.error("request %s failed mid-stream: %s", request_id, event.message)
                out = await encoder.failed(event)
            for item in out:
                yield item
    except Exception as exc:  # noqa: BLE001 - the one catch-all after a stream's 200
        log.exception("request %s: stream failed", request_id)
        for item in encoder.crashed(exc):
            yield item
    finally:
        await events.aclose()
        await generation.aclose()


@dataclass
class Collected:
    """A whole generation: its text, per-token logprobs, token ids and how it ended."""

    text: str
    logprobs: list[TokenLogprob]
    final: Final
    token_ids: list[int] = field(default_factory=list)

    @property
    def stats(self) -> GenerationStats:
        return self.final.stats

    @property
    def finish_reason(self) -> str:
        return self.final.finish_reason


async def collect(engine: ChatEngine, request: GenerationRequest,
                  queue_timeout: float) -> Collected:
    """Run a request to its end (503 on capacity or a lost group, 500 on an engine error)."""
    generation = await Generation.open(engine, request, queue_timeout)
    text: list[str] = []
    logprobs: list[TokenLogprob] = []
    token_ids: list[int] = []
    try:
        async for event in generation.events():
            if isinstance(event, Step):
                text.append(event.text)
                logprobs.extend(event.logprobs)
                token_ids.extend(event.token_ids)
            elif isinstance(event, Final):
                return Collected("".join(text), logprobs, event, token_ids)
            elif isinstance(event, Failed):
                raise generation_failed(event.message)
    finally:
        await generation.aclose()
    raise AssertionError("a generation ends with Final or Failed")
