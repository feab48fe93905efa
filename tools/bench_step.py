"""One decode step of the engine's model, taken apart: graph nodes, Python build time, compute.

Prints, for each batch size: the MLX graph nodes of one decode step by primitive, and the step
time split into building the graph (Python) and ``async_eval`` (dispatch and compute: on MLX's
CPU backend it returns only when all but a few dozen ops have run), interleaved over three
variants: MLX's ``mx.fast`` CPU fallbacks and mlx-lm's ``swiglu``; the native RMSNorm / RoPE /
attention (``engine.fast_ops``) with mlx-lm's ``swiglu``; those with the native SiLU gate but
mlx-lm's attention and MLP layers; the native decode layers (``engine.decode_layers``); and
everything the engine runs: the whole step's layers as one op (``engine.decode_stack``), also
with its products on one thread. CPU ms is the process's CPU time a step (all threads).
Decode steps run on the engine's ``BatchKVCache``. Then the SiLU gate alone per call
(mlx-lm's ``swiglu`` against the native op) and a batched prefill of 15 prompts of 31 tokens
(the shape of a 16-client burst) in each native variant. The model gets what the engine does at
load (CPU weight policy, parallel float32 matmuls, fused projections, native quantized kernels).

``--paths A B`` instead times the engine's decode step under two kernel paths (``avx2``,
``avx512-256``, ...) in one process, switching every 4 steps, so that a noisy machine slows both
alike; it prints each path's median step.

Run in a fresh interpreter (the BLAS must load before MLX)::

    python tools/bench_step.py --model PATH [--batch 1 16] [--steps 64] [--rounds 3] \
        [--variants layers stack stack-t1]
    python tools/bench_step.py --model PATH --batch 1 --steps 400 --paths avx2 avx512-256
"""

from __future__ import annotations

import argparse
import collections
import re
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.blas import blas_report  # noqa: E402


def _decode_cache(model: object, batch: int) -> list[object]:
    """The engine's decode-batch cache: one ``BatchKVCache`` a layer (no padding)."""
    from mlx_lm.models.cache import BatchKVCache, make_prompt_cache

    return [BatchKVCache([0] * batch) for _ in make_prompt_cache(model)]


def node_counts(model: object, batch: int) -> collections.Counter[str]:
    """Primitives in the graph of one decode step (after a 32-token prefill)."""
    import mlx.core as mx

    cache = _decode_cache(model, batch)
    tok = mx.argmax(model(mx.zeros((batch, 32), dtype=mx.int32), cache=cache)[:, -1, :], axis=-1)  # type: ignore[operator]
    mx.eval(tok)
    nxt = mx.argmax(model(tok[:, None], cache=cache)[:, -1, :], axis=-1)  # type: ignore[operator]
    with tempfile.NamedTemporaryFile(suffix=".dot") as f:
        mx.export_to_dot(f.name, nxt)
        text = Path(f.name).read_text()
    return collections.Counter(re.findall(r'label ="?([A-Za-z_]+)', text))


def _prefilled(model: object, batch: int) -> tuple[list[object], object]:
    """A decode cache after a 32-token prefill of ``batch`` rows, and the next tokens."""
    import mlx.core as mx

    cache = _decode_cache(model, batch)
    prompt = mx.random.randint(3, 1000, (batch, 32), key=mx.random.key(batch))
    tok = mx.argmax(model(prompt, cache=cache)[:, -1, :], axis=-1)  # type: ignore[operator]
    mx.eval(tok)
    return cache, tok


def step_times(model: object, batch: int, steps: int) -> tuple[float, float, float]:
    """(step, build, async_eval) milliseconds per greedy decode step, pipelined as the engine."""
    import mlx.core as mx

    cache, tok = _prefilled(model, batch)
    build = launch = 0.0
    start = time.perf_counter()
    for _ in range(steps):
        t0 = time.perf_counter()
        nxt = mx.argmax(model(tok[:, None], cache=cache)[:, -1, :], axis=-1)  # type: ignore[operator]
        t1 = time.perf_counter()
        mx.async_eval(nxt)
        t2 = time.perf_counter()
        tok.tolist()
        tok = nxt
        build += t1 - t0
        launch += t2 - t1
    tok.tolist()
    total = time.perf_counter() - start
    return 1000 * total / steps, 1000 * build / steps, 1000 * launch / steps


def path_ab(model: object, batch: int, steps: int, paths: list[str]) -> dict[str, float]:
    """Median decode-step milliseconds of each kernel path, alternated every 4 steps."""
    import mlx.core as mx

    from engine import qkernels

    cache, tok = _prefilled(model, batch)
    times: dict[str, list[float]] = {p: [] for p in paths}
    for step in range(steps):
        path = paths[(step // 4) % len(paths)]
        at4, _, at8 = path.partition("/")  # "P" at both bit widths, or "P4/P8"
        for bits, isa in ((4, at4), (8, at8 or at4)):
            qkernels._ext.set_auto_isa(bits, isa)  # noqa: SLF001 - what "auto" runs
        t0 = time.perf_counter()
        tok = mx.argmax(model(tok[:, None], cache=cache)[:, -1, :], axis=-1)  # type: ignore[operator]
        mx.eval(tok)
        times[path].append(time.perf_counter() - t0)
    return {p: 1000 * sorted(t[1:])[len(t[1:]) // 2] for p, t in times.items()}


VARIANTS = (("MLX fallbacks", "mlx"), ("native, MLX swiglu", "no-gate"),
            ("native, mlx-lm layers", "no-layers"), ("native decode layers", "layers"),
            ("one-op step", "stack"), ("one-op step, 1 thread", "stack-t1"))
PREFILL_VARIANTS = VARIANTS[1:4]  # prefill never takes the one-op step


def gate_calls(shapes: tuple[tuple[int, ...], ...] = ((1, 1, 1536), (16, 1, 1536),
                                                      (1, 450, 1536))) -> None:
    """Microseconds per call of the SiLU gate, mlx-lm's and native (evaluation included)."""
    import mlx.core as mx

    from engine import fast_ops

    print("| shape | mlx-lm swiglu us | native us |")
    print("|---|---|---|")
    for shape in shapes:
        gate, x = mx.random.normal(shape), mx.random.normal(shape)
        mx.eval(gate, x)
        cells = []
        for fn in (fast_ops._SWIGLU, fast_ops.swiglu):  # noqa: SLF001 - mlx-lm's, the reference
            times = []
            for _ in range(30):
                t0 = time.perf_counter()
                mx.eval(fn(gate, x))
                times.append(time.perf_counter() - t0)
            cells.append(f"{1e6 * sorted(times)[15]:.0f}")
        print(f"| {list(shape)} | {cells[0]} | {cells[1]} |", flush=True)


def prefill_ms(model: object, rows: int = 15, length: int = 31) -> float:
    """Milliseconds for one left-padded batched prefill (as ``prefill_together`` runs it)."""
    import mlx.core as mx
    from mlx_lm.models.cache import BatchKVCache, make_prompt_cache

    pads = [i % 3 for i in range(rows)]
    cache = [BatchKVCache(pads) for _ in make_prompt_cache(model)]
    tokens = mx.random.randint(3, 1000, (rows, length), key=mx.random.key(rows))
    t0 = time.perf_counter()
    model(tokens[:, :-1], cache=cache)  # type: ignore[operator]
    logits = model(tokens[:, -1:], cache=cache)[:, -1, :]  # type: ignore[operator]
    mx.eval(logits, [c.state for c in cache])
    return 1000 * (time.perf_counter() - t0)


def use(variant: str, model: object = None) -> None:
    """Route the model's ops as ``variant`` says (see :data:`VARIANTS`); the native decode
    layers (``engine.decode_layers``) in "layers" and the stack variants, the one-op step
    (``engine.decode_stack``) in those ("all": whatever the engine runs)."""
    from engine import decode_layers, decode_stack, fast_ops

    if model is not None:
        decode_stack.uninstall(model)  # type: ignore[arg-type]
        decode_layers.uninstall(model)  # type: ignore[arg-type]
    if variant == "mlx":
        fast_ops.uninstall()
    else:
        fast_ops.install(silu_gate=variant != "no-gate")
    if variant in ("layers", "stack", "stack-t1", "all") and model is not None:
        decode_layers.install(model)  # type: ignore[arg-type]
        if variant != "layers":
            decode_stack.install(model)  # type: ignore[arg-type]
            if variant == "stack-t1":
                for _, m in model.named_modules():  # type: ignore[attr-defined]
                    plan = m.__dict__.get("_afm_stack_plan")
                    if plan is not None:
                        plan.settings["threads"] = 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", required=True)
    parser.add_argument("--batch", type=int, nargs="+", default=[1, 16])
    parser.add_argument("--steps", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--variants", nargs="+", choices=[v for _, v in VARIANTS],
                        help="decode variants to time (default: all)")
    parser.add_argument("--paths", nargs=2, metavar="PATH",
                        help="instead: two kernel paths, alternated in one process (PATH at "
                             "both bit widths, or PATH4/PATH8)")
    args = parser.parse_args(argv)
    variants = [(label, v) for label, v in VARIANTS if not args.variants or v in args.variants]
    blas_report()
    from mlx_lm import load

    from engine import cpu_weights

    model, _ = load(args.model)
    choice = cpu_weights.prepare(model)  # what the engine does at load
    print(f"weights: {choice.reason}")
    if args.paths:
        print("| B | " + " | ".join(f"{p} step ms" for p in args.paths) + " |")
        print("|---|" + "---|" * len(args.paths))
        for batch in args.batch:
            ms = path_ab(model, batch, args.steps, args.paths)
            print(f"| {batch} | " + " | ".join(f"{ms[p]:.2f}" for p in args.paths) + " |")
        return 0
    for batch in args.batch:
        for label, variant in variants:
            use(variant, model)
            counts = node_counts(model, batch)
            top = ", ".join(f"{k} {v}" for k, v in counts.most_common(8))
            print(f"B={batch} {label}: {sum(counts.values())} graph nodes ({top}, ...)")
    print()
    print("| B | ops | step ms | build ms | async_eval ms | CPU ms |")
    print("|---|---|---|---|---|---|")
    for _ in range(args.rounds):
        for batch in args.batch:
            for label, variant in variants:
                use(variant, model)
                cpu = time.process_time()
                step, build, launch = step_times(model, batch, args.steps)
                cpu = 1000 * (time.process_time() - cpu) / args.steps
                print(f"| {batch} | {label} | {step:.2f} | {build:.2f} | {launch:.2f} | "
                      f"{cpu:.2f} |", flush=True)
    print()
    use("all", model)
    gate_calls()
    print()
    prefill_ms(model)
    times: dict[str, list[float]] = {label: [] for label, _ in PREFILL_VARIANTS}
    for _ in range(3 * args.rounds):
        for label, variant in PREFILL_VARIANTS:
            use(variant, model)
            times[label].append(prefill_ms(model))
    print("prefill, 15 prompts x 31 tokens (median ms): " + ", ".join(
        f"{label} {sorted(t)[len(t) // 2]:.0f}" for label, t in times.items()))
    use("all", model)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
