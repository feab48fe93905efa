"""Which SIMD path the native quantized kernel runs: timed at load on the model's own layers.

The kernel has exact float paths (AVX-512 on 512-bit tiles, ``avx512-256``: AVX-512's
instructions on AVX2's 256-bit tiles, AVX2) and paths that round the activations to int8
per group first (``vnni-int8``: AVX-512 VNNI dot products; ``avx2-int8``: AVX2 multiply-adds,
for CPUs without VNNI). Which is faster depends on the CPU, not on what it supports: on the
AMD EPYC machines here AVX-512 float runs on 256-bit units and the AVX2 float path decodes
faster, and ``vnni-int8`` is faster than both (it streams weights at about the memory's speed,
the float paths at half of it). So instead of "the widest supported", the engine times the
candidates on one of the model's quantized layers per bit width, at 1 and 16 activation rows,
and makes the fastest what ``"auto"`` runs at that bit width (:func:`pick_isas`, called by
``engine.qkernels.use_native_kernels``).

Rounding activations to int8 moves outputs by ~0.6% of their RMS per matmul on random inputs (a
rounding error of at most half a step, max|x| / 254 per group), but real models have outlier
activations: on SmolLM2-135M-Instruct (GGUF Q4_1) it turns "The capital of France is Paris."
into noise (README, "Fidelity on real weights"). So ``"auto"`` times only the exact float paths
unless ``AFM_QMM_INT8=1`` opts in to the int8 ones. ``AFM_QMM_ISA`` forces one path, and then
nothing is timed.
"""

from __future__ import annotations

import math
import os
import time
from dataclasses import dataclass
from typing import Any

import mlx.core as mx
import mlx.nn as nn

TIMED = ("avx512", "avx512-256", "avx2")  # the exact float paths worth timing against each other
INT8 = ("vnni-int8", "avx2-int8")  # the int8-activation paths
INT8_ENV = "AFM_QMM_INT8"
ROWS = (1, 16)  # one decode stream, and a continuous batch
TIMED_BYTES = 16 << 20  # the largest layer up to this size stands for the model
REPEATS = 3


@dataclass
class IsaTiming:
    """The paths timed at one bit width, on one layer (``N x K``), and the one chosen."""

    bits: int
    shape: tuple[int, int]
    ms: dict[str, float]  # per path: geometric mean over ROWS of the best call time
    chosen: str

    def describe(self) -> str:
        others = ", ".join(f"{isa} {ms:.2f} ms" for isa, ms in self.ms.items()
                           if isa != self.chosen)
        return (f"{self.bits}-bit: {self.chosen} ({self.ms[self.chosen]:.2f} ms against "
                f"{others} on a {self.shape[0]}x{self.shape[1]} layer)")


def int8_allowed() -> bool:
    """Whether ``"auto"`` may pick a path that rounds activations to int8 (``AFM_QMM_INT8=1``;
    default off: it changes real models' greedy answers)."""
    return os.environ.get(INT8_ENV, "").strip().lower() in ("1", "true", "yes", "on")


def candidates(ext: Any) -> list[str]:
    """The paths timed on this CPU: the exact float ones, then the int8 ones if allowed."""
    paths = [isa for isa in TIMED if isa in ext.supported_isas()]
    if int8_allowed() and hasattr(ext, "int8_isas"):
        paths += [isa for isa in INT8 if isa in ext.int8_isas()]
    return paths


def _layer_for(layers: list[nn.Module]) -> nn.Module:
    """The largest layer up to :data:`TIMED_BYTES` (else the smallest): big enough to time the
    kernel rather than the dispatch, small enough to keep start-up short."""
    by_size = sorted(layers, key=lambda m: m["weight"].nbytes)
    fitting = [m for m in by_size if m["weight"].nbytes <= TIMED_BYTES]
    return fitting[-1] if fitting else by_size[0]


def _time(ext: Any, layer: nn.Module, x: mx.array, isa: str) -> float:
    start = time.perf_counter()
    mx.eval(ext.quantized_matmul(x, layer["weight"], layer["scales"], layer["biases"],
                                 layer.group_size, layer.bits, isa))
    return time.perf_counter() - start


def pick_isas(ext: Any, layers: list[nn.Module]) -> list[IsaTiming]:
    """Time the paths of the extension ``ext`` (:func:`candidates`) on one of ``layers``
    (native quantized layers of one model; a tied embedding counts, as the LM head it also is)
    per bit width and make the fastest what ``"auto"`` runs at that bit width; nothing is
    timed when ``AFM_QMM_ISA`` forces a path, and a bit width with one candidate is not timed."""
    if os.environ.get("AFM_QMM_ISA", "").strip() or not hasattr(ext, "auto_isa"):
        return []
    by_bits: dict[int, list[nn.Module]] = {}
    for layer in layers:
        by_bits.setdefault(layer.bits, []).append(layer)
    paths = candidates(ext)
    timings = []
    for bits, group in sorted(by_bits.items()):
        if len(paths) < 2:
            ext.set_auto_isa(bits, paths[0] if paths else "auto")
            continue
        layer = _layer_for(group)
        n, k = layer["weight"].shape[0], layer["weight"].shape[1] * 32 // bits
        best = {(isa, rows): math.inf for isa in paths for rows in ROWS}
        inputs = {rows: mx.random.normal((rows, k), key=mx.random.key(rows)) for rows in ROWS}
        mx.eval(list(inputs.values()))
        for repeat in range(REPEATS + 1):  # the first round warms caches and the thread pool
            for isa in paths:
                for rows, x in inputs.items():
                    t = _time(ext, layer, x, isa)
                    if repeat:
                        best[isa, rows] = min(best[isa, rows], t)
        ms = {isa: 1000 * math.prod(best[isa, r] for r in ROWS) ** (1 / len(ROWS))
              for isa in paths}
        chosen = min(ms, key=ms.__getitem__)
        ext.set_auto_isa(bits, chosen)
        timings.append(IsaTiming(bits, (n, k), ms, chosen))
    return timings
