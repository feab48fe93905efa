"""Raw engine speed: batched decode steps with a KV cache, no HTTP. Prints one JSON line.

The model gets what the engine does at load (the CPU weight policy, the parallel float32
matmul, the native RMSNorm / RoPE / attention); ``AFM_PARALLEL_MATMUL=0`` and ``AFM_FAST_OPS=0``
measure without them.

Run in a fresh interpreter (the BLAS must load before MLX)::

    python tools/bench_lib/raw.py --model PATH --batch 1 8 --tokens 128 [--prompt-tokens 32]

``AFM_BLAS=reference`` measures the bundled reference BLAS instead.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from engine.blas import blas_report  # noqa: E402


def decode_tok_s(model: object, batch: int, tokens: int, prompt_tokens: int) -> dict[str, float]:
    """Prefill ``batch`` prompts, then time ``tokens`` greedy decode steps (one-step pipelined,
    reading each step's tokens back to the host as a server must).

    ``tok_s`` counts the decode steps alone; ``wall_tok_s`` the whole row, prefill included,
    which is what a server's aggregate tok/s over a wave of fresh requests measures."""
    import mlx.core as mx
    from mlx_lm.models.cache import make_prompt_cache

    cache = make_prompt_cache(model)
    prompt = mx.random.randint(3, 1000, (batch, prompt_tokens), key=mx.random.key(batch))
    start = time.perf_counter()
    logits = model(prompt, cache=cache)  # type: ignore[operator]
    tok = mx.argmax(logits[:, -1, :], axis=-1)
    mx.eval(tok)
    prefill = time.perf_counter() - start
    start = time.perf_counter()
    for _ in range(tokens):
        nxt = mx.argmax(model(tok[:, None], cache=cache)[:, -1, :], axis=-1)  # type: ignore[operator]
        mx.async_eval(nxt)
        tok.tolist()
        tok = nxt
    tok.tolist()
    decode = time.perf_counter() - start
    return {"batch": batch, "tokens": tokens, "tok_s": batch * tokens / decode,
            "wall_tok_s": batch * tokens / (prefill + decode),
            "step_ms": 1000 * decode / tokens, "prefill_ms": 1000 * prefill}


def main(argv: list[str] | None = None) -> int:
    """Measure and print ``{"blas": {...}, "rows": [...]}``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", required=True)
    parser.add_argument("--batch", type=int, nargs="+", default=[1, 8])
    parser.add_argument("--tokens", type=int, default=128)
    parser.add_argument("--prompt-tokens", type=int, default=32)
    args = parser.parse_args(argv)
    info = blas_report()
    from mlx_lm import load

    from engine import cpu_weights

    model, _ = load(args.model)
    choice = cpu_weights.prepare(model)  # what the engine does at load
    decode_tok_s(model, 1, 8, 8)  # warm-up
    rows = [decode_tok_s(model, b, args.tokens, args.prompt_tokens) for b in args.batch]
    blas = {"name": info.name, "path": info.path, "gflops": info.gflops, "fast": info.fast,
            "threads": info.threads, "weights": choice.reason}
    print(json.dumps({"blas": blas, "rows": rows}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
