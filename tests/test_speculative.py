"""Speculative decoding (engine.speculative): prompt lookup and a draft model give the output
plain decoding gives (greedy, seeded, stop strings, json_schema, logprobs, three APIs), count
their drafts in metrics and the profile, keep the target distribution when sampling, and a
draft model of another tokenizer stops the server at start-up."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anthropic
import httpx
import numpy as np
import pytest

from tests.conftest import ROOT, LiveServer
from tests.real_weights import real_model

TEXT = ("def area(width, height):\n    return width * height\n\n"
        "def perimeter(width, height):\n    return 2 * (width + height)\n")
REPEAT = [{"role": "user", "content": f"Repeat exactly this code, nothing else:\n\n{TEXT}"}]
MAX = 32


@pytest.fixture(scope="module")
def plain(live_server: Callable[..., LiveServer]) -> LiveServer:
    return live_server("--concurrent", "1", model=real_model("smollm2"))


@pytest.fixture(scope="module")
def spec(live_server: Callable[..., LiveServer]) -> LiveServer:
    return live_server("--concurrent", "1", "--spec-ngram", model=real_model("smollm2"))


def chat(server: LiveServer, stream: bool = False, **kw: Any) -> tuple[str, Any]:
    kw.setdefault("messages", REPEAT)
    kw.setdefault("max_tokens", MAX)
    kw.setdefault("temperature", 0)
    client: Any = server.openai()
    if not stream:
        r = client.chat.completions.create(model="m", **kw)
        return r.choices[0].message.content, r
    parts = [c.choices[0].delta.content or "" for c in
             client.chat.completions.create(model="m", stream=True, **kw) if c.choices]
    return "".join(parts), None


def profile(server: LiveServer, **kw: Any) -> dict[str, Any]:
    body = {"model": "m", "messages": REPEAT, "max_tokens": MAX, "temperature": 0, **kw}
    r = httpx.post(server.url + "/v1/chat/completions", json=body,
                   headers={"X-AFM-Profile": "true"}, timeout=120)
    assert r.status_code == 200, r.text
    return r.json()


def metric(server: LiveServer, name: str) -> float:
    text = httpx.get(server.url + "/metrics", timeout=10).text
    found = re.search(rf"^{re.escape(name)} (\S+)$", text, re.M)
    assert found, f"{name} not exposed"
    return float(found.group(1))


# ------------------------------------------------------------------ unit level


def test_ngram_draft_follows_the_latest_earlier_match() -> None:
    from engine.speculative import ngram_draft

    tokens = [1, 2, 3, 9, 9, 1, 2, 3, 7, 8, 5, 1, 2, 3]
    assert ngram_draft(tokens, 3) == [7, 8, 5]  # the later of two matches of [1, 2, 3]
    assert ngram_draft(tokens, 1) == [7]
    assert ngram_draft([4, 5, 6, 4, 5], 4) == [6, 4, 5]
    assert ngram_draft([1, 2, 3, 4], 4) == []
    assert ngram_draft([1, 2, 1, 2], 0) == []


def test_verification_keeps_the_target_distribution() -> None:
    """Seeded draws over a 6-token vocabulary: the first emitted token follows p0 whatever the
    draft, and the second (after an accepted draft token) follows p1 with the frequency penalty
    counting the accepted token."""
    import mlx.core as mx

    from engine.sampling import RowState
    from engine.speculative import verify
    from engine.types import SamplingParams

    l0 = np.log(np.array([0.35, 0.25, 0.15, 0.1, 0.1, 0.05]))
    l1 = np.log(np.array([0.1, 0.2, 0.3, 0.25, 0.1, 0.05]))
    logits = mx.array(np.stack([l0, l1, l1]).astype(np.float32))
    draft = [1, 2]
    penalty = 0.7
    n = 3000
    first: Counter[int] = Counter()
    second: Counter[int] = Counter()
    for seed in range(n):
        params = SamplingParams(temperature=1.0, seed=seed, frequency_penalty=penalty)
        out, accepted = verify(logits, RowState.create(params, [0], 6), draft)
        tokens = out.tokens.tolist()
        first[tokens[0]] += 1
        if accepted >= 1:
            second[tokens[1]] += 1
    p0 = np.exp(l0) / np.exp(l0).sum()
    adj = l1.copy()
    adj[draft[0]] -= penalty  # position 1 sees draft[0] generated once
    p1 = np.exp(adj) / np.exp(adj).sum()
    got0 = np.array([first[i] for i in range(6)]) / n
    total1 = sum(second.values())
    got1 = np.array([second[i] for i in range(6)]) / total1
    assert total1 == first[draft[0]]  # accepted exactly when the target drew the draft token
    assert 0.5 * np.abs(got0 - p0).sum() < 0.03
    assert 0.5 * np.abs(got1 - p1).sum() < 0.06  # ~750 draws


# ------------------------------------------------------------------ live, prompt lookup


def test_greedy_chat_identical_and_counted(plain: LiveServer, spec: LiveServer) -> None:
    before = metric(spec, "afm:spec_accepted_tokens_total")
    want, r = chat(plain)
    got, r2 = chat(spec)
    assert got == want
    assert r2.usage.completion_tokens == r.usage.completion_tokens
    assert chat(spec, stream=True)[0] == want
    assert metric(spec, "afm:spec_accepted_tokens_total") > before
    assert metric(spec, "afm:spec_draft_tokens_total") >= metric(
        spec, "afm:spec_accepted_tokens_total")
    prof = profile(spec)["afm_profile"]["speculative"]
    assert prof["method"] == "ngram" and prof["accepted_tokens"] > 0
    assert prof["acceptance_rate"] == pytest.approx(
        prof["accepted_tokens"] / prof["draft_tokens"], abs=1e-4)
    assert profile(plain)["afm_profile"]["speculative"] is None


def test_greedy_responses_identical(plain: LiveServer, spec: LiveServer) -> None:
    kw = {"model": "m", "input": REPEAT[0]["content"], "max_output_tokens": MAX,
          "temperature": 0}
    want = plain.openai().responses.create(**kw).output_text  # type: ignore[attr-defined]
    assert spec.openai().responses.create(**kw).output_text == want  # type: ignore[attr-defined]
    events = spec.openai().responses.create(stream=True, **kw)  # type: ignore[attr-defined]
    assert "".join(e.delta for e in events if e.type == "response.output_text.delta") == want


def test_greedy_messages_identical(plain: LiveServer, spec: LiveServer) -> None:
    def text(server: LiveServer, stream: bool) -> str:
        client = anthropic.Anthropic(base_url=server.url, api_key="unused", max_retries=0)
        kw: dict[str, Any] = {"model": "m", "max_tokens": MAX, "messages": REPEAT,
                              "extra_body": {"temperature": 0}}
        if not stream:
            return "".join(b.text for b in client.messages.create(**kw).content
                           if b.type == "text")
        with client.messages.stream(**kw) as s:
            return "".join(s.text_stream)

    want = text(plain, False)
    assert text(spec, False) == want
    assert text(spec, True) == want


def test_stop_string_inside_a_drafted_run(plain: LiveServer, spec: LiveServer) -> None:
    """The stop string lies in text the model copies from the prompt, where drafts hit."""
    full = chat(plain)[0]
    assert "perimeter" in full, full  # the model does copy the code
    want, r = chat(plain, stop=["perimeter"])
    got, r2 = chat(spec, stop=["perimeter"])
    assert got == want and r2.choices[0].finish_reason == r.choices[0].finish_reason == "stop"
    assert chat(spec, stream=True, stop=["perimeter"])[0] == want
    prof = profile(spec, stop=["perimeter"])["afm_profile"]["speculative"]
    assert prof["accepted_tokens"] > 0


def test_json_schema_identical(plain: LiveServer, spec: LiveServer) -> None:
    schema = {"type": "object", "properties": {"code": {"type": "string"}},
              "required": ["code"], "additionalProperties": False}
    fmt = {"type": "json_schema", "json_schema": {"name": "c", "schema": schema, "strict": True}}
    want = chat(plain, response_format=fmt)[0]
    assert chat(spec, response_format=fmt)[0] == want
    assert chat(spec, stream=True, response_format=fmt)[0] == want


def test_logprobs_of_accepted_tokens(plain: LiveServer, spec: LiveServer) -> None:
    _, r = chat(plain, logprobs=True, top_logprobs=3)
    _, r2 = chat(spec, logprobs=True, top_logprobs=3)
    want, got = r.choices[0].logprobs.content, r2.choices[0].logprobs.content
    assert [t.token for t in got] == [t.token for t in want]
    assert len(got) == r2.usage.completion_tokens
    for a, b in zip(got, want, strict=True):
        assert a.logprob == pytest.approx(b.logprob, abs=2e-3)
        assert [t.token for t in a.top_logprobs][:1] == [t.token for t in b.top_logprobs][:1]


def test_seeded_sampling_and_penalties_identical(plain: LiveServer, spec: LiveServer) -> None:
    kw = {"temperature": 0.8, "seed": 11, "frequency_penalty": 0.3, "max_tokens": 24}
    assert chat(spec, **kw)[0] == chat(plain, **kw)[0]


# ------------------------------------------------------------------ draft model


def test_draft_model_greedy_identical(live_server: Callable[..., LiveServer],
                                      plain: LiveServer) -> None:
    """SmolLM2 drafting for itself: the same tokens, nearly every draft accepted."""
    model = real_model("smollm2")
    drafted = live_server("--concurrent", "1", "--draft-model", str(model),
                          "--num-draft-tokens", "3", model=model)
    assert chat(drafted, max_tokens=16)[0] == chat(plain, max_tokens=16)[0]
    prof = profile(drafted, max_tokens=16)["afm_profile"]["speculative"]
    assert prof["method"] == "draft_model" and prof["draft_tokens"] > 0
    assert prof["acceptance_rate"] > 0.8
    # sampled: q == p here, so min(1, p/q) keeps (nearly) every draft
    r = profile(drafted, max_tokens=16, temperature=0.9, seed=3, top_p=0.9)
    assert r["usage"]["completion_tokens"] == 16 or r["choices"][0]["finish_reason"] == "stop"
    assert r["afm_profile"]["speculative"]["acceptance_rate"] > 0.8


def test_draft_model_of_another_tokenizer_stops_start_up(tiny_model: Path,
                                                          tmp_path: Path) -> None:
    smol = real_model("smollm2")
    proc = subprocess.run(
        [sys.executable, "-m", "afm", "serve", "--model", str(tiny_model), "--draft-model",
         str(smol), "--port", "0", "--data-dir", str(tmp_path), "--no-webui"],
        cwd=ROOT, capture_output=True, text=True, timeout=180)
    assert proc.returncode == 7, proc.stderr[-2000:]
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith(f"afm: --draft-model {smol} cannot draft for model") and (
        "tokenizer differs" in last), last
    assert json.dumps(last).count("\\n") == 0


def test_draft_model_sampling_keeps_the_target_distribution() -> None:
    """Standard speculative sampling (min(1, p/q), residual norm(max(0, p - q))) with drafts
    drawn from a q unlike p: the first emitted token follows p0, the second (after a kept
    draft token) follows p1; top-k truncation of p is respected."""
    import mlx.core as mx

    from engine.sampling import RowState
    from engine.speculative import verify_sampled
    from engine.types import SamplingParams

    p0 = np.array([0.35, 0.25, 0.15, 0.1, 0.1, 0.05])
    p1 = np.array([0.1, 0.2, 0.3, 0.25, 0.1, 0.05])
    q0 = np.array([0.05, 0.5, 0.05, 0.2, 0.1, 0.1])
    q1 = np.array([0.3, 0.1, 0.1, 0.1, 0.2, 0.2])
    logits = mx.array(np.log(np.stack([p0, p1, p1])).astype(np.float32))
    q = mx.array(np.stack([q0, q1]).astype(np.float32))
    rng = np.random.default_rng(0)
    n = 3000
    first: Counter[int] = Counter()
    second: Counter[int] = Counter()
    for seed in range(n):
        draft = [int(rng.choice(6, p=q0)), int(rng.choice(6, p=q1))]
        params = SamplingParams(temperature=1.0, seed=seed, top_k=5)
        out, accepted = verify_sampled(logits, RowState.create(params, [0], 6), draft, q)
        tokens = out.tokens.tolist()
        assert len(tokens) == accepted + 1 and tokens[:accepted] == draft[:accepted]
        first[tokens[0]] += 1
        if accepted >= 1:
            second[tokens[1]] += 1
    want0 = np.append(p0[:5], 0) / p0[:5].sum()  # top_k=5 drops the least likely token
    want1 = np.append(p1[:5], 0) / p1[:5].sum()
    got0 = np.array([first[i] for i in range(6)]) / n
    got1 = np.array([second[i] for i in range(6)]) / sum(second.values())
    assert first[5] == 0 and second[5] == 0
    assert 0.5 * np.abs(got0 - want0).sum() < 0.03
    assert 0.5 * np.abs(got1 - want1).sum() < 0.06
