"""The CPU weight policy on bf16, 8-bit and 4-bit copies of the tiny model (made offline with
mlx-lm's own converter): conversion to float32, the native quantized kernel, same greedy
tokens, /health, the budget.

Dequantized weights are exactly the quantized model's effective weights, so a converted 8- or
4-bit model computes the same function; only the summation order of the matmuls differs (MLX's
quantized kernel vs. BLAS), so logits agree to ~1e-6 and greedy tokens are equal. A bf16 model
run natively computes in bf16 (activations rounded to 8 mantissa bits), the converted one in
float32 on the same bf16-valued weights: logits differ by ~1e-2, tokens still agree here.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

import httpx
import mlx.core as mx
import mlx.nn as nn
import mlx.nn.layers.distributed as dist
import numpy as np
import pytest
from mlx.utils import tree_flatten
from mlx_lm import load as mlx_load
from mlx_lm.models.cache import make_prompt_cache

from engine import cpu_weights, qkernels
from tests.conftest import LiveServer

COPIES = {"bf16": {"dtype": "bfloat16"},
          "8bit": {"quantize": True, "q_bits": 8},
          "4bit": {"quantize": True, "q_bits": 4, "q_group_size": 32}}
SOURCE = {"bf16": "bfloat16", "8bit": "8-bit", "4bit": "4-bit"}
LOGIT_TOL = {"bf16": 5e-2, "8bit": 1e-4, "4bit": 1e-4}
PROMPT = [5, 17, 300, 42, 1000, 7, 8, 9, 123, 2048, 77]


@pytest.fixture(scope="module")
def copies(tiny_model: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """bf16, 8-bit and 4-bit copies of the tiny model, converted by mlx-lm."""
    from mlx_lm.convert import convert

    base = tmp_path_factory.mktemp("cpu-weights")
    out = {}
    for name, kwargs in COPIES.items():
        convert(str(tiny_model), str(base / name), **kwargs)
        out[name] = base / name
    return out


def greedy(model: nn.Module, steps: int = 24,
           fed: list[int] | None = None) -> tuple[list[int], mx.array]:
    """Greedy tokens after PROMPT and the float32 logits of every step. With ``fed``, each step
    takes that list's token rather than its own pick (teacher forcing), so that logits from two
    paths compare step by step even where their argmax differs."""
    cache = make_prompt_cache(model)
    x, tokens, logits = mx.array([PROMPT]), [], []
    for step in range(steps):
        row = model(x, cache=cache)[0, -1].astype(mx.float32)
        tokens.append(int(mx.argmax(row).item()))
        logits.append(row)
        x = mx.array([[fed[step] if fed else tokens[-1]]])
    return tokens, mx.stack(logits)


@pytest.mark.parametrize("name", list(COPIES))
def test_converted_model_matches_native(copies: dict[str, Path], name: str) -> None:
    """Conversion to float32 (``auto`` converts bf16; quantized copies take ``float32``, since
    ``auto`` prefers the native quantized kernel for them when it is built)."""
    model = mlx_load(str(copies[name]))[0]
    native_tokens, native_logits = greedy(model)
    choice = cpu_weights.apply(model, "auto" if name == "bf16" else "float32")
    assert (choice.weights, choice.source, choice.converted) == ("float32", SOURCE[name], True)
    assert choice.float32_bytes > choice.native_bytes
    kinds = {type(m) for _, m in model.named_modules()}
    assert not kinds & {nn.QuantizedLinear, nn.QuantizedEmbedding}
    assert {v.dtype for _, v in tree_flatten(model.parameters())} == {mx.float32}
    assert sum(v.nbytes for _, v in tree_flatten(model.parameters())) == choice.float32_bytes
    tokens, logits = greedy(model)
    assert tokens == native_tokens
    assert float(mx.max(mx.abs(logits - native_logits)).item()) < LOGIT_TOL[name]


@pytest.fixture
def reset_kernel_paths():
    """The kernel's timed path choice is process-wide: back to untimed after the test."""
    yield
    for bits in (4, 8):
        qkernels._ext.set_auto_isa(bits, "auto")


@pytest.mark.parametrize("mode", ["auto", "float32"])
def test_tensor_parallel_slices(copies: dict[str, Path], mode: str,
                                reset_kernel_paths: None) -> None:
    """A sharded rank's layers (``model.shard(group)``: mlx's quantized all-to-sharded and
    sharded-to-all linears, here on a one-rank group) run on the native kernel (``auto``) or
    become the float32 layers of the same slices (``float32``); same greedy tokens."""
    if mode == "auto" and not qkernels.available():
        pytest.skip("native quantized kernel not built (tests/test_qkernels.py says why)")
    model = mlx_load(str(copies["4bit"]))[0]
    model.shard(mx.distributed.init())
    reference_tokens, reference_logits = greedy(model)
    choice = cpu_weights.apply(model, mode)
    kinds = {type(m) for _, m in model.named_modules()}
    assert not kinds & {dist.QuantizedAllToShardedLinear, dist.QuantizedShardedToAllLinear}
    if mode == "auto":
        assert choice.weights == "native" and "native quantized CPU kernel" in choice.reason
        assert qkernels.ShardedToAllQuantizedLinearCPU in kinds
    else:
        assert choice.weights == "float32" and "stay quantized" not in choice.reason
        assert {dist.AllToShardedLinear, dist.ShardedToAllLinear} <= kinds
    tokens, logits = greedy(model)
    assert tokens == reference_tokens
    assert float(mx.max(mx.abs(logits - reference_logits)).item()) < LOGIT_TOL["4bit"]


@pytest.mark.skipif(not qkernels.available(), reason="native quantized kernel not built "
                    "(tests/test_qkernels.py says why)")
@pytest.mark.parametrize("mode", ["auto", "native"])
@pytest.mark.parametrize("name", ["8bit", "4bit"])
@pytest.mark.parametrize("int8", ["0", "1"])
def test_quantized_weights_run_on_the_native_kernel(
    copies: dict[str, Path], mode: str, name: str, int8: str, reset_kernel_paths: None,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With the kernel built, quantized copies keep their weights and run on it. On the exact
    float paths (AFM_QMM_INT8=0): same greedy tokens as MLX's own quantized kernel, logits
    within float tolerance. Where the timed choice is a path rounding activations to int8, the
    logits move by under 5% of their RMS (tests/test_qkernels.py and BENCHMARKS.md state it)."""
    monkeypatch.delenv("AFM_QMM_ISA", raising=False)
    monkeypatch.setenv("AFM_QMM_INT8", int8)
    model = mlx_load(str(copies[name]))[0]
    reference_tokens, reference_logits = greedy(model)
    choice = cpu_weights.apply(model, mode)
    assert (choice.weights, choice.source, choice.converted) == ("native", SOURCE[name], False)
    assert "native quantized CPU kernel" in choice.reason
    bits = 8 if name == "8bit" else 4
    path = qkernels.auto_isa(bits)
    assert f"{path} at {bits} bits" in choice.reason
    kinds = {type(m) for _, m in model.named_modules()}
    assert qkernels.QuantizedLinearCPU in kinds and nn.Linear not in kinds
    if path in qkernels.supported_isas():
        tokens, logits = greedy(model)
        assert tokens == reference_tokens
        assert float(mx.max(mx.abs(logits - reference_logits)).item()) < LOGIT_TOL[name]
        return
    assert int8 == "1" and path in qkernels.int8_isas()
    # the random-weight model's top logits lie close together, so a rounded step may pick
    # another token and every later step would then see other inputs: feed the reference's
    tokens, logits = greedy(model, fed=reference_tokens)
    centred = reference_logits - mx.mean(reference_logits, axis=-1, keepdims=True)
    shift = mx.sqrt(mx.mean((logits - reference_logits) ** 2) / mx.mean(centred**2)).item()
    assert 0 < shift < 0.05
    assert sum(a == b for a, b in zip(tokens, reference_tokens, strict=True)) >= 20


def test_native_mode_and_float32_checkpoint(copies: dict[str, Path], tiny_model: Path) -> None:
    model = mlx_load(str(copies["bf16"]))[0]
    choice = cpu_weights.apply(model, "native")
    assert (choice.weights, choice.converted) == ("native", False)
    assert "slower" in choice.reason
    assert {v.dtype for _, v in tree_flatten(model.parameters())} == {mx.bfloat16}
    plain = cpu_weights.apply(mlx_load(str(tiny_model))[0], "auto")
    assert (plain.weights, plain.source, plain.converted) == ("float32", "float32", False)
    with pytest.raises(ValueError, match="choose one of"):
        cpu_weights.apply(model, "fp8")


def test_budget_too_small_keeps_native_weights(copies: dict[str, Path],
                                               monkeypatch: pytest.MonkeyPatch,
                                               caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setenv(cpu_weights.BUDGET_ENV, "1000")
    assert cpu_weights.memory_budget() == 1000
    model = mlx_load(str(copies["bf16"]))[0]  # (quantized copies need no budget: the kernel)
    with caplog.at_level(logging.WARNING, logger="engine.cpu_weights"):
        choice = cpu_weights.apply(model, "auto")
    assert (choice.weights, choice.converted, choice.budget_bytes) == ("native", False, 1000)
    assert any("does not fit" in r.message and "slower" in r.message for r in caplog.records)
    forced = cpu_weights.apply(model, "float32")  # the explicit mode ignores the budget
    assert (forced.weights, forced.converted) == ("float32", True)


def test_budget_defaults_to_half_of_available(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(cpu_weights.BUDGET_ENV, raising=False)
    free = cpu_weights.available_memory()
    assert free is not None and free > 0
    budget = cpu_weights.memory_budget()
    assert budget is not None and abs(budget - free * cpu_weights.BUDGET_FRACTION) < 0.1 * free
    monkeypatch.setenv(cpu_weights.BUDGET_ENV, "lots")
    with pytest.raises(ValueError, match=cpu_weights.BUDGET_ENV):
        cpu_weights.memory_budget()


def _completion_tokens(server: LiveServer) -> list[str]:
    body = {"prompt": "The weights of this model", "max_tokens": 16, "temperature": 0,
            "ignore_eos": True, "logprobs": 1}
    r = httpx.post(server.url + "/v1/completions", json=body, timeout=60)
    assert r.status_code == 200, r.text
    return r.json()["choices"][0]["logprobs"]["tokens"]


def test_served_quantized_model(copies: dict[str, Path], live_server: Callable[..., LiveServer],
                                monkeypatch: pytest.MonkeyPatch) -> None:
    # the native server on the exact float paths (inherited), so its tokens must be the
    # converted model's; the int8 paths' shift is test_quantized_weights_run_on_the_native_kernel's
    monkeypatch.setenv("AFM_QMM_INT8", "0")
    converted = live_server("--cpu-weights", "float32", model=copies["4bit"])
    health = httpx.get(converted.url + "/health").json()["cpu_weights"]
    assert (health["mode"], health["weights"], health["source"]) == ("float32", "float32", "4-bit")
    assert health["converted"] and "--cpu-weights float32" in health["reason"]
    r = httpx.post(converted.url + "/v1/chat/completions", headers={"X-AFM-Profile": "true"},
                   json={"messages": [{"role": "user", "content": "hi"}], "max_tokens": 2},
                   timeout=60).json()
    assert r["afm_profile"]["cpu_weights"] == health
    native = live_server("--cpu-weights", "native", model=copies["4bit"])
    assert httpx.get(native.url + "/health").json()["cpu_weights"]["weights"] == "native"
    assert _completion_tokens(converted) == _completion_tokens(native)


def test_served_budget_too_small(copies: dict[str, Path], tmp_path: Path,
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(cpu_weights.BUDGET_ENV, "1")  # inherited by the server process
    server = LiveServer(["--model", str(copies["bf16"])], tmp_path / "data",
                        tmp_path / "server.log")
    try:
        server.start()
        health = httpx.get(server.url + "/health").json()["cpu_weights"]
        assert (health["weights"], health["source"], health["budget_bytes"]) == (
            "native", "bfloat16", 1)
        assert len(_completion_tokens(server)) == 16
    finally:
        server.stop()
    log = server.log_path.read_text()
    assert "WARNING" in log and "does not fit the budget" in log and "slower" in log


def test_embedding_model_half_precision(tmp_path: Path) -> None:
    """A bf16 copy of the builtin embedding model: auto converts it, native runs it in bf16."""
    from engine.embeddings import EmbeddingModel, builtin_model_path

    src = builtin_model_path()
    for item in src.iterdir():
        if item.name != "model.safetensors":
            (tmp_path / item.name).symlink_to(item)
    weights = mx.load(str(src / "model.safetensors"))
    mx.save_safetensors(str(tmp_path / "model.safetensors"),
                        {k: v.astype(mx.bfloat16) if v.dtype == mx.float32 else v
                         for k, v in weights.items()})
    texts = ["CPU weights run through BLAS.", "A second, unrelated sentence about cats."]
    auto = EmbeddingModel.load(str(tmp_path))
    assert auto.weights_choice is not None
    assert (auto.weights_choice.source, auto.weights_choice.weights) == ("bfloat16", "float32")
    native = EmbeddingModel.load(str(tmp_path), cpu_weights="native")
    assert native.weights_choice is not None and native.weights_choice.weights == "native"
    a, b = np.array(auto.embed(texts).vectors), np.array(native.embed(texts).vectors)
    cos = (a * b).sum(axis=1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
    assert cos.min() > 0.99


def test_served_without_the_native_kernel(copies: dict[str, Path], tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """``AFM_QMM_DISABLE=1`` turns the extension off: auto converts the 4-bit copy (as on a
    machine without a compiler) and says so; the tokens equal the kernel's."""
    monkeypatch.setenv("AFM_QMM_DISABLE", "1")  # inherited by the server process
    server = LiveServer(["--model", str(copies["4bit"])], tmp_path / "data",
                        tmp_path / "server.log")
    try:
        server.start()
        health = httpx.get(server.url + "/health").json()["cpu_weights"]
        assert (health["mode"], health["weights"], health["source"]) == (
            "auto", "float32", "4-bit")
        assert health["converted"] and "native quantized CPU kernel" not in health["reason"]
        tokens = _completion_tokens(server)
    finally:
        server.stop()
    monkeypatch.delenv("AFM_QMM_DISABLE")
    kernel = LiveServer(["--model", str(copies["4bit"])], tmp_path / "data2",
                        tmp_path / "server2.log")
    try:
        kernel.start()
        if qkernels.available():
            assert "native quantized CPU kernel" in httpx.get(kernel.url + "/health").json()[
                "cpu_weights"]["reason"]
        assert _completion_tokens(kernel) == tokens
    finally:
        kernel.stop()
