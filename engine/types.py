"""Plain data types shared by the engine and its callers.

Nothing here knows about HTTP. Handlers build a :class:`GenerationRequest`, hand it to
:meth:`engine.chat_engine.ChatEngine.generate`, and read :class:`GenerationEvent` objects back.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

import numpy as np


@dataclass(frozen=True)
class SamplingParams:
    """Per-request sampling and stopping controls (already merged with server defaults)."""

    temperature: float = 0.7
    top_p: float = 1.0
    top_k: int = 0  # 0 = off
    min_p: float = 0.0  # 0 = off
    repetition_penalty: float = 1.0  # 1 = off; llama.cpp/HF meaning, over prompt + output
    presence_penalty: float = 0.0  # OpenAI meaning, over generated tokens
    frequency_penalty: float = 0.0  # OpenAI meaning, over generated tokens
    seed: int | None = None
    max_tokens: int = 8192
    stop: tuple[str, ...] = ()
    ignore_eos: bool = False
    logprobs: bool = False
    top_logprobs: int = 0


class TokenConstraint(Protocol):
    """A per-request grammar constraint (see engine.grammar). The engine calls, per step:

    ``fill_bitmask(bitmask, row)`` before sampling: writes allowed tokens into ``bitmask[row]``
    (int32, shape [batch, ceil(vocab/32)], xgrammar layout) and returns True, or returns False when
    the step is unconstrained (e.g. still inside reasoning). Then ``accept(token_id)`` with the
    sampled token. ``is_finished()`` True means the grammar is complete: the request stops with
    finish_reason "stop".
    """

    def fill_bitmask(self, bitmask: np.ndarray, row: int) -> bool: ...

    def accept(self, token_id: int) -> None: ...

    def is_finished(self) -> bool: ...


@dataclass
class GenerationRequest:
    request_id: str
    prompt_tokens: list[int]
    params: SamplingParams
    constraint: TokenConstraint | None = None
    priority: int = 0  # 0 interactive; higher numbers wait behind lower (batch jobs use 10)


@dataclass
class TopLogprob:
    token: str
    logprob: float
    bytes: list[int]


@dataclass
class TokenLogprob:
    token: str
    logprob: float
    bytes: list[int]
    top_logprobs: list[TopLogprob] = field(default_factory=list)


@dataclass
class GenerationStats:
    prompt_tokens: int = 0
    cached_tokens: int = 0
    completion_tokens: int = 0
    queue_time: float = 0.0  # seconds waiting for a slot
    prompt_time: float = 0.0  # seconds of prefill
    completion_time: float = 0.0  # seconds from first to last token
    peak_memory_gib: float = 0.0
    spec_draft_tokens: int = 0  # speculative decoding: drafted tokens verified
    spec_accepted_tokens: int = 0  # of which the model accepted

    @property
    def total_time(self) -> float:
        return self.prompt_time + self.completion_time


@dataclass
class GenerationEvent:
    """A piece of output. ``text`` is safe to show: it never contains (part of) a stop sequence.

    The last event of a request has ``finish_reason`` set ("stop", "length", "cancelled" or
    "error") and ``stats`` filled; ``error`` holds a message when finish_reason is "error".
    It also says which stop string ended the generation (``stop_sequence``, None when none
    did) and whether the request's text is exactly what its token ids decode to, less an
    ending EOS (``text_exact``: False when a stop string cut it or a hidden token was dropped).
    """

    text: str = ""
    token_ids: list[int] = field(default_factory=list)
    logprobs: list[TokenLogprob] = field(default_factory=list)
    finish_reason: str | None = None
    stats: GenerationStats | None = None
    error: str | None = None
    stop_sequence: str | None = None
    text_exact: bool = True


class ServerBusyError(Exception):
    """No generation slot became free within the queue timeout."""


class EngineUnavailableError(Exception):
    """The backend cannot serve generation on this host."""


class EngineDrainingError(Exception):
    """The engine is draining for shutdown: it admits no new or queued requests."""
