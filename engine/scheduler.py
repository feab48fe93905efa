"""Scheduling policy: waiting, admission, queue expiry, prefill grouping and pipelining decisions.

Pure decisions over :class:`~engine.sequence.Sequence` state (no MLX): which waiting request is
admitted next and when (lowest ``priority`` first, at most ``concurrent`` running), which waiting
requests have outlived ``queue_timeout``, which prefilling prompts are prefilled together in one
batched forward, and whether the next decode step may be launched before the current one's tokens
become events. :class:`~engine.model_runner.ModelRunner` acts on these decisions.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from engine.sequence import Sequence

T = TypeVar("T")

PREFILL_BATCH_TOKENS = 2048  # padded tokens one grouped prefill may process


@dataclass(order=True)
class _Waiting(Generic[T]):
    priority: int
    order: int
    deadline: float = field(compare=False)
    item: T = field(compare=False)


class WaitQueue(Generic[T]):
    """Priority FIFO with deadlines. Small by nature (bounded by clients), so plain lists."""

    def __init__(self) -> None:
        self._items: list[_Waiting[T]] = []
        self._counter = itertools.count()

    def __len__(self) -> int:
        return len(self._items)

    def push(self, item: T, priority: int, deadline: float) -> None:
        self._items.append(_Waiting(priority, next(self._counter), deadline, item))

    def pop(self) -> T:
        """Remove and return the item with the lowest (priority, arrival)."""
        best = min(self._items)
        self._items.remove(best)
        return best.item

    def expire(self, now: float) -> list[T]:
        """Remove and return items whose deadline has passed."""
        gone = [w.item for w in self._items if w.deadline <= now]
        if gone:
            self._items = [w for w in self._items if w.deadline > now]
        return gone

    def remove(self, pred: Callable[[T], bool]) -> list[T]:
        """Remove and return the items matching ``pred``."""
        gone = [w.item for w in self._items if pred(w.item)]
        if gone:
            self._items = [w for w in self._items if not pred(w.item)]
        return gone

    def items(self) -> list[T]:
        return [w.item for w in self._items]


class Scheduler:
    """Requests waiting for a slot and requests admitted but still prefilling.

    The decoding requests belong to the model runner's decode batch; the scheduler is told their
    number where a decision depends on it.
    """

    def __init__(self, concurrent: int, queue_timeout: float, prefill_step_size: int) -> None:
        self.concurrent = concurrent
        self.queue_timeout = queue_timeout
        self.prefill_step_size = prefill_step_size
        self.waiting: WaitQueue[Sequence] = WaitQueue()
        self.prefilling: list[Sequence] = []  # admitted, in priority order

    def submit(self, seq: Sequence) -> None:
        """Queue a new request; it expires ``queue_timeout`` seconds after its submission."""
        self.waiting.push(seq, seq.request.priority, seq.submitted + self.queue_timeout)

    def expire(self, now: float) -> list[Sequence]:
        """Remove and return waiting requests that found no slot in time."""
        return self.waiting.expire(now)

    def running(self, decoding: int) -> int:
        return len(self.prefilling) + decoding

    def idle(self, decoding: int) -> bool:
        """Nothing to do until a message arrives."""
        return not (decoding or self.prefilling or len(self.waiting))

    def next_admission(self, decoding: int) -> Sequence | None:
        """Pop the next waiting request when a slot is free (fewer than ``concurrent`` run)."""
        if len(self.waiting) and self.running(decoding) < self.concurrent:
            return self.waiting.pop()
        return None

    def start_prefill(self, seq: Sequence) -> None:
        """An admitted, prepared request joins the prefill line (kept in priority order)."""
        self.prefilling.append(seq)
        self.prefilling.sort(key=lambda s: s.sort_key)

    def remove(self, pred: Callable[[Sequence], bool]) -> list[Sequence]:
        """Remove and return the waiting, then the prefilling requests matching ``pred``."""
        gone = self.waiting.remove(pred)
        hit = [s for s in self.prefilling if pred(s)]
        for seq in hit:
            self.prefilling.remove(seq)
        return gone + hit

    def discard(self, seqs: Iterable[Sequence]) -> None:
        """Drop these requests from the prefill line (where present)."""
        for seq in seqs:
            if seq in self.prefilling:
                self.prefilling.remove(seq)

    def prefill_group(self, batchable: bool) -> list[Sequence]:
        """Prompts to prefill together in one batched forward, or [] to prefill the next in line
        (``prefilling[0]``) one chunk at a time.

        A group is led by the next sequence in priority order and holds newcomers whose whole
        prompt fits one chunk and reuses no cache, up to :data:`PREFILL_BATCH_TOKENS` padded
        tokens. ``batchable`` is False for models whose caches cannot be left-padded together.
        """
        return prefill_group(self.prefilling, self.prefill_step_size, batchable)


def prefill_group(prefilling: list[Sequence], step: int, batchable: bool) -> list[Sequence]:
    """See :meth:`Scheduler.prefill_group`."""
    if not batchable:
        return []
    group: list[Sequence] = []
    longest = 0
    for seq in prefilling:
        fresh = seq.prefill_pos == 0 and len(seq.prompt) <= step
        if not fresh:
            if not group:
                return []  # the next in line needs chunked or cached prefill first
            continue
        longest = max(longest, len(seq.prompt))
        if longest * (len(group) + 1) > PREFILL_BATCH_TOKENS:
            break
        group.append(seq)
    return group


def ends_by_length(seq: Sequence, max_context: int) -> bool:
    """Whether the token the step in flight samples for ``seq`` is certainly its last: it
    reaches ``max_tokens`` or the context (``max_context``; 0: unbounded), where the emitter ends
    the request with finish_reason "length"."""
    made = len(seq.generated) + 1
    return made >= seq.request.params.max_tokens or (
        max_context > 0 and len(seq.prompt) + made >= max_context)


def can_pipeline(
    rows: list[Sequence], launched: list[Sequence], *, newcomers: bool, lazy: bool,
    max_context: int = 0,
) -> bool:
    """Whether step k+1 may be launched before step k's tokens become events.

    ``rows`` is the decode batch now, ``launched`` the rows step k was launched for. Needs the
    same rows as launched, none finished or failed, no newcomer (``newcomers``: a request is
    prefilling) waiting to join, and a row that step k does not end by length
    (:func:`ends_by_length`): a step launched for rows that all end at step k would be thrown
    away, and the engine would take the next request only after it. ``lazy`` (build k+1 from
    k's still-lazy tokens) also needs rows whose next sampling depends on nothing but the token
    itself (no grammar state, no penalty counts).
    """
    if newcomers or len(rows) != len(launched):
        return False
    if rows and all(ends_by_length(s, max_context) for s in rows):
        return False
    for seq, other in zip(rows, launched, strict=True):
        row = seq.row
        if seq is not other or seq.finished or seq.error is not None or row is None:
            return False
        if lazy and (seq.request.constraint is not None
                     or row.counts is not None or row.seen is not None):
            return False
    return True
