"""Admission queue: requests waiting for a decode slot, lowest ``priority`` value first."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

T = TypeVar("T")


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

    def next_deadline(self) -> float | None:
        return min((w.deadline for w in self._items), default=None)
