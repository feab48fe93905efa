"""Sibling projections fused into one matmul (engine.fused_linear): the same outputs as the
separate layers for float32 and 4-bit models, whatever order or inputs the siblings are called
with, weights counted once, and only siblings that agree are fused."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import mlx.core as mx
import mlx.nn as nn
import pytest
from mlx.utils import tree_flatten
from mlx_lm import load as mlx_load
from mlx_lm.models.cache import make_prompt_cache

from engine import fused_linear, parallel_linear, qkernels

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.skipif(
    parallel_linear.available() is not None or not qkernels.available(),
    reason="needs the native extension and a fast BLAS")


def _cpu_layers(model: nn.Module, bits: int | None) -> nn.Module:
    if bits:
        nn.quantize(model, group_size=32, bits=bits)
        assert qkernels.use_native_kernels(model, mx.Device(mx.cpu)) > 0
    else:
        assert parallel_linear.use_parallel_matmuls(model, mx.Device(mx.cpu)) > 0
    return model


def _greedy(model: nn.Module, prompt: mx.array, n: int) -> tuple[list[int], mx.array]:
    cache = make_prompt_cache(model)
    logits = model(prompt, cache=cache)[:, -1, :]
    first, out = logits, []
    for _ in range(n):
        tok = mx.argmax(logits, axis=-1)
        out.append(tok.item())
        logits = model(tok[:, None], cache=cache)[:, -1, :]
    return out, first


def _weight_bytes(model: nn.Module) -> int:
    return sum(v.nbytes for _, v in tree_flatten(model.parameters()))


@pytest.mark.parametrize("bits", [None, 4])
def test_fused_model_equals_separate_layers(tiny_model: Path, bits: int | None) -> None:
    ref = _cpu_layers(mlx_load(str(tiny_model))[0], bits)
    model = _cpu_layers(mlx_load(str(tiny_model))[0], bits)
    before = _weight_bytes(model)
    groups = fused_linear.fuse_siblings(model)
    layers = len(model.model.layers)
    assert groups == 2 * layers  # q/k/v and gate/up in every layer
    attn, mlp = model.model.layers[0].self_attn, model.model.layers[0].mlp
    assert type(attn.q_proj) is fused_linear.SiblingLinear
    assert type(mlp.up_proj) is fused_linear.SiblingLinear
    assert _weight_bytes(model) == before  # the fused weights replace the separate ones
    prompt = mx.array([[5, 17, 300, 42, 9, 77, 1000, 3]])
    ref_tokens, ref_logits = _greedy(ref, prompt, 12)
    tokens, logits = _greedy(model, prompt, 12)
    assert tokens == ref_tokens
    top = max(1.0, mx.abs(ref_logits).max().item())
    assert mx.abs(logits - ref_logits).max().item() <= 1e-5 * top
    assert fused_linear.fuse_siblings(model) == 0  # already fused


def test_any_call_pattern_gives_each_sibling_its_own_product() -> None:
    parent = nn.Module()
    for name, rows in (("q_proj", 16), ("k_proj", 8), ("v_proj", 8)):
        parent[name] = nn.Linear(32, rows, bias=True)
    mx.eval(parent.parameters())
    ref = {name: parent[name] for name in ("q_proj", "k_proj", "v_proj")}
    assert parallel_linear.use_parallel_matmuls(parent, mx.Device(mx.cpu)) == 3
    assert fused_linear.fuse_siblings(parent) == 1
    x1, x2 = mx.random.normal((2, 3, 32), key=mx.random.key(1)), mx.random.normal((5, 32))
    for name, x in (("q_proj", x1), ("k_proj", x2), ("v_proj", x1), ("v_proj", x1),
                    ("q_proj", x2), ("k_proj", x1)):
        got, want = parent[name](x), ref[name](x)
        assert got.shape == want.shape
        assert mx.abs(got - want).max().item() <= 1e-5


def test_siblings_that_disagree_stay_separate() -> None:
    parent = nn.Module()
    parent["gate_proj"] = nn.Linear(32, 16, bias=False)
    parent["up_proj"] = nn.Linear(32, 16, bias=True)  # one has a bias
    mx.eval(parent.parameters())
    parallel_linear.use_parallel_matmuls(parent, mx.Device(mx.cpu))
    assert fused_linear.fuse_siblings(parent) == 0
    plain = nn.Module()  # MLX's own layers (not the engine's CPU ones): left alone
    plain["gate_proj"], plain["up_proj"] = nn.Linear(8, 8), nn.Linear(8, 8)
    assert fused_linear.fuse_siblings(plain) == 0


def test_turned_off_by_the_environment() -> None:
    code = ("from engine import fused_linear as f; import mlx.nn as nn; m = nn.Module();"
            "print(f.available()); print(f.fuse_siblings(m))")
    env = {**os.environ, fused_linear.ENV: "0"}
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True,
                         text=True, check=True).stdout.split("\n")
    assert out[:2] == [f"turned off by {fused_linear.ENV}", "0"]
