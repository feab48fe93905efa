"""The sharded step channel's watchdog rules (issue 35), on a channel that sends nothing.

A step may compute for the budget its op carries; a rank past it is stuck unless its step
threads still compute; a rank waiting in the channel waits what remains of the step's budget
plus the stall limit. The CPU-time probe counts the step thread (and native threads), not
other Python threads.
"""

from __future__ import annotations

import sys
import threading
import time
from typing import Any

import numpy as np
import pytest

from engine import distributed as d


class _Group:
    def rank(self) -> int:
        return 1

    def size(self) -> int:
        return 2


def _channel(op: int, tokens: int) -> d.StepChannel:
    channel = d.StepChannel(_Group())
    channel.op, channel.tokens = op, tokens
    channel.budget = d.step_budget(op, tokens)
    channel.started = 1000.0
    channel.waiting = None
    return channel


def test_budget_grows_with_the_work_of_the_op() -> None:
    prefill = d.step_budget(d.PREFILL_TOGETHER, 512)
    assert prefill == d.STALL_SECONDS + 512 * d.TOKEN_SECONDS
    assert d.step_budget(d.DECODE, 4) == d.STALL_SECONDS + 4 * d.DECODE_ROW_TOKENS * \
        d.TOKEN_SECONDS
    assert d.step_budget(d.NOP, 0) == d.STALL_SECONDS


def test_a_step_within_its_budget_is_in_time() -> None:
    channel = _channel(d.PREFILL_TOGETHER, 512)
    assert channel.overdue(channel.started + channel.budget - 1) is None


def test_a_step_past_its_budget_that_computes_nothing_is_lost() -> None:
    channel = _channel(d.PREFILL_TOGETHER, 512)
    reason = channel.overdue(channel.started + channel.budget + 1, progressing=False)
    assert reason is not None and "batched prefill step of 512 tokens" in reason


def test_a_step_past_its_budget_that_still_computes_goes_on_up_to_the_limit() -> None:
    channel = _channel(d.DECODE, 8)
    assert channel.overdue(channel.started + 3 * channel.budget, progressing=True) is None
    late = channel.started + d.PROGRESS_LIMIT * channel.budget + 1
    reason = channel.overdue(late, progressing=True)
    assert reason is not None and f"{d.PROGRESS_LIMIT} times" in reason


def test_a_waiting_rank_gives_the_step_its_budget_then_the_stall_limit() -> None:
    channel = _channel(d.PREFILL_CHUNK, 256)
    step_end = channel.started + channel.budget
    channel.waiting = channel.started + 1  # this rank finished early: the other may not have
    assert channel.overdue(step_end + d.STALL_SECONDS - 1) is None
    assert channel.overdue(step_end + d.STALL_SECONDS + 1) is not None
    channel.waiting = step_end + 100  # an idle wait, long after the step
    assert channel.overdue(channel.waiting + d.STALL_SECONDS - 1) is None
    reason = channel.overdue(channel.waiting + d.STALL_SECONDS + 1)
    assert reason is not None and "no op went through" in reason


@pytest.mark.skipif(sys.platform != "linux", reason="thread CPU times from /proc")
def test_cpu_probe_counts_the_step_thread_not_other_python_threads() -> None:
    channel = _channel(d.DECODE, 1)
    channel.thread = threading.get_native_id()
    stop = threading.Event()

    def spin() -> None:  # another Python thread (as the HTTP side): not step work
        while not stop.is_set():
            sum(range(10000))

    other = threading.Thread(target=spin)
    other.start()
    try:
        before = channel.busy_seconds()
        time.sleep(0.5)
        idle = channel.busy_seconds()
        assert before is not None and idle is not None
        assert idle - before < d.MIN_PROGRESS_SECONDS  # the spinning thread does not count
        a = np.random.default_rng(0).standard_normal((400, 400))
        tic = time.monotonic()
        x: Any = a
        while time.monotonic() - tic < 0.5:
            x = np.tanh(x @ a / 400)
        busy = channel.busy_seconds()
        assert busy is not None and busy - idle >= d.MIN_PROGRESS_SECONDS
    finally:
        stop.set()
        other.join()
