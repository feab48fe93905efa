"""Microbenchmark: the native quantized matmul (engine._afm_qmm) against MLX's
`mx.quantized_matmul` and a float32 matmul (with the fast BLAS preloaded), on the bench model's
layer shapes (hidden 512, intermediate 1536, vocab 32000), at 1 and 8 rows, 4 and 8 bits.

Usage: .venv/bin/python tools/bench_qkernels.py [--rows 1 8] [--bits 4 8] [--group-size 64]
       [--isa auto] [--threads 0] [--seconds 0.3] [--decode 32]
Prints the memory bandwidth one thread's copy reaches, then per cell microseconds per call
(median of repeated timed batches), the weight GB/s the kernel streams, its GFLOP/s (the figure
at 32 rows), and its speed ratios to MLX's quantized kernel and to float32 (above 1: the native
kernel is faster). A cell repeats one layer, whose weights then sit in a cache; the lines after
the table time one row against weights that come from memory (64 distinct layers per
evaluation, like a decode step of a model larger than the L3) on each path: the figure to hold
against the memory bandwidth. ``--isa auto`` runs what the engine's load-time timing picks per
bit width (engine.qkernel_isa). Numbers depend on
what else runs on the machine: quote them with the command and the machine. ``--decode N``
also times greedy batch-1 decode of N tokens of the bench model (modelbuilder "bench") in
float32 and on 4- and 8-bit copies (quantized in memory), MLX's kernels against
use_native_kernels.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.blas import preload_fast_blas  # noqa: E402

BLAS = preload_fast_blas()

import mlx.core as mx  # noqa: E402
import numpy as np  # noqa: E402

from engine import qkernels  # noqa: E402

SHAPES = {  # name: (out N, in K)
    "qkv/o 512x512": (512, 512),
    "up 1536x512": (1536, 512),
    "down 512x1536": (512, 1536),
    "lm head 32000x512": (32000, 512),
}


def time_us(fn: Callable[[], mx.array], seconds: float) -> float:
    """Median microseconds per call over batches that each run ~seconds / 5."""
    mx.eval(fn())
    start, n = time.perf_counter(), 0
    while time.perf_counter() - start < seconds / 10 or n < 2:
        mx.eval(fn())
        n += 1
    per = max(1, int(n * 2))
    samples = []
    for _ in range(5):
        t = time.perf_counter()
        for _ in range(per):
            mx.eval(fn())
        samples.append((time.perf_counter() - t) / per * 1e6)
    return statistics.median(samples)


def _greedy(model: object, tokens: int) -> tuple[float, list[int], mx.array]:
    """tok/s of greedy batch-1 decode (after 2 warm-up steps), the tokens, the prompt logits."""
    from mlx_lm.models.cache import make_prompt_cache

    cache = make_prompt_cache(model)
    logits = model(mx.array([[1, 2, 3, 4]]), cache=cache)[:, -1, :]
    first = logits
    out = []
    start = 0.0
    for i in range(tokens + 2):
        if i == 2:  # the first steps warm up
            start = time.perf_counter()
        tok = mx.argmax(logits, axis=-1)
        out.append(tok.item())
        logits = model(tok[:, None], cache=cache)[:, -1, :]
    return tokens / (time.perf_counter() - start), out, first


def decode_tok_s(tokens: int, group_size: int) -> None:
    """Greedy batch-1 decode speed of the bench model: float32, then MLX's quantized kernels
    vs native ones at 4 and 8 bits."""
    from mlx_lm import load
    from mlx_lm.utils import quantize_model

    from modelbuilder import ensure_model

    path = str(ensure_model("bench"))
    print(f"\ngreedy decode, batch 1, {tokens} tokens, bench model ({path})")
    f32, _out, _first = _greedy(load(path)[0], tokens)
    print(f"float32: {f32:.1f} tok/s")
    for bits in (4, 8):
        row = []
        for native in (False, True):
            model, _tok, config = load(path, return_config=True)
            quantize_model(model, config, group_size=group_size, bits=bits)
            if native:
                qkernels.use_native_kernels(model, mx.Device(mx.cpu))
            row.append(_greedy(model, tokens))
        (ref, ref_out, ref_first), (nat, nat_out, nat_first) = row
        pairs = enumerate(zip(ref_out, nat_out, strict=True))
        agree = next((i for i, (a, b) in pairs if a != b), None)
        same = "same tokens" if agree is None else f"first different token at step {agree}"
        shift = mx.max(mx.abs(nat_first - ref_first)).item()
        spread = (mx.max(ref_first) - mx.min(ref_first)).item()
        print(f"{bits}-bit: mlx {ref:.1f} tok/s, native {nat:.1f} tok/s ({nat / ref:.1f}x mlx, "
              f"{nat / f32:.2f}x float32), {same}; prompt logits max |diff| {shift:.2e} "
              f"(logit range {spread:.1f})")


def timed_paths(bits_list: list[int], group_size: int) -> str:
    """What "auto" runs at each bit width after the engine's load-time timing
    (engine.qkernel_isa.pick_isas) on an up-projection-shaped layer."""
    import mlx.nn as nn

    from engine.qkernel_isa import pick_isas

    layers = []
    for bits in bits_list:
        lin = nn.QuantizedLinear.from_linear(nn.Linear(512, 1536), group_size, bits)
        layers.append(qkernels.QuantizedLinearCPU(lin))
    pick_isas(qkernels._ext, layers)
    return "auto (" + ", ".join(f"{qkernels.auto_isa(b)} at {b} bits" for b in bits_list) + ")"


STREAM_LAYERS = 64  # distinct 3072x512 layers per evaluation: 96 MiB at 8 bits, past any L3


def streamed(bits: int, group_size: int, paths: list[str], copy_gbs: float) -> None:
    """Weight GB/s at one activation row when the weights come from memory, not a cache: one
    evaluation of STREAM_LAYERS distinct layers (a decode step of a model larger than the L3)."""
    n, k = 3072, 512
    wq, s, b = mx.quantize(mx.random.normal((n, k)) * 0.05, group_size, bits)
    layers = [(wq ^ mx.array(i, dtype=mx.uint32), s + 0.0, b + 0.0) for i in range(STREAM_LAYERS)]
    mx.eval(layers)
    x = mx.random.normal((1, k))
    per_layer = wq.nbytes + s.nbytes + b.nbytes
    cells = []
    for isa in paths:
        def step(isa: str = isa) -> list[mx.array]:
            return [qkernels.quantized_matmul(x, *layer, group_size, bits, isa=isa)
                    for layer in layers]
        best = min(_timed_eval(step) for _ in range(7))
        cells.append(f"{isa} {STREAM_LAYERS * per_layer / best / 1e9:.1f}")
    print(f"{bits}-bit weights streamed from memory, 1 row ({STREAM_LAYERS} layers {n}x{k}, "
          f"{STREAM_LAYERS * per_layer / 2**20:.0f} MiB per pass), GB/s: {', '.join(cells)} "
          f"(one thread's copy: {copy_gbs:.1f})")


def _timed_eval(step: Callable[[], list[mx.array]]) -> float:
    t = time.perf_counter()
    mx.eval(step())
    return time.perf_counter() - t


def _timed_copy(dst: np.ndarray, src: np.ndarray) -> float:
    t = time.perf_counter()
    np.copyto(dst, src)
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, nargs="+", default=[1, 8])
    ap.add_argument("--bits", type=int, nargs="+", default=[4, 8])
    ap.add_argument("--group-size", type=int, default=64)
    ap.add_argument("--isa", default="auto")
    ap.add_argument("--threads", type=int, default=0, help="kernel threads (0: default)")
    ap.add_argument("--seconds", type=float, default=0.3, help="timing budget per cell")
    ap.add_argument("--decode", type=int, default=0, help="also time N decode tokens")
    args = ap.parse_args()
    if not qkernels.available():
        sys.exit(f"native kernels not built ({qkernels.unavailable_reason()}): "
                 "run .venv/bin/python -m engine.qkernels build")
    qkernels.set_num_threads(args.threads)
    isa = args.isa
    chosen = timed_paths(args.bits, args.group_size) if isa == "auto" else isa
    paths = qkernels.supported_isas() + qkernels.int8_isas()
    print(f"BLAS {BLAS.name}; kernel path {chosen}, {qkernels._ext.num_threads()} threads; "
          f"group size {args.group_size}; paths here: {', '.join(paths)}")
    src = np.ones(64 * 1024 * 1024, dtype=np.float32)  # 256 MB, copied into a warm buffer
    dst = np.empty_like(src)
    np.copyto(dst, src)
    best = min(_timed_copy(dst, src) for _ in range(5))
    copy_gbs = 2 * src.nbytes / best / 1e9
    print(f"memory bandwidth (one thread copying 256 MB, read + write): {copy_gbs:.1f} GB/s")
    del src, dst
    head = (f"{'shape':<18} {'bits':>4} {'rows':>4} {'native us':>10} {'mlx q us':>10} "
            f"{'f32 us':>9} {'GB/s':>6} {'GFLOP/s':>7} {'x mlx q':>8} {'x f32':>6}")
    print(head)
    print("-" * len(head))
    gs = args.group_size
    for name, (n, k) in SHAPES.items():
        w = mx.random.normal((n, k)) * 0.05
        for bits in args.bits:
            wq, s, b = mx.quantize(w, gs, bits)
            mx.eval(w, wq, s, b)
            for rows in args.rows:
                x = mx.random.normal((rows, k))
                mx.eval(x)
                native = time_us(
                    lambda x=x, wq=wq, s=s, b=b, bits=bits: qkernels.quantized_matmul(
                        x, wq, s, b, gs, bits, isa=isa), args.seconds)
                ref = time_us(
                    lambda x=x, wq=wq, s=s, b=b, bits=bits: mx.quantized_matmul(
                        x, wq, s, b, transpose=True, group_size=gs, bits=bits), args.seconds)
                f32 = time_us(lambda x=x, w=w: x @ w.T, args.seconds)
                weight_bytes = wq.nbytes + s.nbytes + b.nbytes
                gbs = weight_bytes / native / 1e3
                gflops = 2 * rows * n * k / native / 1e3
                print(f"{name:<18} {bits:>4} {rows:>4} {native:>10.1f} {ref:>10.1f} {f32:>9.1f} "
                      f"{gbs:>6.2f} {gflops:>7.1f} {ref / native:>7.1f}x {f32 / native:>5.2f}x")
    print()
    for bits in args.bits:
        streamed(bits, gs, [p for p in paths if p != "portable"], copy_gbs)
    if args.decode:
        decode_tok_s(args.decode, gs)


if __name__ == "__main__":
    main()
