"""Logprobs: normalisation, ordering, consistency with the chosen token and with the model."""

from __future__ import annotations

import math

import numpy as np
import pytest

from engine.blas import preload_fast_blas

preload_fast_blas()

from engine.chat_engine import ChatEngine  # noqa: E402
from engine.config import EngineConfig  # noqa: E402
from engine.types import GenerationRequest, SamplingParams, TokenLogprob  # noqa: E402
from modelbuilder import ensure_model  # noqa: E402


@pytest.fixture(scope="module")
def engine():
    eng = ChatEngine(EngineConfig(model=str(ensure_model("tiny"))))
    yield eng
    eng.shutdown()


@pytest.fixture(scope="module")
def prompt(engine: ChatEngine) -> list[int]:
    return engine.render_chat([{"role": "user", "content": "What is 2+2?"}], None, {})


async def logprobs_of(engine: ChatEngine, prompt: list[int], **params) -> list[TokenLogprob]:
    params.setdefault("max_tokens", 12)
    params.setdefault("ignore_eos", True)
    req = GenerationRequest("lp", prompt, SamplingParams(logprobs=True, **params))
    events = [ev async for ev in engine.generate(req)]
    tokens = [t for ev in events for t in ev.token_ids]
    lps = [lp for ev in events for lp in ev.logprobs]
    assert len(lps) == len(tokens)
    for token, lp in zip(tokens, lps, strict=True):
        assert bytes(lp.bytes) == engine.token_table.bytes_of(token)
    return lps


async def test_top_logprobs_sorted_normalised_and_consistent(
    engine: ChatEngine, prompt: list[int]
) -> None:
    for lp in await logprobs_of(engine, prompt, temperature=0.7, seed=4, top_logprobs=20):
        values = [t.logprob for t in lp.top_logprobs]
        assert len(values) == 20
        assert values == sorted(values, reverse=True)
        assert all(v <= 0 for v in values)
        assert sum(math.exp(v) for v in values) <= 1.0 + 1e-5
        assert lp.logprob <= values[0] + 1e-6
        same = [t for t in lp.top_logprobs if t.token == lp.token and t.bytes == lp.bytes]
        if same:
            assert same[0].logprob == pytest.approx(lp.logprob, abs=1e-5)
        else:
            assert lp.logprob <= values[-1] + 1e-6


async def test_greedy_token_is_top_choice(engine: ChatEngine, prompt: list[int]) -> None:
    for lp in await logprobs_of(engine, prompt, temperature=0, top_logprobs=3):
        assert lp.top_logprobs[0].logprob == pytest.approx(lp.logprob, abs=1e-6)
        assert lp.top_logprobs[0].bytes == lp.bytes


async def test_logprobs_without_top(engine: ChatEngine, prompt: list[int]) -> None:
    lps = await logprobs_of(engine, prompt, temperature=0, top_logprobs=0)
    assert lps and all(lp.top_logprobs == [] for lp in lps)


async def test_first_logprob_matches_model_log_softmax(
    engine: ChatEngine, prompt: list[int]
) -> None:
    """At temperature 1 the reported distribution is the model's own log-softmax."""
    from mlx_lm import load

    model, _ = load(str(ensure_model("tiny")))
    import mlx.core as mx

    logits = np.array(model(mx.array([prompt]))[0, -1].astype(mx.float32))
    ref = logits - np.log(np.exp(logits - logits.max()).sum()) - logits.max()
    lps = await logprobs_of(engine, prompt, temperature=1.0, seed=1, top_logprobs=5, max_tokens=1)
    order = np.argsort(-ref)[:5]
    got = [t.logprob for t in lps[0].top_logprobs]
    np.testing.assert_allclose(got, ref[order], atol=1e-4)


async def test_temperature_scales_reported_distribution(
    engine: ChatEngine, prompt: list[int]
) -> None:
    hot = await logprobs_of(engine, prompt, temperature=2.0, seed=1, top_logprobs=2, max_tokens=1)
    cold = await logprobs_of(engine, prompt, temperature=0.5, seed=1, top_logprobs=2, max_tokens=1)
    gap = lambda lp: lp.top_logprobs[0].logprob - lp.top_logprobs[1].logprob  # noqa: E731
    assert gap(cold[0]) == pytest.approx(4 * gap(hot[0]), rel=1e-3)
