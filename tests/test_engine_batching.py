"""Continuous batching: at temperature 0 a request's output is the same batched as alone.

Requests of different prompt lengths join the batch at different steps (chunked prefill one at a
time), so rows are left-padded by different amounts and the batch shape changes while they run.
If a batched and a solo run ever diverge, the diverging step must be a near-tie: the top-2
logprobs (= logits gap at temperature 0) were within float rounding of each other.
"""

from __future__ import annotations

import asyncio

import pytest

from engine.blas import preload_fast_blas

preload_fast_blas()

from engine.chat_engine import ChatEngine  # noqa: E402
from engine.config import EngineConfig  # noqa: E402
from engine.types import GenerationEvent, GenerationRequest, SamplingParams  # noqa: E402
from modelbuilder import ensure_model  # noqa: E402
from tests import batch_equality  # noqa: E402


@pytest.fixture(scope="module")
def engine():
    eng = ChatEngine(
        EngineConfig(model=str(ensure_model("tiny")), concurrent=8, prefill_step_size=16)
    )
    yield eng
    eng.shutdown()


def prompts(engine: ChatEngine) -> list[list[int]]:
    texts = [
        "Hi",
        "Tell me about the weather in a long and detailed way please",
        "2+2?",
        "Write a poem about the sea, the sky, the mountains and the rivers, in twelve lines",
        "ok",
        "Explain batching",
        "What is the capital of France and why is it famous for its food and art?",
        "Summarise: " + "lorem ipsum dolor sit amet " * 6,
    ]
    return [engine.render_chat([{"role": "user", "content": t}], None, {}) for t in texts]


async def run(engine: ChatEngine, rid: str, prompt: list[int], **extra) -> list[GenerationEvent]:
    extra.setdefault("max_tokens", 24)
    params = SamplingParams(
        temperature=0,
        ignore_eos=True,
        presence_penalty=1.5,  # keeps greedy random-weight output from collapsing to one token
        logprobs=True,
        top_logprobs=2,
        **extra,
    )
    return [ev async for ev in engine.generate(GenerationRequest(rid, prompt, params))]


def tokens_and_gaps(events: list[GenerationEvent]) -> tuple[list[int], list[float]]:
    tokens = [t for ev in events for t in ev.token_ids]
    gaps = [
        lp.top_logprobs[0].logprob - lp.top_logprobs[1].logprob
        for ev in events
        for lp in ev.logprobs
    ]
    return tokens, gaps


def same_or_near_tie(solo: list[GenerationEvent], batched: list[GenerationEvent]) -> bool:
    """The suite's batched-versus-solo rule (tests/batch_equality.py) on engine events."""
    a, gaps_a = tokens_and_gaps(solo)
    b, gaps_b = tokens_and_gaps(batched)
    return batch_equality.same_or_near_tie(a, gaps_a, b, gaps_b)


async def test_batched_equals_solo_greedy(engine: ChatEngine) -> None:
    ps = prompts(engine)
    solo = [await run(engine, f"solo{i}", p) for i, p in enumerate(ps)]
    batched = await asyncio.gather(*(run(engine, f"batch{i}", p) for i, p in enumerate(ps)))
    assert engine.stats()["max_decode_batch"] >= 6
    exact = [same_or_near_tie(s, b) for s, b in zip(solo, batched, strict=True)]
    assert sum(exact) >= 6
    distinct = {tuple(t for ev in s for t in ev.token_ids) for s in solo}
    assert len(distinct) > 1


async def test_staggered_joins_and_leaves(engine: ChatEngine) -> None:
    """Rows join mid-stream and leave at different lengths; outputs still match solo runs."""
    ps = prompts(engine)
    lengths = [5, 30, 12, 40, 3, 22, 17, 9]
    solo = [
        await run(engine, f"s{i}", p, max_tokens=n)
        for i, (p, n) in enumerate(zip(ps, lengths, strict=True))
    ]

    async def delayed(i: int) -> list[GenerationEvent]:
        await asyncio.sleep(0.003 * i)
        return await run(engine, f"d{i}", ps[i], max_tokens=lengths[i])

    batched = await asyncio.gather(*(delayed(i) for i in range(len(ps))))
    exact = [same_or_near_tie(s, b) for s, b in zip(solo, batched, strict=True)]
    assert sum(exact) >= 6


async def test_seeded_sampling_independent_of_batch(engine: ChatEngine) -> None:
    ps = prompts(engine)
    p = SamplingParams(temperature=0.8, seed=42, max_tokens=16, ignore_eos=True)
    alone = [ev async for ev in engine.generate(GenerationRequest("alone", ps[1], p))]

    async def noisy(i: int) -> None:
        q = SamplingParams(temperature=1.0, max_tokens=20, ignore_eos=True)
        async for _ in engine.generate(GenerationRequest(f"n{i}", ps[i], q)):
            pass

    others = [asyncio.create_task(noisy(i)) for i in (0, 2, 3, 5)]
    together = [ev async for ev in engine.generate(GenerationRequest("together", ps[1], p))]
    await asyncio.gather(*others)
    assert [t for ev in alone for t in ev.token_ids] == [t for ev in together for t in ev.token_ids]


async def test_a_burst_from_idle_is_prefilled_as_one_group(engine: ChatEngine,
                                                           monkeypatch) -> None:
    """Requests that land a moment apart on an idle engine prefill in one grouped forward:
    woken by the first, the loop takes in the rest while they keep coming
    (``engine_loop.SETTLE_SECONDS`` and ``BURST_GAP``, widened here so that a loaded CI
    machine's scheduling gaps, tens of ms, stay inside them), rather than prefilling the
    first alone and the others after it."""
    from engine import engine_loop

    monkeypatch.setattr(engine_loop, "SETTLE_SECONDS", 0.25)
    monkeypatch.setattr(engine_loop, "BURST_GAP", 0.25)
    monkeypatch.setattr(engine_loop, "SETTLE_LIMIT", 3.0)
    loop_ = engine._work
    # The burst must find the engine idle (blocked on its inbox), not still finishing the
    # previous test's rows: only an idle engine waits for the rest of a burst.
    for _ in range(200):
        if loop_.scheduler.idle(len(loop_.runner.decoding)):
            break
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.1)
    sizes: list[int] = []
    together, chunk = loop_._prefill_together, loop_._prefill_chunk

    def grouped(group):
        sizes.append(len(group))
        return together(group)

    def alone(seq):
        sizes.append(1)
        return chunk(seq)

    monkeypatch.setattr(loop_, "_prefill_together", grouped)
    monkeypatch.setattr(loop_, "_prefill_chunk", alone)
    tasks = []
    for i in range(6):
        prompt = [5 + i, 6, 7, 8, 9, 10, 11, 12]
        tasks.append(asyncio.create_task(run(engine, f"burst-{i}", prompt, max_tokens=2)))
        await asyncio.sleep(0.002)  # the event loop sleeps between arrivals: the engine wakes
    results = await asyncio.gather(*tasks)
    assert all(ev[-1].finish_reason == "length" for ev in results)
    assert sizes == [6]
