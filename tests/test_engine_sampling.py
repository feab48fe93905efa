"""Sampling knobs of the chat engine, each with an observable effect on the tiny model."""

from __future__ import annotations

import math
from collections import Counter

import pytest

from engine.blas import preload_fast_blas

preload_fast_blas()

import mlx.core as mx  # noqa: E402
import numpy as np  # noqa: E402

from engine.chat_engine import ChatEngine  # noqa: E402
from engine.config import EngineConfig  # noqa: E402
from engine.sampling import RowState, sample  # noqa: E402
from engine.types import GenerationEvent, GenerationRequest, SamplingParams  # noqa: E402
from modelbuilder import ensure_model  # noqa: E402


@pytest.fixture(scope="module")
def engine():
    eng = ChatEngine(EngineConfig(model=str(ensure_model("tiny"))))
    yield eng
    eng.shutdown()


@pytest.fixture(scope="module")
def prompt(engine: ChatEngine) -> list[int]:
    return engine.render_chat([{"role": "user", "content": "Tell me a story."}], None, {})


async def run(
    engine: ChatEngine, prompt: list[int], rid: str = "r", **params
) -> tuple[list[int], list[GenerationEvent]]:
    params.setdefault("max_tokens", 24)
    params.setdefault("ignore_eos", True)
    events = [
        ev async for ev in engine.generate(GenerationRequest(rid, prompt, SamplingParams(**params)))
    ]
    assert events[-1].finish_reason is not None
    return [t for ev in events for t in ev.token_ids], events


async def test_greedy_is_deterministic(engine: ChatEngine, prompt: list[int]) -> None:
    a, events = await run(engine, prompt, temperature=0)
    b, _ = await run(engine, prompt, temperature=0)
    assert a == b and len(a) == 24
    assert events[-1].finish_reason == "length"


async def test_seed_reproducible_and_seeds_differ(engine: ChatEngine, prompt: list[int]) -> None:
    a, _ = await run(engine, prompt, temperature=1.0, seed=11)
    b, _ = await run(engine, prompt, temperature=1.0, seed=11)
    c, _ = await run(engine, prompt, temperature=1.0, seed=12)
    assert a == b
    assert a != c


async def test_unseeded_sampling_varies(engine: ChatEngine, prompt: list[int]) -> None:
    outs = {tuple((await run(engine, prompt, temperature=1.5, max_tokens=12))[0]) for _ in range(3)}
    assert len(outs) > 1


async def test_top_k_one_is_greedy(engine: ChatEngine, prompt: list[int]) -> None:
    greedy, _ = await run(engine, prompt, temperature=0)
    top1, _ = await run(engine, prompt, temperature=1.5, top_k=1, seed=3)
    assert top1 == greedy


async def test_top_p_and_min_p_restrict_support(engine: ChatEngine, prompt: list[int]) -> None:
    """At temperature 0.1 with top_p=0.5 / min_p=0.02, every drawn token lies inside the set
    allowed by the reported (pre-truncation) distribution; without truncation some fall outside.
    Steps where the top 20 do not reach the top-p mass cannot be judged and are skipped."""

    def allowed_top_p(tops, p):
        kept, mass = set(), 0.0
        for t in tops:
            if mass >= p:
                return kept
            kept.add(t.token)
            mass += math.exp(t.logprob)
        return kept if mass >= p else None

    def allowed_min_p(tops, p):
        best = tops[0].logprob
        return {t.token for t in tops if t.logprob >= best + math.log(p)}

    async def logprobs(**params):
        _, events = await run(engine, prompt, logprobs=True, top_logprobs=20, **params)
        return [x for ev in events for x in ev.logprobs]

    outside_p = outside_min_p = judged = 0
    for seed in range(3):
        for lp in await logprobs(temperature=0.1, seed=seed):
            kept = allowed_top_p(lp.top_logprobs, 0.5)
            if kept is not None:
                outside_p += lp.token not in kept
            outside_min_p += lp.token not in allowed_min_p(lp.top_logprobs, 0.02)
    assert outside_p > 0 and outside_min_p > 0, "untruncated draws should leave both sets"

    for seed in range(3):
        for lp in await logprobs(temperature=0.1, top_p=0.5, seed=seed):
            kept = allowed_top_p(lp.top_logprobs, 0.5)
            if kept is not None:
                judged += 1
                assert lp.token in kept
        for lp in await logprobs(temperature=0.1, min_p=0.02, seed=seed):
            assert lp.token in allowed_min_p(lp.top_logprobs, 0.02)
    assert judged > 10


async def test_frequency_penalty_reduces_repetition(engine: ChatEngine, prompt: list[int]) -> None:
    plain, _ = await run(engine, prompt, temperature=0, max_tokens=32)
    penalised, _ = await run(engine, prompt, temperature=0, max_tokens=32, frequency_penalty=2.0)
    assert max(Counter(penalised).values()) < max(Counter(plain).values())


async def test_presence_penalty_increases_distinct_tokens(
    engine: ChatEngine, prompt: list[int]
) -> None:
    plain, _ = await run(engine, prompt, temperature=0, max_tokens=32)
    penalised, _ = await run(engine, prompt, temperature=0, max_tokens=32, presence_penalty=2.0)
    assert len(set(penalised)) > len(set(plain))


async def test_repetition_penalty_covers_prompt_tokens(
    engine: ChatEngine, prompt: list[int]
) -> None:
    plain, _ = await run(engine, prompt, temperature=0, max_tokens=32)
    penalised, _ = await run(engine, prompt, temperature=0, max_tokens=32, repetition_penalty=1.5)
    assert len(set(penalised)) > len(set(plain))
    # A huge penalty makes every prompt token (and earlier output) lose to unseen tokens.
    huge, _ = await run(engine, prompt, temperature=0, max_tokens=8, repetition_penalty=1e6)
    assert not set(huge) & set(prompt)
    assert len(set(huge)) == len(huge)


async def test_grammar_mask_limits_tokens(engine: ChatEngine, prompt: list[int]) -> None:
    """A constraint's bitmask is applied after penalties; finishing the grammar stops."""

    class OnlyThree:
        allowed = (17, 18, 19)

        def __init__(self) -> None:
            self.accepted: list[int] = []

        def fill_bitmask(self, bitmask, row) -> bool:
            bitmask[row] = 0
            for t in self.allowed:
                bitmask[row, t // 32] |= 1 << (t % 32)
            return True

        def accept(self, token_id: int) -> None:
            self.accepted.append(token_id)

        def is_finished(self) -> bool:
            return len(self.accepted) >= 5

    c = OnlyThree()
    req = GenerationRequest(
        "g",
        prompt,
        SamplingParams(temperature=1.0, seed=1, max_tokens=50, frequency_penalty=-50.0),
        constraint=c,
    )
    events = [ev async for ev in engine.generate(req)]
    tokens = [t for ev in events for t in ev.token_ids]
    assert events[-1].finish_reason == "stop"
    assert len(tokens) == 5 and set(tokens) <= set(OnlyThree.allowed)
    assert c.accepted == tokens


# ------------------------------------------------------------------ sample() on synthetic logits


def draw(logits, n: int = 200, **params) -> list[int]:
    """Tokens drawn for ``n`` seeds from one row of logits."""
    params.setdefault("temperature", 1.0)
    rows = [RowState.create(SamplingParams(seed=s, **params), [], len(logits)) for s in range(n)]
    out = sample(mx.array(np.stack([logits] * n)), rows)
    return out.tokens.tolist()


def test_unit_top_k_top_p_min_p_supports() -> None:
    logits = np.linspace(5.0, 0.0, 1000).astype(np.float32)  # token 0 best, then decreasing
    probs = np.exp(logits - logits.max())
    probs /= probs.sum()
    assert set(draw(logits, top_k=3)) <= {0, 1, 2}
    nucleus = int(np.searchsorted(np.cumsum(probs), 0.5)) + 1
    got = draw(logits, top_p=0.5)
    assert max(got) < nucleus and max(got) > nucleus // 2
    floor = probs[0] * 0.2
    assert all(probs[t] >= floor for t in draw(logits, min_p=0.2))


def test_unit_wide_nucleus_falls_back_to_full_sort() -> None:
    """A flat distribution's top-p set is wider than the candidate window; still exact."""
    logits = np.zeros(4000, dtype=np.float32)
    logits[:2000] = 0.001  # the first 2000 tokens are (barely) better
    got = draw(logits, n=400, top_p=0.45)  # nucleus: ~1800 of the better half
    assert max(got) < 2000
    assert len(set(got)) > 300  # far more distinct tokens than the 256-token window


def test_unit_top_p_over_top_k_renormalised() -> None:
    logits = np.array([2.0, 1.9, 1.8, 0.0, 0.0] + [-5.0] * 95, dtype=np.float32)
    # top_k=2 renormalises to ~[0.525, 0.475]; top_p=0.5 then keeps token 0 only.
    assert set(draw(logits, top_k=2, top_p=0.5)) == {0}
    assert set(draw(logits, top_k=2)) == {0, 1}
