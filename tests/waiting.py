"""Waiting in tests: poll a condition until it holds, or fail naming what was awaited.

Tests wait for what they need (a status, a gauge, a log line), never for a fixed time:
:func:`eventually` in plain tests, :func:`eventually_async` inside an event loop. The timeout is
a bound for a busy machine, not a speed claim: a condition that holds returns at once.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

T = TypeVar("T")


def _failure(timeout: float, what: str, value: object,
             detail: Callable[[], object] | None) -> str:
    message = f"not within {timeout:g}s: {what} (last seen: {value!r:.500})"
    return message if detail is None else f"{message}\n{detail()}"


def eventually(condition: Callable[[], T], timeout: float, what: str, *,
               interval: float = 0.05, detail: Callable[[], object] | None = None) -> T:
    """Call ``condition`` every ``interval`` seconds until it returns something truthy, and
    return that. After ``timeout`` seconds the test fails with ``what`` (what was awaited), the
    last value seen and ``detail()`` (say a server's log tail). Exceptions propagate."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(_failure(timeout, what, value, detail))
        time.sleep(interval)


async def eventually_async(condition: Callable[[], T | Awaitable[T]], timeout: float,
                           what: str, *, interval: float = 0.01,
                           detail: Callable[[], object] | None = None) -> T:
    """:func:`eventually` for a test running in an event loop: it sleeps with ``asyncio``, so
    the tasks it waits on keep running, and ``condition`` may be a coroutine function."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if asyncio.iscoroutine(value):
            value = await value
        if value:
            return value  # type: ignore[return-value]
        if time.monotonic() >= deadline:
            raise AssertionError(_failure(timeout, what, value, detail))
        await asyncio.sleep(interval)
