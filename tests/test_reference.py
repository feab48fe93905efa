"""Independent reference: greedy tokens from ChatEngine equal HF transformers' (PyTorch, fp32)
on the same safetensors, and the first-step distributions agree numerically."""

from __future__ import annotations

import math

import pytest

from engine.blas import preload_fast_blas

preload_fast_blas()

from engine.chat_engine import ChatEngine  # noqa: E402
from engine.config import EngineConfig  # noqa: E402
from engine.types import GenerationRequest, SamplingParams  # noqa: E402
from modelbuilder import ensure_model  # noqa: E402

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

N_TOKENS = 40


@pytest.fixture(scope="module")
def model_dir() -> str:
    return str(ensure_model("tiny"))


@pytest.fixture(scope="module")
def engine(model_dir: str):
    eng = ChatEngine(EngineConfig(model=model_dir))
    yield eng
    eng.shutdown()


@pytest.fixture(scope="module")
def hf_model(model_dir: str):
    torch.manual_seed(0)
    model = transformers.AutoModelForCausalLM.from_pretrained(model_dir, dtype=torch.float32)
    return model.eval()


def hf_greedy(
    model, prompt: list[int], n: int, presence: float = 0.0, repetition: float = 1.0
) -> tuple[list[int], list[float]]:
    """Greedy continuation and the top-1/top-2 logit gap at each step (no KV-cache shortcuts).

    ``repetition`` uses transformers' own RepetitionPenaltyLogitsProcessor (prompt + output);
    ``presence`` is OpenAI's presence penalty over generated tokens, written out here.
    """
    ids = torch.tensor([prompt])
    out, gaps = [], []
    rep = transformers.RepetitionPenaltyLogitsProcessor(repetition) if repetition != 1 else None
    with torch.no_grad():
        for _ in range(n):
            logits = model(ids).logits[:, -1]
            if rep is not None:
                logits = rep(ids, logits)
            logits = logits[0]
            if presence and out:
                logits[torch.tensor(sorted(set(out)))] -= presence
            top = torch.topk(logits, 2)
            gaps.append(float(top.values[0] - top.values[1]))
            token = int(top.indices[0])
            out.append(token)
            ids = torch.cat([ids, torch.tensor([[token]])], dim=1)
    return out, gaps


PROMPTS = [
    [{"role": "user", "content": "Hello! Who are you?"}],
    [
        {"role": "system", "content": "You are terse."},
        {"role": "user", "content": "List three colours, then explain each one in detail."},
    ],
]


PENALTIES = [
    {},
    {"presence": 1.5},  # walks far down the ranking: many distinct tokens to compare
    {"repetition": 3.0, "presence": 0.5},
]


@pytest.mark.parametrize("penalties", PENALTIES, ids=["plain", "presence", "repetition"])
@pytest.mark.parametrize("messages", PROMPTS, ids=["short", "long"])
async def test_greedy_tokens_match_transformers(engine, hf_model, messages, penalties) -> None:
    prompt = engine.render_chat(messages, None, {})
    params = SamplingParams(
        temperature=0,
        max_tokens=N_TOKENS,
        ignore_eos=True,
        presence_penalty=penalties.get("presence", 0.0),
        repetition_penalty=penalties.get("repetition", 1.0),
    )
    req = GenerationRequest("ref", prompt, params)
    ours = [t for ev in [e async for e in engine.generate(req)] for t in ev.token_ids]
    theirs, gaps = hf_greedy(hf_model, prompt, N_TOKENS, **penalties)
    assert len(ours) == N_TOKENS
    if penalties:
        assert len(set(theirs)) > N_TOKENS // 2
    for step, (a, b) in enumerate(zip(ours, theirs, strict=True)):
        if a != b:  # only a float-rounding near-tie may flip a greedy choice
            assert gaps[step] < 1e-4, f"step {step}: {a} != {b}, logit gap {gaps[step]}"
            break
    else:
        assert ours == theirs


async def test_first_step_logprobs_match_transformers(engine, hf_model) -> None:
    prompt = engine.render_chat(PROMPTS[0], None, {})
    req = GenerationRequest(
        "ref-lp",
        prompt,
        SamplingParams(temperature=1.0, seed=0, max_tokens=1, logprobs=True, top_logprobs=10),
    )
    events = [e async for e in engine.generate(req)]
    tops = events[-1].logprobs[0].top_logprobs
    with torch.no_grad():
        ref = torch.log_softmax(hf_model(torch.tensor([prompt])).logits[0, -1], dim=-1)
    values, _ = torch.topk(ref, 10)
    for ours, theirs in zip(tops, values.tolist(), strict=True):
        assert math.isclose(ours.logprob, theirs, abs_tol=1e-4)
