"""A scripted engine for the fast tiers (tests/unit, tests/api), where the engine is not the
subject: it answers each request with events a test wrote down, and records what it got.

``script(*pieces, finish=..., stop_sequence=..., text_exact=...)`` builds the events of one
generation: one event per text piece (token ids counted from 1000), the last with the finish
reason and stats. ``ScriptedEngine`` serves them through the same calls serving makes on
:class:`engine.chat_engine.ChatEngine` (with a real tokenizer, so chat templates render)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any

from engine.types import (
    GenerationEvent,
    GenerationRequest,
    GenerationStats,
    ServerBusyError,
    TokenLogprob,
)


def script(*pieces: str, finish: str = "stop", stop_sequence: str | None = None,
           text_exact: bool = True, error: str | None = None, prompt_tokens: int = 7,
           cached_tokens: int = 0, logprobs: bool = False) -> list[GenerationEvent]:
    """The events of one generation: a piece of text per event, then the finish."""
    pieces = pieces or ("",)
    events = []
    for i, text in enumerate(pieces):
        lps = [TokenLogprob(text, -0.5 - i, list(text.encode()))] if logprobs and text else []
        events.append(GenerationEvent(text=text, token_ids=[1000 + i], logprobs=lps))
    last = events[-1]
    last.finish_reason = finish
    last.stop_sequence = stop_sequence
    last.text_exact = text_exact
    last.error = error
    last.stats = GenerationStats(prompt_tokens=prompt_tokens, cached_tokens=cached_tokens,
                                 completion_tokens=len(pieces), prompt_time=0.01,
                                 completion_time=0.02)
    return events


async def replay(events: list[GenerationEvent], delay: float = 0.0
                 ) -> AsyncIterator[GenerationEvent]:
    """The events as the engine's stream yields them."""
    for event in events:
        if delay:
            await asyncio.sleep(delay)
        yield event


class ScriptedEngine:
    """Answers each request with the next script (or ``reply(request)``); raises
    ServerBusyError when a script is the string "busy", runs until cancelled when it is
    "hang"."""

    def __init__(self, tokenizer: Any = None, *, max_context: int = 2048,
                 vocab_size: int = 50000) -> None:
        self.tokenizer = tokenizer
        self.max_context = max_context
        self.vocab_size = vocab_size
        self.eos_token_ids: set[int] = {2}
        self.think_markup = False
        self.model_type = "llama"
        self.scripts: list[list[GenerationEvent] | str] = []
        self.reply: Callable[[GenerationRequest], list[GenerationEvent]] | None = None
        self.requests: list[GenerationRequest] = []
        self.cancelled: list[str] = []

    def encode(self, text: str, add_special_tokens: bool = False) -> list[int]:
        if self.tokenizer is not None:
            return list(self.tokenizer.encode(text, add_special_tokens=add_special_tokens))
        return [ord(c) for c in text]

    def decode(self, ids: list[int]) -> str:
        return self.tokenizer.decode(ids) if self.tokenizer is not None else ""

    async def generate(self, request: GenerationRequest) -> AsyncIterator[GenerationEvent]:
        self.requests.append(request)
        planned = self.scripts.pop(0) if self.scripts else (
            self.reply(request) if self.reply else script("ok"))
        if planned == "busy":
            raise ServerBusyError()
        if planned == "hang":  # runs until cancelled
            await asyncio.Event().wait()
        assert not isinstance(planned, str)
        for event in planned:
            yield event

    def cancel(self, request_id: str) -> bool:
        self.cancelled.append(request_id)
        return False

    def active_request_ids(self) -> list[str]:
        return []

    def drain(self) -> None: ...

    def cancel_all(self) -> None: ...

    def shutdown(self) -> None: ...
