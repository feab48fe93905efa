"""Which SIMD path the native quantized kernel runs: timed at load on the model's own layers.

The kernel has an AVX-512 and an AVX2 path (``native/afm_qmm``); which is faster depends on the
CPU, not on what it supports. On the AMD EPYC machines here (AVX-512 executed on 256-bit units)
the AVX2 path decodes faster: 4-bit decode step 3.44-3.57 -> 3.04-3.21 ms at batch 1 and
15.7-15.9 -> 13.7-14.1 ms at batch 16; 8-bit 6.15 -> 4.73 ms at batch 1 (``tools/bench_step.py``,
runs alternated). So instead of "the widest supported", the engine times both paths on one of
the model's quantized layers per bit width, at 1 and 16 activation rows, and makes the faster
one what ``"auto"`` runs at that bit width (:func:`pick_isas`, called by
``engine.qkernels.use_native_kernels``). ``AFM_QMM_ISA`` still forces a
path, and then nothing is timed.
"""

from __future__ import annotations

import math
import os
import time
from dataclasses import dataclass
from typing import Any

import mlx.core as mx
import mlx.nn as nn

TIMED = ("avx512", "avx2")  # the exact float paths worth timing against each other
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
    """Time the SIMD paths of the extension ``ext`` on one of ``layers`` (native quantized
    layers of one model; a tied embedding counts, as the LM head it also is) per bit width and
    make the faster one what ``"auto"`` runs at that bit width; nothing is timed when
    ``AFM_QMM_ISA`` forces a path or fewer than two paths run on this CPU."""
    if os.environ.get("AFM_QMM_ISA", "").strip() or not hasattr(ext, "auto_isa"):
        return []
    paths = [isa for isa in TIMED if isa in ext.supported_isas()]
    if len(paths) < 2:
        return []
    by_bits: dict[int, list[nn.Module]] = {}
    for layer in layers:
        by_bits.setdefault(layer.bits, []).append(layer)
    timings = []
    for bits, group in sorted(by_bits.items()):
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
