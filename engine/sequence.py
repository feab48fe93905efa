"""Per-request state that the engine thread keeps while a request waits, prefills and decodes."""

from __future__ import annotations

import asyncio
import itertools
import time
from dataclasses import dataclass, field
from typing import Any

from engine.detokenizer import IncrementalDetokenizer
from engine.sampling import RowState
from engine.stops import StopMatcher
from engine.types import GenerationEvent, GenerationRequest

_order = itertools.count()


class QueueTimeout:
    """Sentinel sent to the caller instead of events: no slot freed within the queue timeout."""


class Draining:
    """Sentinel sent to the caller instead of events: the engine drains for shutdown and
    refuses requests that were not admitted yet."""


@dataclass(eq=False)
class Sequence:
    """One request inside the engine. Only the engine thread mutates it after submission."""

    request: GenerationRequest
    loop: asyncio.AbstractEventLoop
    out: asyncio.Queue[Any]
    submitted: float = field(default_factory=time.perf_counter)
    order: int = field(default_factory=lambda: next(_order))
    admitted: float = 0.0
    first_token_at: float = 0.0
    last_token_at: float = 0.0
    prefill_pos: int = 0
    cached_tokens: int = 0
    cache: list[Any] | None = None  # per-layer batch-1 caches while prefilling
    solo_prefix: tuple[int, list[Any]] | None = None  # a short prefix hit, if prefilled alone
    row: RowState | None = None
    detok: IncrementalDetokenizer | None = None
    stops: StopMatcher | None = None
    generated: list[int] = field(default_factory=list)
    last_token: int = 0
    peak_memory: int = 0
    finished: bool = False
    error: str | None = None  # set when a per-row callback failed during a step
    pre_accepted: bool = False  # the last token already reached row state and grammar
    hidden_token: bool = False  # a token the detokenizer drops (not the ending EOS) was made
    spec_draft_tokens: int = 0  # drafted tokens verified (engine.speculative)
    spec_accepted_tokens: int = 0  # of which the target accepted

    @property
    def prompt(self) -> list[int]:
        return self.request.prompt_tokens

    @property
    def sort_key(self) -> tuple[int, int]:
        return (self.request.priority, self.order)

    def send(self, item: GenerationEvent | QueueTimeout) -> bool:
        """Hand ``item`` to the caller's event loop; False when that loop is gone."""
        try:
            self.loop.call_soon_threadsafe(self.out.put_nowait, item)
        except RuntimeError:
            return False
        return True
