"""A decode step's attention and MLP as a few native ops per layer (llama and qwen2 on the CPU).

After :mod:`engine.fused_linear` and :mod:`engine.fast_ops`, a decode step of the 30-layer
SmolLM2-135M was still 938 MLX graph nodes, 31 per layer: the fused q/k/v product cut into three
slices, reshaped and transposed (4 + 4), two RoPEs, the BatchKVCache's two slice updates and two
slices of its buffers, the offset update, attention, the output's transpose and reshape, and the
MLP's gate/up product cut in two. On MLX's CPU backend every node costs a dispatch, an allocation
and Python graph-building time (~10 us a node measured, on top of its work), so a deep, narrow
model spends much of a step on them. Here, for one query per row against a ``BatchKVCache`` (the
engine's decode batch), one layer's attention is three primitives
(``engine._afm_qmm.kv_append`` for keys, rotated, and for values, writing the new row into the
cache's buffer in place when MLX can donate it, as its slice update does; then
``decode_attention``: RoPE of the queries and attention over the buffer's rows with the cache's
left-padding mask) and the MLP's SiLU gate reads the fused gate/up product directly
(``silu_mul_halves``): 16 nodes a layer. The ops call the same kernels as the native RoPE,
attention and SiLU gate of :mod:`engine.fast_ops` in the same order, so outputs are unchanged
bit for bit (``tests/test_decode_layers.py``).

:func:`install` changes the class of each covered attention and MLP module to a subclass whose
``__call__`` takes the native route when it applies and calls mlx-lm's otherwise (prefill, other
caches, a buffer that must grow, another dtype or device): covered are mlx-lm's ``llama`` and
``qwen2`` ``Attention`` (plain ``nn.RoPE``, q/k/v fused) and ``MLP`` (gate/up fused). Applied at
load on CPU devices after fusion (not when sharded); ``AFM_DECODE_LAYERS=0`` turns it off.
"""

from __future__ import annotations

import os
from typing import Any

import mlx.core as mx
import mlx.nn as nn
from mlx_lm.models.cache import BatchKVCache

from engine import qkernels

ENV = "AFM_DECODE_LAYERS"
_CPU = mx.Device(mx.cpu)
_F32 = mx.float32


def available() -> str | None:
    """None when the native decode layers can run in this process, else why not."""
    if os.environ.get(ENV, "").strip().lower() in ("0", "false", "off", "no"):
        return f"turned off by {ENV}"
    ext = qkernels._ext  # noqa: SLF001 - the extension module, when built
    if ext is None or not hasattr(ext, "decode_attention"):
        return "native extension not loaded or predates the decode ops"
    return None


def _covered_classes() -> tuple[set[type], set[type]]:
    from mlx_lm.models import llama, qwen2

    return {llama.Attention, qwen2.Attention}, {llama.MLP, qwen2.MLP}


def _fused_qkv(attn: Any) -> Any | None:
    """The attention's fused q/k/v layer when its bounds are q, k, v in order, else None."""
    fused = attn.get("afm_fused_q_k_v") if isinstance(attn, nn.Module) else None
    q = attn.get("q_proj")
    product = getattr(q, "_fused", None)
    if fused is None or product is None or product.layer is not fused:
        return None
    d = attn.head_dim if hasattr(attn, "head_dim") else None
    hq, hkv = attn.n_heads, attn.n_kv_heads
    if d is None:
        d = (product.bounds[0][1] - product.bounds[0][0]) // hq
    want = [(0, hq * d), (hq * d, (hq + hkv) * d), ((hq + hkv) * d, (hq + 2 * hkv) * d)]
    return fused if product.bounds == want else None


class _DecodeAttention:
    """Mixed into a covered attention class: the native route for one query per row."""

    def __call__(self, x: mx.array, mask: Any = None, cache: Any = None) -> mx.array:
        me: Any = self
        if (x.ndim == 3 and x.shape[1] == 1 and type(cache) is BatchKVCache
                and cache.keys is not None and cache._idx < cache.keys.shape[2]  # noqa: SLF001
                and x.dtype == _F32 and cache.keys.dtype == _F32 and cache.values.dtype == _F32
                and isinstance(mask, mx.array) and mx.default_device() == _CPU):
            return me._afm_decode(x, cache)
        return super().__call__(x, mask=mask, cache=cache)  # type: ignore[misc]

    def _afm_decode(self, x: mx.array, cache: BatchKVCache) -> mx.array:
        me: Any = self
        ext = qkernels._ext  # noqa: SLF001
        rope = me.rope
        hq, hkv = me.n_heads, me.n_kv_heads
        qkv = me.afm_fused_q_k_v(x)
        d = cache.keys.shape[3]
        pos = cache.offset if cache.offset.dtype == mx.int32 else cache.offset.astype(mx.int32)
        start = cache.left_padding
        if start.dtype != mx.int32:
            start = start.astype(mx.int32)
        idx = cache._idx  # noqa: SLF001
        args = (rope.dims, rope.traditional, float(rope.base), float(rope.scale))
        keys = ext.kv_append(cache.keys, qkv, hq * d, idx, pos, *args)
        values = ext.kv_append(cache.values, qkv, (hq + hkv) * d, idx, None, *args)
        # the cache now holds the new buffers only, so MLX may donate the old ones to them
        cache.keys, cache.values = keys, values
        cache.offset = cache.offset + 1
        cache._idx = idx + 1  # noqa: SLF001
        out = ext.decode_attention(qkv, keys, values, pos, start, hq, idx + 1, float(me.scale),
                                   *args)
        return me.o_proj(out)


class _GateUpMLP:
    """Mixed into a covered MLP class: the SiLU gate reads the fused gate/up product."""

    def __call__(self, x: mx.array) -> mx.array:
        me: Any = self
        if x.dtype == _F32 and mx.default_device() == _CPU:
            y = me.afm_fused_gate_up(x)
            if y.dtype == _F32:
                return me.down_proj(qkernels._ext.silu_mul_halves(y))  # noqa: SLF001
        return super().__call__(x)  # type: ignore[misc]


_SUBCLASSES: dict[type, type] = {}


def _subclass(cls: type, mixin: type) -> type:
    sub = _SUBCLASSES.get(cls)
    if sub is None:
        sub = type(f"Afm{cls.__name__}", (mixin, cls), {"__module__": __name__})
        _SUBCLASSES[cls] = sub
    return sub


def _gate_up_fused(mlp: Any) -> bool:
    fused = mlp.get("afm_fused_gate_up")
    product = getattr(mlp.get("gate_proj"), "_fused", None)
    if fused is None or product is None or product.layer is not fused:
        return False
    (g0, g1), (u0, u1) = product.bounds
    return g0 == 0 and g1 == u0 and u1 - u0 == g1 - g0


def install(model: nn.Module) -> int:
    """Give each covered attention and MLP module of ``model`` the native decode route; the
    count of modules changed (0 when :func:`available` says no)."""
    if available() is not None:
        return 0
    attention, mlp = _covered_classes()
    count = 0
    for _, module in model.named_modules():
        cls = type(module)
        if cls in attention and _fused_qkv(module) is not None and type(module.rope) is nn.RoPE:
            module.__class__ = _subclass(cls, _DecodeAttention)
            count += 1
        elif cls in mlp and _gate_up_fused(module):
            module.__class__ = _subclass(cls, _GateUpMLP)
            count += 1
    return count


def uninstall(model: nn.Module) -> int:
    """Give the modules :func:`install` changed their mlx-lm class back; the count."""
    return restore_classes(model, _SUBCLASSES)


def restore_classes(model: nn.Module, subclasses: dict[type, type], *state: str) -> int:
    """Give ``model``'s modules whose class is one of ``subclasses``' values (a subclass of an
    mlx-lm class with a mixin first) their mlx-lm class back, dropping the ``state`` attributes
    the install kept on them; the count."""
    count = 0
    for _, module in model.named_modules():
        if type(module) in subclasses.values():
            module.__class__ = type(module).__mro__[2]  # (subclass, mixin, mlx-lm's class)
            for name in state:
                module.__dict__.pop(name, None)
            count += 1
    return count
