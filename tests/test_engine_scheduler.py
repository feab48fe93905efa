"""Scheduling policy on plain data: waiting order, admission, expiry, prefill grouping, pipelining.

No model: sequences are built from requests alone, and the decisions are checked directly.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from engine.sampling import RowState
from engine.scheduler import PREFILL_BATCH_TOKENS, Scheduler, WaitQueue, can_pipeline
from engine.sequence import Sequence
from engine.types import GenerationRequest, SamplingParams

VOCAB = 64


class _AlwaysAllowed:
    """A stand-in grammar constraint (its presence is all the policy looks at)."""

    def fill_bitmask(self, bitmask: object, row: int) -> bool:
        return False

    def accept(self, token_id: int) -> None:
        pass

    def is_finished(self) -> bool:
        return False


@pytest.fixture
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    lp = asyncio.new_event_loop()
    yield lp
    lp.close()


def make_seq(loop: asyncio.AbstractEventLoop, rid: str, prompt_len: int = 4, *,
             priority: int = 0, submitted: float | None = None, constrained: bool = False,
             **params: object) -> Sequence:
    req = GenerationRequest(rid, list(range(1, prompt_len + 1)), SamplingParams(**params),
                            constraint=_AlwaysAllowed() if constrained else None,
                            priority=priority)
    seq = Sequence(req, loop, asyncio.Queue())
    if submitted is not None:
        seq.submitted = submitted
    seq.row = RowState.create(req.params, req.prompt_tokens, VOCAB)
    return seq


def test_wait_queue_pops_lowest_priority_then_arrival() -> None:
    q: WaitQueue[str] = WaitQueue()
    for item, prio in [("batch-1", 10), ("chat-1", 0), ("batch-2", 10), ("chat-2", 0)]:
        q.push(item, prio, deadline=100.0)
    assert [q.pop() for _ in range(4)] == ["chat-1", "chat-2", "batch-1", "batch-2"]
    assert len(q) == 0


def test_wait_queue_expire_and_remove() -> None:
    q: WaitQueue[str] = WaitQueue()
    q.push("early", 0, deadline=1.0)
    q.push("late", 0, deadline=5.0)
    q.push("other", 0, deadline=5.0)
    assert q.expire(now=1.0) == ["early"]
    assert q.expire(now=2.0) == []
    assert q.remove(lambda s: s == "other") == ["other"]
    assert q.items() == ["late"]


def test_admission_stops_at_the_concurrency_limit(loop: asyncio.AbstractEventLoop) -> None:
    sched = Scheduler(concurrent=2, queue_timeout=30.0, prefill_step_size=512)
    seqs = [make_seq(loop, f"r{i}", priority=p) for i, p in enumerate([10, 0, 0])]
    for seq in seqs:
        sched.submit(seq)
    first = sched.next_admission(decoding=0)
    assert first is seqs[1]  # interactive before batch, then arrival order
    sched.start_prefill(first)
    # one prefilling + one decoding = the limit of two
    assert sched.next_admission(decoding=1) is None
    second = sched.next_admission(decoding=0)
    assert second is seqs[2]
    sched.start_prefill(second)
    assert sched.running(decoding=0) == 2
    assert sched.next_admission(decoding=0) is None
    assert len(sched.waiting) == 1 and not sched.idle(decoding=0)


def test_prefill_line_stays_in_priority_order(loop: asyncio.AbstractEventLoop) -> None:
    sched = Scheduler(concurrent=8, queue_timeout=30.0, prefill_step_size=512)
    batch, chat = make_seq(loop, "batch", priority=10), make_seq(loop, "chat", priority=0)
    sched.start_prefill(batch)
    sched.start_prefill(chat)
    assert sched.prefilling == [chat, batch]


def test_queue_expiry_uses_submission_time(loop: asyncio.AbstractEventLoop) -> None:
    sched = Scheduler(concurrent=1, queue_timeout=2.0, prefill_step_size=512)
    old, new = make_seq(loop, "old", submitted=10.0), make_seq(loop, "new", submitted=11.5)
    sched.submit(old)
    sched.submit(new)
    assert sched.expire(now=11.9) == []
    assert sched.expire(now=12.0) == [old]
    assert sched.waiting.items() == [new]


def test_remove_takes_waiting_and_prefilling(loop: asyncio.AbstractEventLoop) -> None:
    sched = Scheduler(concurrent=4, queue_timeout=30.0, prefill_step_size=512)
    waiting, running = make_seq(loop, "x"), make_seq(loop, "x")
    keep = make_seq(loop, "y")
    sched.submit(waiting)
    sched.start_prefill(running)
    sched.start_prefill(keep)
    assert sched.remove(lambda s: s.request.request_id == "x") == [waiting, running]
    assert sched.prefilling == [keep] and len(sched.waiting) == 0
    sched.discard([keep, running])
    assert sched.prefilling == [] and sched.idle(decoding=0)


def test_prefill_group_collects_fresh_short_prompts(loop: asyncio.AbstractEventLoop) -> None:
    sched = Scheduler(concurrent=8, queue_timeout=30.0, prefill_step_size=16)
    short = [make_seq(loop, f"s{i}", prompt_len=8) for i in range(3)]
    long = make_seq(loop, "long", prompt_len=40)  # needs chunks: stays out of the group
    for seq in [short[0], long, short[1], short[2]]:
        sched.start_prefill(seq)
    assert sched.prefill_group(batchable=True) == short
    assert sched.prefill_group(batchable=False) == []  # caches that cannot be left-padded


def test_prefill_group_waits_for_a_leader_that_needs_chunks(
    loop: asyncio.AbstractEventLoop,
) -> None:
    sched = Scheduler(concurrent=8, queue_timeout=30.0, prefill_step_size=16)
    cached = make_seq(loop, "cached", prompt_len=8)
    cached.prefill_pos = 4  # a prefix-cache hit: prefilled on its own cache
    sched.start_prefill(cached)
    sched.start_prefill(make_seq(loop, "fresh", prompt_len=8))
    assert sched.prefill_group(batchable=True) == []


def test_prefill_group_is_bounded_by_padded_tokens(loop: asyncio.AbstractEventLoop) -> None:
    step = 512
    sched = Scheduler(concurrent=64, queue_timeout=30.0, prefill_step_size=step)
    for i in range(12):
        sched.start_prefill(make_seq(loop, f"r{i}", prompt_len=step))
    group = sched.prefill_group(batchable=True)
    assert len(group) == PREFILL_BATCH_TOKENS // step
    assert group == sched.prefilling[: len(group)]


def test_pipelining_needs_the_same_stable_rows(loop: asyncio.AbstractEventLoop) -> None:
    a, b = make_seq(loop, "a"), make_seq(loop, "b")
    rows = [a, b]
    assert can_pipeline(rows, [a, b], newcomers=False, lazy=True)
    assert not can_pipeline(rows, [a, b], newcomers=True, lazy=False)  # a newcomer will join
    assert not can_pipeline(rows, [a], newcomers=False, lazy=False)
    assert not can_pipeline(rows, [b, a], newcomers=False, lazy=False)
    b.finished = True
    assert not can_pipeline(rows, [a, b], newcomers=False, lazy=False)
    b.finished, b.error = False, "grammar: failed"
    assert not can_pipeline(rows, [a, b], newcomers=False, lazy=False)


def test_no_step_is_launched_ahead_for_rows_that_all_end_now(
    loop: asyncio.AbstractEventLoop,
) -> None:
    """A step launched for rows that all reach their length limit at the step in flight would
    be computed and thrown away; one row going on is enough to launch it."""
    a, b = make_seq(loop, "a", max_tokens=3), make_seq(loop, "b", max_tokens=5)
    a.generated = b.generated = [7]
    assert can_pipeline([a, b], [a, b], newcomers=False, lazy=True)
    a.generated = b.generated = [7, 7]  # a's third token is in flight: it ends there, b goes on
    assert can_pipeline([a, b], [a, b], newcomers=False, lazy=True)
    assert not can_pipeline([a], [a], newcomers=False, lazy=True)
    b.generated = [7, 7, 7, 7]
    assert not can_pipeline([a, b], [a, b], newcomers=False, lazy=True)
    c = make_seq(loop, "c", prompt_len=6, max_tokens=100)  # the context ends it instead
    c.generated = [7, 7, 7]
    assert can_pipeline([c], [c], newcomers=False, lazy=True, max_context=12)
    assert not can_pipeline([c], [c], newcomers=False, lazy=True, max_context=10)


@pytest.mark.parametrize(
    ("constrained", "params"),
    [(True, {}), (False, {"presence_penalty": 1.0}), (False, {"repetition_penalty": 1.1})],
)
def test_rows_with_token_state_pipeline_only_after_accepting(
    loop: asyncio.AbstractEventLoop, constrained: bool, params: dict
) -> None:
    plain, stateful = make_seq(loop, "plain"), make_seq(loop, "s", constrained=constrained,
                                                         **params)
    rows = [plain, stateful]
    assert not can_pipeline(rows, list(rows), newcomers=False, lazy=True)
    assert can_pipeline(rows, list(rows), newcomers=False, lazy=False)
