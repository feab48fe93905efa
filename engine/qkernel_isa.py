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

One row of x (decode at batch 1) may take another path: ``vnni-int8x3`` holds x as three int8
digit planes (to 2^-24 of each group's largest value, float32's own precision; the integer dot
products are exact), so its outputs meet the exact paths' tolerance, and it streams 8-bit
weights at about the memory's speed where the float paths convert every code (Qwen2.5-0.5B's
8-bit LM head on Zen 4: 4.9-5.2 ms against 7.7-8.1). It is timed against the path chosen for
that bit width on what a decode step does at one row, a pass over the model's layers of that
bit width (up to :data:`ROW_PASS_BYTES`, the largest first), whose weights then come from
memory rather than a cache, run in the extension as the one-op decode step runs its products
(``row_pass_ms``), and runs for one-row products where it is faster (``set_row_isa``). One hot
layer misjudged it: SmolLM2's 4-bit 1536 x 576 layer timed 0.06 ms on the planes against 0.07
on AVX2 at one start and the reverse at the next. So did the pass as one MLX op a layer, whose
dispatch was half its time: 11.77 ms on AVX2 against 13.14 on the planes at one start, 12.10
against 13.02 the other way at another. In the extension the pass takes 5.0-5.8 ms on the
planes against 5.3-6.4 on AVX2, and the step itself 6-9% less on the planes (AMD Zen 4).
``AFM_QMM_PLANES=0`` keeps one-row products on the chosen path. CPUs without VNNI time
``avx2-int8x3``, the same planes from AVX2 multiply-adds, the same way.
"""

from __future__ import annotations

import math
import os
import statistics
import time
from dataclasses import dataclass, field
from typing import Any

import mlx.core as mx
import mlx.nn as nn

TIMED = ("avx512", "avx512-256", "avx2")  # the exact float paths worth timing against each other
INT8 = ("vnni-int8", "avx2-int8")  # the int8-activation paths
INT8_ENV = "AFM_QMM_INT8"
PLANES_ENV = "AFM_QMM_PLANES"
ROW_GAIN = 0.97  # a one-row path's time over the chosen one's must be below this to replace it
ROWS = (1, 16)  # one decode stream, and a continuous batch
TIMED_BYTES = 16 << 20  # the largest layer up to this size stands for the model
ROW_PASS_BYTES = 256 << 20  # one-row timing: a pass over layers up to this many weight bytes
REPEATS = 3
ROW_REPEATS = 7  # one-row passes in the extension: ~10 ms each on SmolLM2's 4-bit layers


@dataclass
class IsaTiming:
    """The paths timed at one bit width, on one layer (``N x K``), and the one chosen."""

    bits: int
    shape: tuple[int, int]
    ms: dict[str, float]  # per path: geometric mean over ROWS of the best call time
    chosen: str
    row_ms: dict[str, float] = field(default_factory=dict)  # one row: chosen and plane paths
    row_ratio: dict[str, float] = field(default_factory=dict)  # their times over the chosen's
    row_chosen: str | None = None  # the one-row path where it is not ``chosen``
    row_pass: tuple[int, int] | None = None  # one-row timing's pass: layers, weight bytes

    def _against(self, ms: dict[str, float]) -> str:
        """' against <path> <ms> ms, ...' for the paths of ``ms`` other than the chosen one."""
        others = ", ".join(f"{isa} {t:.2f} ms" for isa, t in ms.items() if isa != self.chosen)
        return f" against {others}" if others else ""

    def describe(self) -> str:
        text = (f"{self.bits}-bit: {self.chosen} ({self.ms[self.chosen]:.2f} ms"
                f"{self._against(self.ms)} on a {self.shape[0]}x{self.shape[1]} layer)")
        if self.row_pass is None or not self.row_ms:
            return text
        n, size = self.row_pass
        where = f"one row through {n} layer{'s' if n != 1 else ''}, {size / 2**20:.1f} MiB"
        if self.row_chosen:
            return text + (f", one row: {self.row_chosen} ({self.row_ms[self.row_chosen]:.2f} "
                           f"ms against {self.row_ms[self.chosen]:.2f}, {where})")
        return text + (f", one row: {self.chosen} kept ({self.row_ms[self.chosen]:.2f} ms"
                       f"{self._against(self.row_ms)}, {where})")  # the planes were timed and lost


def int8_allowed() -> bool:
    """Whether ``"auto"`` may pick a path that rounds activations to int8 (``AFM_QMM_INT8=1``;
    default off: it changes real models' greedy answers)."""
    return os.environ.get(INT8_ENV, "").strip().lower() in ("1", "true", "yes", "on")


def planes_allowed() -> bool:
    """Whether one-row products may take the digit-plane path (``AFM_QMM_PLANES``, default on:
    its outputs meet the exact paths' tolerance)."""
    return os.environ.get(PLANES_ENV, "").strip().lower() not in ("0", "false", "off", "no")


def candidates(ext: Any, int8: bool = False) -> list[str]:
    """The paths timed on this CPU: the exact float ones, then the int8 ones if allowed
    (``AFM_QMM_INT8=1``, or ``int8``: the model's file is one on which they measured at least
    llama.cpp's agreement, ``engine.fidelity``)."""
    paths = [isa for isa in TIMED if isa in ext.supported_isas()]
    if (int8 or int8_allowed()) and hasattr(ext, "int8_isas"):
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


def pick_isas(ext: Any, layers: list[nn.Module], int8: bool = False) -> list[IsaTiming]:
    """Time the paths of the extension ``ext`` (:func:`candidates`) on one of ``layers``
    (native quantized layers of one model; a tied embedding counts, as the LM head it also is)
    per bit width and make the fastest what ``"auto"`` runs at that bit width; nothing is
    timed when ``AFM_QMM_ISA`` forces a path, and a bit width with one candidate is not timed."""
    if os.environ.get("AFM_QMM_ISA", "").strip() or not hasattr(ext, "auto_isa"):
        return []
    by_bits: dict[int, list[nn.Module]] = {}
    for layer in layers:
        by_bits.setdefault(layer.bits, []).append(layer)
    paths = candidates(ext, int8)
    planes = ([isa for isa in ext.plane_isas() if isa not in paths]
              if planes_allowed() and hasattr(ext, "plane_isas") else [])
    timings = []
    for bits, group in sorted(by_bits.items()):
        if len(paths) < 2 and not planes:
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
        timing = IsaTiming(bits, (n, k), ms, chosen)
        if planes:  # as a decode step runs them: one row through the layers, from memory
            layers_pass = _row_pass(group)
            timing.row_pass = (len(layers_pass), sum(_nbytes(m) for m in layers_pass))
            timing.row_ms, timing.row_ratio = _one_row(ext, layers_pass, [chosen, *planes])
            fastest = min(planes, key=timing.row_ratio.__getitem__)
            if timing.row_ratio[fastest] < ROW_GAIN:
                ext.set_row_isa(bits, fastest)
                timing.row_chosen = fastest
        timings.append(timing)
    return timings


def _nbytes(layer: nn.Module) -> int:
    return sum(layer[name].nbytes for name in ("weight", "scales", "biases"))


def _row_pass(group: list[nn.Module]) -> list[nn.Module]:
    """The layers one-row timing passes over: the largest first (the LM head, where there is
    one), up to :data:`ROW_PASS_BYTES`; together past any cache, as in a decode step."""
    chosen: list[nn.Module] = []
    total = 0
    for layer in sorted(group, key=_nbytes, reverse=True):
        if chosen and total + _nbytes(layer) > ROW_PASS_BYTES:
            continue
        chosen.append(layer)
        total += _nbytes(layer)
    return chosen


def _one_row(ext: Any, layers: list[nn.Module],
             paths: list[str]) -> tuple[dict[str, float], dict[str, float]]:
    """Best milliseconds of each path for one row through ``layers``, and each path's time over
    the first path's (``paths[0]``, the chosen one), a warm-up round first: in the extension as
    the one-op decode step runs the products (``row_pass_ms``, no MLX op between them:
    :data:`ROW_REPEATS` rounds, each path's ratio the median of the rounds' own ratios: a
    round's paths run back to back, so a burst of other work on the machine slows both, where
    comparing each path's best round let one lucky round decide), else one MLX evaluation of
    every layer's product a round (ratios of the best)."""
    if hasattr(ext, "row_pass_ms"):
        weights = [m[name] for m in layers for name in ("weight", "scales", "biases")]
        rounds = ext.row_pass_ms(weights, [m.group_size for m in layers],
                                 [m.bits for m in layers], paths, ROW_REPEATS)
        best = {isa: float(min(r[i] for r in rounds)) for i, isa in enumerate(paths)}
        ratio = {isa: statistics.median(r[i] / r[0] for r in rounds)
                 for i, isa in enumerate(paths)}
        return best, ratio
    inputs: dict[int, mx.array] = {}
    for layer in layers:
        k = layer["weight"].shape[1] * 32 // layer.bits
        if k not in inputs:
            inputs[k] = mx.random.normal((1, k), key=mx.random.key(k))
    mx.eval(list(inputs.values()))

    def run(isa: str) -> float:
        start = time.perf_counter()
        mx.eval([ext.quantized_matmul(inputs[m["weight"].shape[1] * 32 // m.bits], m["weight"],
                                      m["scales"], m["biases"], m.group_size, m.bits, isa)
                 for m in layers])
        return time.perf_counter() - start

    best = dict.fromkeys(paths, math.inf)
    for repeat in range(REPEATS + 1):
        for isa in paths:
            t = run(isa)
            if repeat:
                best[isa] = min(best[isa], t)
    return ({isa: 1000 * t for isa, t in best.items()},
            {isa: t / best[paths[0]] for isa, t in best.items()})
