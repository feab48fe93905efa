"""Sibling projections of one input as one matmul on the CPU: attention's q/k/v, the MLP's gate/up.

mlx-lm's models call ``q_proj(x)``, ``k_proj(x)`` and ``v_proj(x)`` (and ``gate_proj(x)``,
``up_proj(x)``) on the same ``x``: five matmuls per layer that each pay a dispatch, a pass of
the native kernel's set-up over ``x`` and a wake-up of the thread pool, and stream five short
weight matrices. vLLM and llama.cpp fuse them (``QKVParallelLinear``, ``MergedColumnParallel``;
one ``wqkv`` tensor); mlx-lm's model code cannot be changed from here, so the fusion happens
underneath it: the siblings' weights are concatenated (rows, so each sibling's part is a
contiguous row block) into one layer held by the parent module, and each sibling becomes a
:class:`SiblingLinear` that returns its column slice of the one product. The product is computed
for the first sibling called with a given ``x`` (the same array object) and dropped once every
sibling has taken its slice; a call with another input starts a new product, so results never
depend on the call pattern (an unusual one only costs extra matmuls).

Measured on the bench model (8 layers, 5 -> 2 matmuls per layer, interleaved): 4-bit batch 1
1.63 -> 1.34 ms, batch 16 6.69 -> 6.01 ms; float32 batch 1 4.79 -> 4.22 ms of those matmuls.
Applied at load on CPU devices to the engine's native layers (``ParallelLinearCPU``,
``QuantizedLinearCPU``) when the siblings agree (same class, input size, quantization and bias
presence); not when sharded. ``AFM_FUSED_LINEAR=0`` turns it off.

Quantized siblings of different formats (a GGUF file's Q8_0 or Q6_K ``v_proj`` beside Q5_0 or
Q4_K ``q_proj`` / ``k_proj``, as in Qwen2.5-Coder's Q4_K_M files) are fused at the widest one:
8 bits if any sibling has 8 (group sizes 32-128), else the planar 6 bits (group 16) or 5 bits
(group 32). Each code becomes the same code at more bits, each group's scale and bias are
repeated over the smaller groups, so the weights' values are unchanged (only the kernel's
summation order differs) for the wider codes' bytes.
"""

from __future__ import annotations

import copy
import os
from typing import Any

import mlx.core as mx
import mlx.nn as nn

from engine.parallel_linear import ParallelLinearCPU
from engine.qkernels import QuantizedLinearCPU

ENV = "AFM_FUSED_LINEAR"
SIBLINGS = (("q_proj", "k_proj", "v_proj"), ("gate_proj", "up_proj"))
_ROW_PARAMS = ("weight", "scales", "biases", "bias")  # concatenated along their first axis


def available() -> str | None:
    """None when fusion is on, else why not."""
    if os.environ.get(ENV, "").strip().lower() in ("0", "false", "off", "no"):
        return f"turned off by {ENV}"
    return None


class FusedProduct:
    """One layer holding the siblings' concatenated weights, and its last product."""

    def __init__(self, layer: nn.Module, bounds: list[tuple[int, int]]) -> None:
        self.layer = layer
        self.bounds = bounds
        self._x: mx.array | None = None
        self._y: mx.array | None = None
        self._left = 0

    def take(self, x: mx.array, index: int) -> mx.array:
        """Sibling ``index``'s output for ``x``."""
        lo, hi = self.bounds[index]
        if x is not self._x:  # a new input (any earlier one's product is dropped)
            self._x, self._y, self._left = x, self.layer(x), len(self.bounds)
        y = self._y[..., lo:hi]  # type: ignore[index]
        self._left -= 1
        if not self._left:  # every sibling has its slice: hold on to nothing
            self._x = self._y = None
        return y


class SiblingLinear(nn.Module):
    """A projection whose weights live in a :class:`FusedProduct` (held by the parent)."""

    def __init__(self, fused: FusedProduct, index: int, in_dims: int) -> None:
        super().__init__()
        object.__setattr__(self, "_fused", fused)  # not a child module: counted once
        self._index = index
        self._in_dims = in_dims

    def _extra_repr(self) -> str:
        lo, hi = self._fused.bounds[self._index]
        return f"input_dims={self._in_dims}, output_dims={hi - lo}, fused rows [{lo}, {hi})"

    def __call__(self, x: mx.array) -> mx.array:
        return self._fused.take(x, self._index)


def _signature(layer: Any) -> tuple[Any, ...] | None:
    """What siblings must share to be fused (a quantized layer's bits may differ: see
    :func:`_widened`); None for layers this module does not fuse."""
    if type(layer) is ParallelLinearCPU:
        return (ParallelLinearCPU, layer["weight"].shape[1], "bias" in layer,
                layer["weight"].dtype)
    if type(layer) is QuantizedLinearCPU:
        return (QuantizedLinearCPU, layer["weight"].shape[1] * 32 // layer.bits,
                "bias" in layer)
    return None


def widen_to_8_bits(w: mx.array) -> mx.array:
    """MLX's packed 4-bit codes (uint32 [N, K / 8], code k at bits 4 (k % 8) of word k // 8) as
    the same codes packed at 8 bits (uint32 [N, K / 4])."""
    shifts = mx.arange(0, 32, 4, dtype=mx.uint32)
    codes = (w[..., None] >> shifts) & mx.array(15, dtype=mx.uint32)  # [N, K / 8, 8]
    codes = codes.reshape(w.shape[0], -1, 4)  # [N, K / 4, 4]
    return (codes << mx.arange(0, 32, 8, dtype=mx.uint32)).sum(axis=-1).astype(mx.uint32)


def common_format(formats: set[tuple[int, int]]) -> tuple[int, int] | None:
    """The (bits, group size) every one of ``formats`` widens to without changing a value, or
    None: 8 bits at the smallest group (32-128) if any has 8 bits, else planar 6 bits (group 16)
    if any has 6, else planar 5 bits (group 32) if any has 5, else 4 bits at the smallest group."""
    bits = {b for b, _ in formats}
    group = min(g for _, g in formats)
    if any(g % group for _, g in formats):
        return None
    if 8 in bits:
        return (8, group) if group >= 32 else None
    if 6 in bits:
        return 6, 16
    if 5 in bits:
        return (5, 32) if group >= 32 else None
    return 4, group


def widen(layer: QuantizedLinearCPU, bits: int, group: int) -> QuantizedLinearCPU:
    """A copy of a native quantized layer at ``bits`` and ``group`` (a widening of its own:
    :func:`common_format`), holding the same values."""
    if (layer.bits, layer.group_size) == (bits, group):
        return layer
    if (layer.bits, bits) == (4, 8) and layer.group_size == group:
        w = widen_to_8_bits(layer["weight"])
    else:
        import numpy as np

        from engine.gguf_blocks import pack, unpack

        w = mx.array(pack(unpack(np.array(layer["weight"]), layer.bits), bits))
    out = copy.copy(layer)
    out.bits, out.group_size = bits, group
    out["weight"] = w
    reps = layer.group_size // group
    if reps > 1:
        out["scales"] = mx.repeat(layer["scales"], reps, axis=1)
        out["biases"] = mx.repeat(layer["biases"], reps, axis=1)
    return out


def _widened(layers: list[Any]) -> list[Any]:
    """Quantized siblings in one format (:func:`common_format`; [] when there is none)."""
    formats = {(la.bits, la.group_size) for la in layers} if \
        type(layers[0]) is QuantizedLinearCPU else set()
    if len(formats) <= 1:
        return layers
    target = common_format(formats)
    if target is None:
        return []
    return [widen(layer, *target) for layer in layers]


def _fuse(parent: nn.Module, names: tuple[str, ...]) -> bool:
    layers = [parent.get(name) for name in names]
    sigs = {_signature(layer) for layer in layers}
    if len(sigs) != 1 or None in sigs:
        return False
    layers = _widened(layers)
    if not layers:
        return False
    fused = copy.copy(layers[0])
    bounds, start = [], 0
    for layer in layers:
        rows = layer["weight"].shape[0]
        bounds.append((start, start + rows))
        start += rows
    for name in _ROW_PARAMS:
        if name in layers[0]:
            fused[name] = mx.concatenate([layer[name] for layer in layers], axis=0)
    mx.eval(fused.parameters())
    product = FusedProduct(fused, bounds)
    parent["afm_fused_" + "_".join(n.split("_")[0] for n in names)] = fused
    in_dims = int(layers[0]["weight"].shape[1])
    if type(layers[0]) is QuantizedLinearCPU:
        in_dims = in_dims * 32 // layers[0].bits
    for index, name in enumerate(names):
        parent[name] = SiblingLinear(product, index, in_dims)
    return True


def fuse_siblings(model: nn.Module) -> int:
    """Fuse every group of sibling projections the engine's CPU layers allow; the count."""
    if available() is not None:
        return 0
    count = 0
    for _, module in model.named_modules():
        for names in SIBLINGS:
            if all(isinstance(module.get(n), nn.Module) for n in names):
                count += _fuse(module, names)
    return count
