"""Benchmark: the MLX embeddings engine vs sentence-transformers (PyTorch) on one batch.

Embeds a batch of short sentences N times with each backend, every backend in its own
subprocess (a preloaded BLAS must come before the first ``import mlx.core`` and must not leak
into the PyTorch run), and prints a table::

    python tools/bench_embeddings.py                 # 64 sentences x 10 runs, all backends
    python tools/bench_embeddings.py -n 20 --out bench.md
    python tools/bench_embeddings.py --long -b 16 -n 3  # inputs cut at the 256-token window

Backends: ``mlx-ref`` (MLX with its bundled reference BLAS), ``mlx-fast`` (MLX after
``engine.blas.preload_fast_blas()``, skipped when that module is absent; its thread count
follows ``MKL_NUM_THREADS`` / ``OPENBLAS_NUM_THREADS`` when set), ``torch`` (sentence-transformers
on the same model folder, PyTorch's default threads) and ``torch-1t`` (the same, one thread).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BACKENDS = ("mlx-ref", "mlx-fast", "torch", "torch-1t")

_SUBJECTS = ["The server", "A small model", "My laptop", "The new cache", "This query", "Our team"]
_VERBS = ["returns", "embeds", "indexes", "compares", "stores", "ranks"]
_OBJECTS = [
    "short sentences quickly",
    "vectors for semantic search",
    "documents about the weather in Paris",
    "every request in under a second",
    "product reviews and support tickets",
    "code snippets written in Python",
]


def sentences(count: int) -> list[str]:
    """Deterministic, varied short sentences (roughly 8-16 tokens each)."""
    out = []
    for i in range(count):
        s = _SUBJECTS[i % len(_SUBJECTS)]
        v = _VERBS[(i // len(_SUBJECTS)) % len(_VERBS)]
        o = _OBJECTS[(i * 5 + 1) % len(_OBJECTS)]
        out.append(f"{s} {v} {o} (case {i}).")
    return out


def long_texts(count: int) -> list[str]:
    """Texts well past the 256-token window (every one is truncated)."""
    base = sentences(64)
    return [" ".join(base[(i + j) % 64] for j in range(30)) for i in range(count)]


def _time_runs(fn, runs: int) -> list[float]:
    fn()  # warm-up: first-call allocations, lazy init
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return times


def worker(backend: str, batch: int, runs: int, long: bool = False) -> dict:
    """Run one backend in this process and return its timings."""
    texts = long_texts(batch) if long else sentences(batch)
    info = ""
    if backend == "mlx-fast":
        try:
            from engine.blas import preload_fast_blas
        except ImportError:
            return {"backend": backend, "skipped": "engine/blas.py not present"}
        info = str(preload_fast_blas())
    if backend.startswith("mlx"):
        from engine.embeddings import EmbeddingModel

        model = EmbeddingModel.load("all-MiniLM-L6-v2")
        times = _time_runs(lambda: model.embed(texts), runs)
    else:
        import torch
        from sentence_transformers import SentenceTransformer

        from engine.embeddings import builtin_model_path

        if backend == "torch-1t":
            torch.set_num_threads(1)
        st = SentenceTransformer(str(builtin_model_path()), device="cpu")
        info = f"torch {torch.__version__}, {torch.get_num_threads()} threads"
        times = _time_runs(lambda: st.encode(texts, batch_size=batch), runs)
    return {"backend": backend, "info": info, "times": times}


def _run_subprocess(backend: str, batch: int, runs: int, long: bool) -> dict:
    env = dict(os.environ, HF_HUB_OFFLINE="1", PYTHONPATH=str(ROOT))
    cmd = [sys.executable, __file__, "--worker", backend, "-b", str(batch), "-n", str(runs)]
    cmd += ["--long"] if long else []
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT)
    if proc.returncode != 0:
        return {"backend": backend, "skipped": f"failed: {proc.stderr.strip()[-300:]}"}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def table(results: list[dict], batch: int, runs: int, long: bool) -> str:
    kind = "long texts (truncated to 256 tokens)" if long else "short sentences"
    lines = [
        f"batch of {batch} {kind}, {runs} timed runs after 1 warm-up",
        "",
        "| backend | sentences/s | ms/batch (median) | ms/batch (min) | notes |",
        "|---|---|---|---|---|",
    ]
    for r in results:
        if "skipped" in r:
            lines.append(f"| {r['backend']} | - | - | - | skipped: {r['skipped']} |")
            continue
        t = r["times"]
        rate = batch * len(t) / sum(t)
        med, best = statistics.median(t) * 1e3, min(t) * 1e3
        lines.append(f"| {r['backend']} | {rate:.0f} | {med:.1f} | {best:.1f} | {r['info']} |")
    return "\n".join(lines)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("-n", "--runs", type=int, default=10, help="timed runs per backend")
    p.add_argument("-b", "--batch", type=int, default=64, help="sentences per batch")
    p.add_argument("--backends", default=",".join(BACKENDS), help="comma-separated subset")
    p.add_argument("--long", action="store_true", help="texts past the window instead")
    p.add_argument("--out", type=Path, help="also write the table to this file")
    p.add_argument("--worker", choices=BACKENDS, help=argparse.SUPPRESS)
    args = p.parse_args()

    if args.worker:
        print(json.dumps(worker(args.worker, args.batch, args.runs, args.long)))
        return
    results = [
        _run_subprocess(b.strip(), args.batch, args.runs, args.long)
        for b in args.backends.split(",")
    ]
    text = table(results, args.batch, args.runs, args.long)
    print(text)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
