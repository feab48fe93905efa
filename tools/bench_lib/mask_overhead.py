"""Per-step cost of a grammar constraint (mask fill, accept, MLX mask application, builds).

Run in a fresh interpreter::

    python tools/bench_lib/mask_overhead.py

Measured on the 2-core x86 dev box, 32k vocabulary: fill ~1.5 us, accept ~1.5 us, MLX mask
application ~45-50 us (CPU), cold compile ~5 ms, cached build ~0.06 ms.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from engine.grammar import GrammarCompilerCache, build_constraint  # noqa: E402

DEFAULT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "maxLength": 20},
        "tags": {"type": "array", "items": {"type": "string", "maxLength": 8}, "maxItems": 4},
        "score": {"type": "integer", "minimum": 0, "maximum": 100},
    },
    "required": ["name", "tags", "score"],
}


def bench_grammar_cache() -> GrammarCompilerCache:
    """A compiler cache for the 32k-vocabulary "bench" model's tokenizer."""
    from transformers import AutoTokenizer

    from modelbuilder import ensure_model

    path = ensure_model("bench")
    vocab_size = json.loads((path / "config.json").read_text())["vocab_size"]
    return GrammarCompilerCache(AutoTokenizer.from_pretrained(path), vocab_size)


def measure_mask_overhead(
    cache: GrammarCompilerCache | None = None,
    schema: dict | None = None,
    steps: int = 200,
    seed: int = 0,
) -> dict[str, float]:
    """Per-step cost of a JSON-schema constraint, in microseconds.

    Samples random tokens under the mask (restarting when the grammar finishes) and reports the
    mean ``fill_bitmask`` + ``accept`` time, the MLX mask application on a [1, vocab] logits
    row, and the first (uncached) and a repeated (cached) build in milliseconds. Clears the
    cache's compiled entries first. Without ``cache`` it uses the "bench" model's tokenizer.
    """
    import mlx.core as mx
    from xgrammar.kernels.apply_token_bitmask_mlx import apply_token_bitmask_mlx

    if cache is None:
        cache = bench_grammar_cache()
    rf = {"type": "json_schema",
          "json_schema": {"name": "bench", "schema": schema or DEFAULT_SCHEMA}}
    kw: dict[str, Any] = dict(
        response_format=rf,
        tools=None,
        tool_choice=None,
        parallel_tool_calls=True,
        tool_format="hermes",
        reasoning=False,
    )
    cache.clear()  # measure a cold compile
    t0 = time.perf_counter()
    con = build_constraint(cache, **kw)
    compile_ms = (time.perf_counter() - t0) * 1e3
    t0 = time.perf_counter()
    con = build_constraint(cache, **kw)
    cached_ms = (time.perf_counter() - t0) * 1e3
    rng = np.random.default_rng(seed)
    bitmask = cache.allocate_bitmask(1)
    fill_s = accept_s = 0.0
    for _ in range(steps):
        assert con is not None
        if con.is_finished():
            con = build_constraint(cache, **kw)
            assert con is not None
        t0 = time.perf_counter()
        con.fill_bitmask(bitmask, 0)
        t1 = time.perf_counter()
        bits = np.unpackbits(bitmask[0].view(np.uint8), bitorder="little")[: cache.vocab_size]
        allowed = np.flatnonzero(bits)
        tok = int(rng.choice(allowed))
        t2 = time.perf_counter()
        con.accept(tok)
        t3 = time.perf_counter()
        fill_s += t1 - t0
        accept_s += t3 - t2
    logits = mx.array(rng.standard_normal((1, cache.vocab_size)).astype(np.float32))
    mask_mx = mx.array(bitmask)
    mx.eval(apply_token_bitmask_mlx(mask_mx, logits, cache.vocab_size))
    t0 = time.perf_counter()
    for _ in range(50):
        mx.eval(apply_token_bitmask_mlx(mx.array(bitmask), logits, cache.vocab_size))
    apply_us = (time.perf_counter() - t0) / 50 * 1e6
    return {
        "vocab_size": float(cache.vocab_size),
        "fill_us": fill_s / steps * 1e6,
        "accept_us": accept_s / steps * 1e6,
        "apply_mlx_us": apply_us,
        "compile_ms": compile_ms,
        "cached_build_ms": cached_ms,
    }


def print_overhead(result: dict[str, float]) -> None:
    for key, value in result.items():
        print(f"{key:>16}: {value:.3f}")


if __name__ == "__main__":
    print_overhead(measure_mask_overhead())
