"""The parallel float32 matmul (engine.parallel_linear, native ``matmul_nt``): same values as
MLX's own matmul, for every shape the engine meets, and the swap of a real model's layers."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import mlx.core as mx
import mlx.nn as nn
import pytest
from mlx_lm import load as mlx_load

from engine import parallel_linear, qkernels
from tests.conftest import LiveServer

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(
    parallel_linear.available() is not None,
    reason=f"parallel matmul unavailable here: {parallel_linear.available()}",
)


@pytest.fixture(autouse=True)
def _two_threads() -> Iterator[None]:
    qkernels.set_num_threads(2)
    yield
    qkernels.set_num_threads(0)


def _close(a: mx.array, b: mx.array, x: mx.array, w: mx.array) -> None:
    """Equal up to float32 rounding of K-term dot products."""
    scale = (mx.abs(x) @ mx.abs(w).T) if x.size and w.size else mx.zeros(a.shape)
    assert a.shape == b.shape and a.dtype == b.dtype == mx.float32
    assert bool(mx.all(mx.abs(a - b) <= 1e-6 * scale + 1e-30).item())


@pytest.mark.parametrize("m", [1, 2, 8, 33])
@pytest.mark.parametrize("n,k", [(1, 64), (3, 7), (77, 512), (1001, 96), (4096, 128)])
def test_matches_mlx_matmul(m: int, n: int, k: int) -> None:
    key = mx.random.key(m * 10_000 + n * 10 + k)
    x = mx.random.normal((m, k), key=key)
    w = mx.random.normal((n, k), key=mx.random.split(key)[0])
    _close(parallel_linear.matmul_nt(x, w), x @ w.T, x, w)


def test_three_dimensional_and_strided_inputs() -> None:
    x = mx.random.normal((2, 5, 96), key=mx.random.key(1))
    w = mx.random.normal((300, 96), key=mx.random.key(2))
    out = parallel_linear.matmul_nt(x, w)
    assert out.shape == (2, 5, 300)
    _close(out.reshape(10, 300), (x @ w.T).reshape(10, 300), x.reshape(10, 96), w)
    xt = mx.random.normal((96, 6), key=mx.random.key(3)).T  # a transposed view
    _close(parallel_linear.matmul_nt(xt, w), xt @ w.T, xt, w)
    wt = mx.random.normal((96, 40), key=mx.random.key(4)).T
    _close(parallel_linear.matmul_nt(xt, wt), xt @ wt.T, xt, wt)


def test_one_and_two_threads_agree_bitwise() -> None:
    x = mx.random.normal((8, 512), key=mx.random.key(5))
    w = mx.random.normal((1536, 512), key=mx.random.key(6))
    qkernels.set_num_threads(1)
    one = parallel_linear.matmul_nt(x, w)
    mx.eval(one)
    qkernels.set_num_threads(2)
    two = parallel_linear.matmul_nt(x, w)
    assert bool(mx.array_equal(one, two).item())


def test_rejects_what_it_cannot_compute() -> None:
    w = mx.zeros((4, 8))
    with pytest.raises(ValueError, match="float32"):
        parallel_linear.matmul_nt(mx.zeros((2, 8), dtype=mx.float16), w)
    with pytest.raises(ValueError, match="K"):
        parallel_linear.matmul_nt(mx.zeros((2, 7)), w)


def test_layers_keep_outputs_with_bias_and_other_dtypes() -> None:
    layer = nn.Linear(48, 20, bias=True)
    mx.eval(layer.parameters())
    swapped = parallel_linear.ParallelLinearCPU(layer)
    x = mx.random.normal((3, 48), key=mx.random.key(7))
    _close(swapped(x), layer(x), x, layer.weight)
    half = x.astype(mx.float16)
    assert swapped(half).dtype == layer(half).dtype
    emb = nn.Embedding(50, 48)
    mx.eval(emb.parameters())
    pemb = parallel_linear.ParallelEmbeddingCPU(emb)
    ids = mx.array([[1, 4, 49]])
    assert bool(mx.array_equal(pemb(ids), emb(ids)).item())
    _close(pemb.as_linear(x), emb.as_linear(x), x, emb.weight)


def test_model_swap_keeps_greedy_tokens_and_logits(tiny_model: Path) -> None:
    ref, _ = mlx_load(str(tiny_model))
    model, _ = mlx_load(str(tiny_model))
    count = parallel_linear.use_parallel_matmuls(model)
    linears = sum(type(m) is nn.Linear for _, m in ref.named_modules())
    embeddings = sum(type(m) is nn.Embedding for _, m in ref.named_modules())
    assert count == linears + embeddings > 0
    assert not any(type(m) is nn.Linear for _, m in model.named_modules())
    prompt = mx.array([[5, 17, 300, 42, 9, 77, 1000, 3]])
    a, b = ref(prompt), model(prompt)
    assert mx.abs(a - b).max().item() <= 1e-4 * max(1.0, mx.abs(a).max().item())
    toks_a, toks_b = [], []
    ya, yb = prompt, prompt
    from mlx_lm.models.cache import make_prompt_cache

    ca, cb = make_prompt_cache(ref), make_prompt_cache(model)
    for _ in range(12):
        ta = mx.argmax(ref(ya, cache=ca)[:, -1, :], axis=-1)
        tb = mx.argmax(model(yb, cache=cb)[:, -1, :], axis=-1)
        toks_a.append(ta.item())
        toks_b.append(tb.item())
        ya, yb = ta[:, None], tb[:, None]
    assert toks_a == toks_b


def test_turned_off_by_the_environment() -> None:
    code = ("from engine import parallel_linear as p; import mlx.nn as nn;"
            "m = nn.Sequential(nn.Linear(8, 8)); print(p.available()); "
            "print(p.use_parallel_matmuls(m))")
    env = {**os.environ, parallel_linear.ENV: "0"}
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True,
                         text=True, check=True).stdout.split("\n")
    assert out[:2] == [f"turned off by {parallel_linear.ENV}", "0"]


def test_served_float32_model_reports_it(live_server: Callable[..., LiveServer]) -> None:
    server = live_server("--concurrent", "4")
    health = httpx.get(server.url + "/health").json()["cpu_weights"]
    assert health["weights"] == "float32"
    assert "float32 matmuls split over" in health["reason"]
    assert "q/k/v and gate/up projections fused" in health["reason"]
