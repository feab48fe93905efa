"""Float32 linear layers whose matmuls use every core without a threaded BLAS (issue 14).

The engine runs its BLAS single-threaded (``engine.blas``): a threaded BLAS splits each matmul
statically and waits for every thread at a barrier, so when another thread (the HTTP side) takes a
core the whole call stalls. The native extension (``engine._afm_qmm``) adds ``matmul_nt``: ``x @
w.T`` cut into blocks of output columns claimed from the kernel's thread pool, where a late helper
leaves its blocks to the caller. Each block is one single-threaded call: ``cblas_sgemv`` for one
row of activations (decode at batch 1), AFM's AVX2 kernel for 2-32 rows (a decode batch: BLAS
would pack the whole weight matrix on every call, which costs more than the product; the kernel
streams each weight row once, 1.2-2x), ``cblas_sgemm`` (the BLAS AFM preloaded) beyond.
:func:`use_parallel_matmuls` swaps a float32 model's ``nn.Linear`` layers (and a tied
embedding's LM head) for ones calling it, on CPU devices.

It runs only where the BLAS AFM preloaded is single-threaded (``engine.blas``: two cores, or
``MKL_NUM_THREADS=1``); where the BLAS has threads of its own (more cores, or a user's setting)
those are used instead. ``AFM_PARALLEL_MATMUL=0`` turns it off; ``AFM_QMM_THREADS`` sets the threads
(default: all cores). Outputs match ``x @ w.T`` to float32 rounding of the dot products.
"""

from __future__ import annotations

import logging
import os
from typing import Any

import mlx.core as mx
import mlx.nn as nn

from engine import blas, qkernels

log = logging.getLogger(__name__)

ENV = "AFM_PARALLEL_MATMUL"


def available() -> str | None:
    """None when the parallel matmul can run in this process, else why not."""
    ext = qkernels._ext  # noqa: SLF001 - the extension module, when built
    if os.environ.get(ENV, "").strip() in ("0", "false", "off", "no"):
        return f"turned off by {ENV}"
    if ext is None:
        return f"native extension not loaded ({qkernels.unavailable_reason() or 'not built'})"
    if not hasattr(ext, "matmul_nt") or not ext.has_sgemm():
        return "no cblas_sgemm loaded (no fast BLAS)"
    info = blas.loaded()
    if info is None or not info.fast:
        return "no fast BLAS preloaded by AFM"
    if info.threads is not None and info.threads > 1:
        return f"the BLAS runs {info.threads} threads itself"
    if ext.num_threads() < 2:
        return "one thread"
    return None


def matmul_nt(x: mx.array, w: mx.array) -> mx.array:
    """``x @ w.T`` through the parallel matmul (float32 in and out)."""
    return qkernels._ext.matmul_nt(x, w)  # noqa: SLF001


class ParallelLinearCPU(nn.Module):
    """A drop-in for a float32 ``nn.Linear`` whose matmul runs over the thread pool."""

    def __init__(self, layer: nn.Linear):
        super().__init__()
        self.weight = layer.weight
        if "bias" in layer:
            self.bias = layer.bias
        self.freeze()

    def _extra_repr(self) -> str:
        out_dims, in_dims = self.weight.shape
        return f"input_dims={in_dims}, output_dims={out_dims}, bias={'bias' in self}, parallel"

    def __call__(self, x: mx.array) -> mx.array:
        if x.dtype != mx.float32:
            return nn.Linear.__call__(self, x)  # type: ignore[arg-type]
        y = qkernels._ext.matmul_nt(x, self["weight"])  # noqa: SLF001 - hot path, ~60x a token
        return y + self["bias"] if "bias" in self else y


class ParallelEmbeddingCPU(nn.Embedding):
    """``nn.Embedding`` whose ``as_linear`` (a tied LM head) runs over the thread pool."""

    def __init__(self, layer: nn.Embedding):
        nn.Module.__init__(self)
        self.weight = layer.weight
        self.freeze()

    def as_linear(self, x: mx.array) -> mx.array:
        if x.dtype != mx.float32:
            return super().as_linear(x)
        return qkernels._ext.matmul_nt(x, self["weight"])  # noqa: SLF001


def _swappable(module: Any) -> bool:
    return (type(module) is nn.Linear or type(module) is nn.Embedding) and (
        module.weight.dtype == mx.float32)


def use_parallel_matmuls(model: nn.Module, device: mx.Device | None = None) -> int:
    """Swap ``model``'s float32 ``nn.Linear`` layers (and float32 embeddings, for tied heads)
    for :class:`ParallelLinearCPU` / :class:`ParallelEmbeddingCPU`. Only on CPU devices and when
    :func:`available`; returns how many layers were swapped (0 otherwise)."""
    device = device or mx.default_device()
    if device.type != mx.DeviceType.cpu or available() is not None:
        return 0

    def replacement(module: Any) -> Any | None:
        if not _swappable(module):
            return None
        if isinstance(module, nn.Embedding):
            return ParallelEmbeddingCPU(module)
        return ParallelLinearCPU(module)

    swapped = qkernels.swap_leaf_modules(model, replacement)
    if swapped:
        log.info("parallel matmul: %d float32 layers split over %d threads (single-threaded "
                 "BLAS per block)", swapped, qkernels._ext.num_threads())  # noqa: SLF001
    return swapped
