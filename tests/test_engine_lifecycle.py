"""Request lifecycle: cancellation, capacity and queue timeout, priority, errors, metrics."""

from __future__ import annotations

import asyncio
import time

import pytest
from prometheus_client import generate_latest

from engine.blas import preload_fast_blas

preload_fast_blas()

from engine.chat_engine import ChatEngine  # noqa: E402
from engine.config import EngineConfig  # noqa: E402
from engine.metrics import REGISTRY  # noqa: E402
from engine.types import (  # noqa: E402
    GenerationEvent,
    GenerationRequest,
    SamplingParams,
    ServerBusyError,
)
from modelbuilder import ensure_model  # noqa: E402
from tests.waiting import eventually_async  # noqa: E402

LONG = SamplingParams(temperature=0, max_tokens=4000, ignore_eos=True)


@pytest.fixture(scope="module")
def engine():
    eng = ChatEngine(EngineConfig(model=str(ensure_model("tiny")), concurrent=4))
    yield eng
    eng.shutdown()


@pytest.fixture(scope="module")
def single():
    eng = ChatEngine(EngineConfig(model=str(ensure_model("tiny")), concurrent=1, queue_timeout=0.3))
    yield eng
    eng.shutdown()


def prompt_of(engine: ChatEngine, text: str = "hello") -> list[int]:
    return engine.render_chat([{"role": "user", "content": text}], None, {})


async def drain(engine: ChatEngine, req: GenerationRequest) -> list[GenerationEvent]:
    return [ev async for ev in engine.generate(req)]


async def wait_idle(engine: ChatEngine, timeout: float = 5.0) -> None:
    await eventually_async(lambda: not engine.active_request_ids()
                           and not engine.stats().get("running"), timeout,
                           "the engine is idle", detail=engine.stats)


async def test_cancel_by_id_mid_generation(engine: ChatEngine) -> None:
    agen = engine.generate(GenerationRequest("cancel-me", prompt_of(engine), LONG))
    seen = 0
    async for ev in agen:
        seen += 1
        if seen == 3:
            assert "cancel-me" in engine.active_request_ids()
            assert engine.cancel("cancel-me") is True
        if ev.finish_reason:
            break
    assert ev.finish_reason == "cancelled"
    # stopped long before max_tokens (4000); how many steps run before the cancel lands
    # depends on how far the consumer lags the (fast, tiny) model
    assert ev.stats is not None and ev.stats.completion_tokens < 400
    await wait_idle(engine)
    assert engine.cancel("cancel-me") is False


async def test_aclose_cancels_and_frees_the_slot(engine: ChatEngine) -> None:
    agen = engine.generate(GenerationRequest("closer", prompt_of(engine), LONG))
    for _ in range(3):
        await agen.__anext__()
    await agen.aclose()
    await wait_idle(engine)
    assert "closer" not in engine.active_request_ids()


async def test_task_cancellation_cancels_request(engine: ChatEngine) -> None:
    started = asyncio.Event()

    async def consume() -> None:
        async for _ in engine.generate(GenerationRequest("task", prompt_of(engine), LONG)):
            started.set()

    task = asyncio.create_task(consume())
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await wait_idle(engine)


async def test_server_busy_after_queue_timeout(single: ChatEngine) -> None:
    running = single.generate(GenerationRequest("hog", prompt_of(single), LONG))
    await running.__anext__()
    t0 = time.monotonic()
    with pytest.raises(ServerBusyError):
        await drain(single, GenerationRequest("late", prompt_of(single), LONG))
    assert time.monotonic() - t0 >= 0.25  # waited out the queue timeout; no upper bound here
    assert single.stats()["running"] == 1
    await running.aclose()
    await wait_idle(single)
    events = await drain(
        single,
        GenerationRequest("after", prompt_of(single), SamplingParams(temperature=0, max_tokens=3)),
    )
    assert events[-1].finish_reason == "length"


async def test_queued_requests_admitted_by_priority(engine: ChatEngine) -> None:
    eng = ChatEngine(EngineConfig(model=str(ensure_model("tiny")), concurrent=1))
    try:
        short = SamplingParams(temperature=0, max_tokens=5, ignore_eos=True)
        order: list[str] = []

        async def one(rid: str, priority: int) -> None:
            events = await drain(eng, GenerationRequest(rid, prompt_of(eng), short, None, priority))
            assert events[-1].finish_reason == "length"
            order.append(rid)

        hog = eng.generate(GenerationRequest("hog", prompt_of(eng), LONG))
        await hog.__anext__()
        batch = asyncio.create_task(one("batch", 10))
        await eventually_async(lambda: eng.stats()["waiting"] >= 1, 30,
                               "the batch request waits")
        interactive = asyncio.create_task(one("interactive", 0))
        await eventually_async(lambda: eng.stats()["waiting"] >= 2, 30,
                               "both requests wait", interval=0.005)
        await hog.aclose()
        await asyncio.gather(batch, interactive)
        assert order == ["interactive", "batch"]
    finally:
        eng.shutdown()


async def test_bad_request_errors_alone(engine: ChatEngine) -> None:
    good = prompt_of(engine)
    bad = good + [engine.vocab_size + 7]
    ok_task = asyncio.create_task(
        drain(engine, GenerationRequest("ok", good, SamplingParams(temperature=0, max_tokens=20)))
    )
    events = await drain(engine, GenerationRequest("bad", bad, SamplingParams(max_tokens=5)))
    assert events[-1].finish_reason == "error" and "vocabulary" in (events[-1].error or "")
    assert (await ok_task)[-1].finish_reason == "length"
    empty = await drain(engine, GenerationRequest("empty", [], SamplingParams(max_tokens=5)))
    assert empty[-1].finish_reason == "error"
    again = await drain(engine, GenerationRequest("next", good, SamplingParams(max_tokens=3)))
    assert again[-1].finish_reason in ("length", "stop") and not again[-1].error


async def test_raising_constraint_fails_only_its_request(engine: ChatEngine) -> None:
    class Broken:
        def fill_bitmask(self, bitmask, row) -> bool:
            raise RuntimeError("grammar exploded")

        def accept(self, token_id: int) -> None: ...

        def is_finished(self) -> bool:
            return False

    p = SamplingParams(temperature=0, max_tokens=15, ignore_eos=True)
    healthy = asyncio.create_task(drain(engine, GenerationRequest("h", prompt_of(engine), p)))
    await asyncio.sleep(0.01)
    broken = await drain(engine, GenerationRequest("b", prompt_of(engine), p, Broken()))
    assert broken[-1].finish_reason == "error" and "grammar exploded" in broken[-1].error
    assert (await healthy)[-1].finish_reason == "length"


async def test_stats_and_metrics(engine: ChatEngine) -> None:
    events = await drain(
        engine,
        GenerationRequest("m", prompt_of(engine), SamplingParams(temperature=0, max_tokens=4)),
    )
    stats = events[-1].stats
    assert stats is not None
    assert stats.prompt_tokens == len(prompt_of(engine)) and stats.completion_tokens == 4
    assert stats.prompt_time > 0 and stats.completion_time > 0
    assert stats.queue_time <= stats.total_time and stats.completion_time <= stats.total_time
    assert stats.peak_memory_gib > 0
    snapshot = engine.stats()
    for key in (
        "running",
        "waiting",
        "weights_bytes",
        "kv_bytes",
        "peak_memory_bytes",
        "last_prefill_tokens_per_second",
        "last_decode_tokens_per_second",
    ):
        assert key in snapshot
    assert snapshot["weights_bytes"] > 0
    text = generate_latest(REGISTRY).decode()
    for family in (
        "afm:num_requests_running",
        "afm:num_requests_waiting",
        "afm:prompt_tokens_total",
        "afm:generation_tokens_total",
        "afm:prefix_cache_hits_total",
        "afm:prefix_cache_queries_total",
        'afm:request_success_total{finished_reason="length"}',
        "afm:e2e_request_latency_seconds_bucket",
        "afm:request_queue_time_seconds_count",
        "afm:request_prefill_time_seconds_count",
        "afm:request_decode_time_seconds_count",
        "afm:time_to_first_token_seconds_count",
        "afm:time_per_output_token_seconds_count",
    ):
        assert family in text, family


async def test_chunked_prefill_interleaves_with_decode() -> None:
    """A long newcomer prompt is prefilled in chunks between decode steps of running streams."""
    eng = ChatEngine(EngineConfig(model=str(ensure_model("tiny")), prefill_step_size=64))
    try:
        runner = eng.generate(GenerationRequest("runner", prompt_of(eng), LONG))
        await runner.__anext__()
        long_prompt = prompt_of(eng, " ".join(f"w{i}" for i in range(400)))
        chunks = -(-len(long_prompt) // 64)
        assert chunks >= 10
        newcomer = eng.generate(
            GenerationRequest("new", long_prompt, SamplingParams(temperature=0, max_tokens=2))
        )
        first = asyncio.create_task(newcomer.__anext__())
        during = 0
        while not first.done():
            await runner.__anext__()
            during += 1
        await first
        assert during >= chunks // 2, (during, chunks)
        await newcomer.aclose()
        await runner.aclose()
    finally:
        eng.shutdown()


async def test_prompt_longer_than_context_is_an_error(engine: ChatEngine) -> None:
    too_long = [5] * engine.max_context
    events = await drain(engine, GenerationRequest("huge", too_long, SamplingParams(max_tokens=2)))
    assert events[-1].finish_reason == "error" and "context" in (events[-1].error or "")


async def test_shutdown_cancels_running_and_refuses_new() -> None:
    from engine.types import EngineUnavailableError

    eng = ChatEngine(EngineConfig(model=str(ensure_model("tiny"))))
    agen = eng.generate(GenerationRequest("live", prompt_of(eng), LONG))
    await agen.__anext__()
    await asyncio.to_thread(eng.shutdown)
    last = [ev async for ev in agen][-1]
    assert last.finish_reason == "cancelled"
    with pytest.raises(EngineUnavailableError):
        await drain(eng, GenerationRequest("late", prompt_of(eng), LONG))


async def test_drain_refuses_queued_and_new_then_cancel_all_ends_the_running() -> None:
    from engine.types import EngineDrainingError

    eng = ChatEngine(EngineConfig(model=str(ensure_model("tiny")), concurrent=1))
    try:
        running = eng.generate(GenerationRequest("running", prompt_of(eng), LONG))
        await running.__anext__()
        queued = asyncio.ensure_future(drain(eng, GenerationRequest("queued", prompt_of(eng),
                                                                    LONG)))
        await eventually_async(lambda: eng.stats().get("waiting") == 1, 5,
                               "one request queued", detail=eng.stats)
        eng.drain()
        with pytest.raises(EngineDrainingError):
            await queued
        with pytest.raises(EngineDrainingError):
            await drain(eng, GenerationRequest("late", prompt_of(eng), LONG))
        assert eng.active_request_ids() == {"running"}
        more = [await running.__anext__() for _ in range(3)]  # the admitted one runs on
        assert all(ev.finish_reason is None for ev in more)
        eng.cancel_all()
        last = [ev async for ev in running][-1]
        assert last.finish_reason == "cancelled"
        await wait_idle(eng)
    finally:
        await asyncio.to_thread(eng.shutdown)
