"""The tests' one waiting helper (tests/waiting.py): returns the condition's first truthy value,
fails naming what was awaited, and lets the awaited work run."""

from __future__ import annotations

import asyncio
import itertools

import pytest

from tests.waiting import eventually, eventually_async


def test_returns_the_first_truthy_value() -> None:
    calls = itertools.count(1)
    assert eventually(lambda: [n] if (n := next(calls)) >= 3 else [], 5, "three calls",
                      interval=0) == [3]


def test_fails_naming_what_was_awaited_and_the_last_value() -> None:
    with pytest.raises(AssertionError) as caught:
        eventually(lambda: 0, 0.05, "the batch ends", interval=0.01, detail=lambda: "log tail")
    message = str(caught.value)
    assert "the batch ends" in message and "last seen: 0" in message
    assert message.endswith("\nlog tail")


def test_an_error_in_the_condition_propagates() -> None:
    with pytest.raises(KeyError):
        eventually(lambda: {}["missing"], 5, "a key")


async def test_async_waits_while_the_awaited_task_runs() -> None:
    done = asyncio.Event()
    asyncio.get_running_loop().call_later(0.02, done.set)
    assert await eventually_async(done.is_set, 5, "the event is set") is True


async def test_async_condition_may_be_a_coroutine() -> None:
    calls = itertools.count(1)

    async def third() -> int:
        return n if (n := next(calls)) == 3 else 0

    assert await eventually_async(third, 5, "the third call", interval=0) == 3
    with pytest.raises(AssertionError, match="not within 0.05s: never"):
        await eventually_async(lambda: False, 0.05, "never")
