"""RMSNorm, RoPE, the SiLU gate and decode attention as single native ops on MLX's CPU backend.

On a CPU device, ``mx.fast.rms_norm``, ``mx.fast.rope`` and ``mx.fast.scaled_dot_product_attention``
have no CPU kernels: MLX runs them as graphs of small ops (about 7, 15 and 10 per call, each one a
dispatch and an allocation), which makes a decode step of a small model mostly overhead (1331
graph nodes per step on the bench model, 57 of them matmuls). The native extension
(``engine._afm_qmm``, native/afm_qmm/fast_ops.cpp) has each as one primitive that reads its inputs
in place through their strides (the KV cache slice is not copied) and splits attention over the
kernel's thread pool by (batch, KV head), each key and value row read once for all the query
heads that share it.

:func:`install` routes the three ``mx.fast`` functions through wrappers, process-wide, because
mlx-lm's models call them there (``nn.RMSNorm``, ``nn.RoPE`` and its scaled variants,
``mlx_lm.models.base.scaled_dot_product_attention``). A wrapper takes the native op only for
what it covers: the CPU device, float32 inputs, no explicit stream; RoPE on 3-4-D inputs with an
integer offset (scalar or one per batch entry); attention on 4-D inputs with at most
:data:`MAX_QUERY` queries (decode; longer prefills stay on MLX's matmuls), a bool or float
mask (or ``"causal"``), no attention sinks. Longer queries (prefill) take the tiled op
(``sdpa_tiled``): per KV head and block of about 256 query rows, keys and values are read in
blocks of 128, scores come from the BLAS's sgemm a block at a time with an online softmax, and
causal blocks past a query block are skipped, so the Lq x Lk score matrix MLX's graph builds (and
passes over ~6 times) never exists: 3-10x faster at 256-4k keys (tools/bench_prefill.py). On
AVX2 and AVX-512 CPUs the two products and the softmax run in the extension's own kernel instead
of sgemm (``native/afm_qmm/attn_panels.h``: query rows packed once per task into panels along
the vector lanes, outer products in registers, the softmax vertical; on AVX-512 1.15-1.25x the
BLAS tiles' speed on Zen 4, float32 both; ``qkernels._ext.set_attention_panels(False)`` goes
back to sgemm). It needs a BLAS in the process; ``AFM_TILED_ATTENTION=0`` leaves long queries
to MLX. Anything else goes to MLX's own function unchanged.
Outputs agree with MLX's within float32 rounding (RoPE at large positions within the rounding of
the angle, ~1e-4; tests/test_fast_ops.py). ``AFM_FAST_OPS=0`` leaves ``mx.fast`` alone.

The SiLU gate of the MLP (mlx-lm's ``swiglu``: ``silu(gate) * x``) has a kernel on the CPU, but a
scalar one (one ``exp`` and ``fmaf`` library call per element: 20-30 ns per element, 0.5-0.7 ms
per call for 16 decode rows of the bench model, 13 ms for a 450-row prefill); the native op is
vectorized and split over the thread pool (40-60 us and 0.26-0.28 ms; ``tools/bench_step.py``).
mlx-lm's models import ``swiglu`` by name from ``mlx_lm.models.activations``, so :func:`install`
replaces it there and in every loaded model module that holds it (models loaded later import the
replacement).
"""

from __future__ import annotations

import logging
import os
import sys
from typing import Any

import mlx.core as mx
from mlx_lm.models import activations

from engine import qkernels

log = logging.getLogger(__name__)

ENV = "AFM_FAST_OPS"
MAX_QUERY = 16  # attention with more queries (prefill) takes the tiled op (or MLX's graph)
TILED_ENV = "AFM_TILED_ATTENTION"

_ORIGINAL = {
    "rms_norm": mx.fast.rms_norm,
    "rope": mx.fast.rope,
    "scaled_dot_product_attention": mx.fast.scaled_dot_product_attention,
}
_SWIGLU = activations.swiglu


def available() -> str | None:
    """None when the native ops can run in this process, else why not."""
    if os.environ.get(ENV, "").strip().lower() in ("0", "false", "off", "no"):
        return f"turned off by {ENV}"
    ext = qkernels._ext  # noqa: SLF001 - the extension module, when built
    if ext is None:
        return f"native extension not loaded ({qkernels.unavailable_reason() or 'not built'})"
    if not hasattr(ext, "sdpa"):
        return "native extension predates the fast ops (rebuild it)"
    return None


def tiled_available() -> bool:
    """Whether long-query attention takes the tiled native op in this process."""
    ext = qkernels._ext  # noqa: SLF001
    return (ext is not None and hasattr(ext, "sdpa_tiled") and ext.has_sgemm()
            and os.environ.get(TILED_ENV, "").strip().lower() not in ("0", "false", "off", "no"))


_TILED = tiled_available()


def installed() -> bool:
    """Whether ``mx.fast`` currently routes through this module."""
    return mx.fast.rms_norm is rms_norm


_F32 = mx.float32
_CPU = mx.Device(mx.cpu)
_TILED = False  # tiled_available(), at import and at each install()


def _native(stream: Any, x: mx.array) -> bool:
    """The CPU, float32 and no explicit stream (checked first on every call: keep it cheap)."""
    return stream is None and x.dtype == _F32 and mx.default_device() == _CPU


def rms_norm(x: mx.array, weight: mx.array | None, eps: float, *, stream: Any = None) -> mx.array:
    """``mx.fast.rms_norm``, native on the CPU for float32."""
    if (_native(stream, x) and 1 <= x.ndim <= 4 and (weight is None or (
            weight.dtype == _F32 and weight.ndim == 1 and weight.size == x.shape[-1]))):
        return qkernels._ext.rms_norm(x, weight, eps)  # noqa: SLF001
    return _ORIGINAL["rms_norm"](x, weight, eps, stream=stream)


def _offset(offset: int | mx.array, x: mx.array) -> mx.array | None:
    if isinstance(offset, int):
        return mx.array(offset, dtype=mx.int32)
    if not isinstance(offset, mx.array) or not mx.issubdtype(offset.dtype, mx.integer):
        return None
    if offset.size == 1 or (x.ndim >= 3 and offset.shape == (x.shape[0],)):
        return offset if offset.dtype == mx.int32 else offset.astype(mx.int32)
    return None


def rope(a: mx.array, dims: int, *, traditional: bool, base: float | None, scale: float,
         offset: int | mx.array, freqs: mx.array | None = None, stream: Any = None) -> mx.array:
    """``mx.fast.rope``, native on the CPU for float32 inputs of 3 or 4 axes."""
    if (_native(stream, a) and 3 <= a.ndim <= 4 and dims % 2 == 0
            and 0 < dims <= a.shape[-1] and (base is None) == (freqs is not None)
            and (freqs is None or (freqs.dtype == _F32 and freqs.shape == (dims // 2,)))):
        off = _offset(offset, a)
        if off is not None:
            return qkernels._ext.rope(  # noqa: SLF001
                a, dims, traditional, float(base or 1.0), float(scale), off, freqs)
    return _ORIGINAL["rope"](a, dims, traditional=traditional, base=base, scale=scale,
                             offset=offset, freqs=freqs, stream=stream)


def scaled_dot_product_attention(q: mx.array, k: mx.array, v: mx.array, *, scale: float,
                                 mask: None | str | mx.array = None,
                                 sinks: mx.array | None = None, stream: Any = None,
                                 **kwargs: Any) -> mx.array:
    """``mx.fast.scaled_dot_product_attention``, native on the CPU for short float32 queries."""
    array_mask = mask if isinstance(mask, mx.array) else None
    if (sinks is None and not kwargs and _native(stream, q) and k.dtype == _F32
            and v.dtype == _F32 and q.ndim == 4 and k.ndim == 4 and v.ndim == 4
            and (q.shape[2] <= MAX_QUERY or _TILED)
            and (mask is None or (isinstance(mask, str) and mask == "causal") or (
                array_mask is not None and array_mask.ndim <= 4
                and array_mask.dtype in (mx.bool_, mx.float32)))):
        causal = isinstance(mask, str)
        op = qkernels._ext.sdpa if q.shape[2] <= MAX_QUERY else qkernels._ext.sdpa_tiled  # noqa: SLF001
        try:
            return op(q, k, v, float(scale), array_mask, causal)
        except ValueError:  # shapes the op does not take (MLX's function says what is wrong)
            pass
    return _ORIGINAL["scaled_dot_product_attention"](
        q, k, v, scale=scale, mask=mask, sinks=sinks, stream=stream, **kwargs)


def argmax_last(x: mx.array) -> mx.array:
    """``mx.argmax(x, axis=-1)`` as uint32 (the first largest; a NaN counts as largest): native
    on the CPU for float32 while the ops are installed, its rows over the kernel's pool (MLX's
    argmax of 16 rows of Qwen2.5's 151936 logits takes ~4.9 ms, 33 times one row's)."""
    if (x.dtype == _F32 and x.ndim >= 1 and x.shape[-1] > 0 and mx.default_device() == _CPU
            and installed()):
        return qkernels._ext.argmax_last(x)  # noqa: SLF001
    return mx.argmax(x, axis=-1).astype(mx.uint32)


def swiglu(gate: mx.array, x: mx.array) -> mx.array:
    """mlx-lm's ``swiglu`` (``silu(gate) * x``), native on the CPU for float32 of one shape."""
    if (gate.dtype == _F32 and x.dtype == _F32 and gate.shape == x.shape
            and mx.default_device() == _CPU):
        return qkernels._ext.silu_mul(gate, x)  # noqa: SLF001
    return _SWIGLU(gate, x)


def _replace_swiglu(old: Any, new: Any) -> None:
    """``swiglu`` is ``new`` in mlx-lm's activations and in each loaded model module that held
    ``old`` (they import it by name)."""
    activations.swiglu = new
    for name, module in list(sys.modules.items()):
        if name.startswith("mlx_lm.models.") and getattr(module, "swiglu", None) is old:
            module.swiglu = new


def install(device: mx.Device | None = None, *, silu_gate: bool = True) -> bool:
    """Route ``mx.fast``'s RMSNorm, RoPE and attention (and, with ``silu_gate``, mlx-lm's
    ``swiglu``) through the native ops, when the device is the CPU and :func:`available`.
    Returns whether they are installed."""
    global _TILED
    device = device or mx.default_device()
    if device.type != mx.DeviceType.cpu or available() is not None:
        return installed()
    _TILED = tiled_available()
    if not installed():
        mx.fast.rms_norm = rms_norm
        mx.fast.rope = rope
        mx.fast.scaled_dot_product_attention = scaled_dot_product_attention
        log.info("native CPU ops: RMSNorm, RoPE, SiLU gate and attention (up to %d queries; "
                 "longer: %s) each one primitive", MAX_QUERY,
                 "tiled, online softmax" if _TILED else "MLX's graph")
    if silu_gate:  # also model modules imported since the last install
        _replace_swiglu(_SWIGLU, swiglu)
    else:
        _replace_swiglu(swiglu, _SWIGLU)
    return True


def uninstall() -> None:
    """Put MLX's own functions back."""
    for name, fn in _ORIGINAL.items():
        setattr(mx.fast, name, fn)
    _replace_swiglu(swiglu, _SWIGLU)
