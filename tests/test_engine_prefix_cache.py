"""Prefix cache: reuse reporting, speed-up, correctness of reused KV, LRU eviction."""

from __future__ import annotations

import asyncio

import mlx.core as mx
import pytest
from mlx_lm.models.cache import KVCache

from engine.blas import preload_fast_blas

preload_fast_blas()

from engine.chat_engine import ChatEngine  # noqa: E402
from engine.config import EngineConfig  # noqa: E402
from engine.prefix_cache import PrefixCache  # noqa: E402
from engine.types import GenerationEvent, GenerationRequest, SamplingParams  # noqa: E402
from modelbuilder import ensure_model  # noqa: E402

GREEDY = SamplingParams(temperature=0, max_tokens=8, ignore_eos=True, presence_penalty=1.5)


@pytest.fixture(scope="module")
def engine():
    eng = ChatEngine(EngineConfig(model=str(ensure_model("tiny"))))
    yield eng
    eng.shutdown()


def chat(engine: ChatEngine, system: str, user: str) -> list[int]:
    messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
    return engine.render_chat(messages, None, {})


def long_text(seed: int, words: int = 700) -> str:
    vocab = ["alpha", "beta", "gamma", "delta", "river", "stone", "cloud", "seven", "north"]
    return " ".join(
        vocab[(i * 7 + seed * 13 + i // 5) % len(vocab)] + str(i % 10) for i in range(words)
    )


async def run(engine: ChatEngine, prompt: list[int], params=GREEDY) -> list[GenerationEvent]:
    return [ev async for ev in engine.generate(GenerationRequest("p", prompt, params))]


def tokens(events: list[GenerationEvent]) -> list[int]:
    return [t for ev in events for t in ev.token_ids]


# ------------------------------------------------------------------ PrefixCache unit tests


def kv(n: int, fill: float = 1.0) -> list[KVCache]:
    c = KVCache()
    c.update_and_fetch(mx.full((1, 2, n, 4), fill), mx.full((1, 2, n, 4), fill))
    return [c]


def test_lookup_longest_common_prefix_and_limit() -> None:
    pc = PrefixCache(1 << 20)
    assert pc.insert(list(range(10)), kv(10))
    n, caches = pc.lookup([0, 1, 2, 3, 4, 99], limit=5)
    assert n == 5 and caches is not None and caches[0].offset == 5
    assert caches[0].keys.shape[2] == 5
    n, _ = pc.lookup(list(range(10)), limit=9)
    assert n == 9
    assert pc.lookup([7, 7], limit=1) == (0, None)
    assert pc.hit_tokens == 14 and pc.query_tokens == 18


def test_reused_cache_is_a_copy() -> None:
    pc = PrefixCache(1 << 20)
    pc.insert(list(range(8)), kv(8))
    _, caches = pc.lookup(list(range(8)) + [50], limit=8)
    assert caches is not None
    caches[0].update_and_fetch(mx.zeros((1, 2, 3, 4)), mx.zeros((1, 2, 3, 4)))
    _, again = pc.lookup(list(range(8)), limit=8)
    assert again is not None and again[0].offset == 8
    assert mx.all(again[0].keys == 1.0).item()


def test_longer_entry_supersedes_its_prefix() -> None:
    pc = PrefixCache(1 << 20)
    pc.insert([1, 2, 3], kv(3))
    pc.insert([1, 2, 3, 4, 5], kv(5))
    assert len(pc) == 1
    assert not pc.insert([1, 2], kv(2))  # covered by the longer entry
    assert len(pc) == 1


def test_lru_eviction_by_bytes() -> None:
    one = 2 * (2 * 10 * 4) * 4  # keys + values of a stored 10-token entry, float32
    pc = PrefixCache(2 * one + 1)
    pc.insert([1] * 10, kv(10))
    pc.insert([2] * 10, kv(10))
    pc.lookup([1] * 10, limit=9)  # touch entry 1: entry 2 becomes the oldest
    pc.insert([3] * 10, kv(10))
    assert len(pc) == 2 and pc.nbytes <= pc.max_bytes and pc.evictions == 1
    assert pc.lookup([2] * 10, limit=9)[0] == 0
    assert pc.lookup([1] * 10, limit=9)[0] == 9
    assert not PrefixCache(10).insert([1] * 10, kv(10))  # larger than the whole budget


# ------------------------------------------------------------------ through the engine


async def test_shared_prefix_hit(engine: ChatEngine) -> None:
    await run(engine, chat(engine, long_text(99), "warm up"))  # compile kernels for these shapes
    system = long_text(1)
    first = await run(engine, chat(engine, system, "First question?"))
    second_prompt = chat(engine, system, "Another one?")
    second = await run(engine, second_prompt)
    s1, s2 = first[-1].stats, second[-1].stats
    assert s1 is not None and s2 is not None
    assert s1.prompt_tokens >= 1000 and s1.cached_tokens < s1.prompt_tokens // 10
    first_prompt = chat(engine, system, "First question?")
    shared = next(i for i, (a, b) in enumerate(zip(first_prompt, second_prompt, strict=False))
                  if a != b)
    assert s2.cached_tokens == shared >= 0.9 * s2.prompt_tokens
    # an ordering fact, on any machine: the cached request prefilled fewer tokens (the time
    # it saves is measured by tools/bench.py's prefix-cache row)
    assert s2.prompt_tokens - s2.cached_tokens < s1.prompt_tokens - s1.cached_tokens


async def test_reused_kv_gives_same_output_as_uncached() -> None:
    model = str(ensure_model("tiny"))
    cold = ChatEngine(EngineConfig(model=model, prefix_cache=False))
    warm = ChatEngine(EngineConfig(model=model))
    try:
        system = long_text(2, 300)
        questions = ["Why?", "How so?", "And then what happened next?", "No"]
        expected = [tokens(await run(cold, chat(cold, system, q))) for q in questions]
        assert cold.stats()["prefix_cache_entries"] == 0
        await run(warm, chat(warm, system, "prime the cache"))
        got = await asyncio.gather(*(run(warm, chat(warm, system, q)) for q in questions))
        for events, exp in zip(got, expected, strict=True):
            assert events[-1].stats is not None and events[-1].stats.cached_tokens > 200
            assert tokens(events) == exp
        # A prompt that is entirely cached still re-runs its last token.
        full = chat(warm, system, "Why?")
        again = await run(warm, full)
        assert again[-1].stats.cached_tokens == len(full) - 1
        assert tokens(again) == expected[0]
    finally:
        cold.shutdown()
        warm.shutdown()


async def test_engine_evicts_least_recently_used() -> None:
    probe = ChatEngine(EngineConfig(model=str(ensure_model("tiny")), prefix_cache_bytes=1 << 30))
    try:
        a = chat(probe, long_text(3, 300), "q")
        await run(probe, a)
        per_entry = probe.stats()["prefix_cache_bytes"]
    finally:
        probe.shutdown()
    eng = ChatEngine(
        EngineConfig(model=str(ensure_model("tiny")), prefix_cache_bytes=int(per_entry * 1.5))
    )
    try:
        b = chat(eng, long_text(4, 300), "q")
        await run(eng, a)
        await run(eng, b)  # evicts a
        assert eng.stats()["prefix_cache_entries"] == 1
        assert eng.stats()["prefix_cache_bytes"] <= int(per_entry * 1.5)
        hit_a = (await run(eng, a))[-1].stats
        assert hit_a is not None and hit_a.cached_tokens < 50  # only the shared template head
        hit_a2 = (await run(eng, a))[-1].stats
        assert hit_a2 is not None and hit_a2.cached_tokens == len(a) - 1
    finally:
        eng.shutdown()
