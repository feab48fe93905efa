"""A decode step's transformer layers as one native op (llama and qwen2 on the CPU).

With :mod:`engine.decode_layers` a decode step of the 30-layer SmolLM2-135M is still 428 MLX
graph nodes (about 14 a layer). On MLX's CPU backend each node costs a dispatch, an allocation
and Python graph-building time, and each one's work is too small to split over both cores: a
step took 22 ms where llama.cpp's two threads take 12. Here the inner model's ``__call__``
(mlx-lm's ``LlamaModel`` / ``Qwen2Model``) runs every layer of a one-token-per-row step as one
primitive (``engine._afm_qmm.decode_stack_plan``): the same kernels as the per-layer route in
the same order (logits bit-identical, ``tests/test_decode_stack.py``), the products split over the
kernel's thread pool, whose workers poll between them instead of sleeping. The embedding, the
final norm and the LM head stay ordinary ops. Measured on that model: 12-14 ms a step instead of
21-22 at one row, 11 graph nodes (``tools/bench_step.py --variants layers stack``). The weights
and shape are checked and handed to the extension once, at install (``decode_stack_plan``); a
step passes the hidden state, the positions and the KV buffers (``DecodeStackPlan.step``):
converting the ~400 weight arrays of a 30-layer model from Python every step took 0.25 ms.

Each layer's KV buffer is written in place (row ``idx`` only, past every row a reader of the
cache before the step reads): the op's own buffers of the step before when the cache was not
trimmed since (marked on the cache), or any buffer nothing else shares; a buffer that may be
shared (a slice kept by the prefix cache across a speculative rollback) is copied first.

It applies when every layer took the native decode layers (fused q/k/v and gate/up, all four
products on the native quantized kernel, plain RoPE), the cache is the engine's
``BatchKVCache`` with room for the new row, and the input is one token per row; anything else
(prefill, a buffer that must grow, quantized KV caches, float weights) takes the per-layer route.
``AFM_DECODE_STACK=0`` turns it off; ``AFM_DECODE_STACK_THREADS`` sets the threads of its
products (default: all cores) and ``AFM_DECODE_STACK_POLL_US`` how long the pool's idle workers
poll for the next one (default 50).
"""

from __future__ import annotations

import os
from typing import Any

import mlx.core as mx
import mlx.nn as nn
from mlx_lm.models.cache import BatchKVCache

from engine import decode_layers, qkernels
from engine.qkernels import QuantizedLinearCPU

ENV = "AFM_DECODE_STACK"
THREADS_ENV = "AFM_DECODE_STACK_THREADS"  # threads for its products (default: all cores)
POLL_ENV = "AFM_DECODE_STACK_POLL_US"  # how long idle pool workers poll between them
_MARK = "_afm_stack_out"  # on a cache: (keys, values, row) this op wrote last
_CPU = mx.Device(mx.cpu)


def available() -> str | None:
    """None when the stack can run in this process, else why not."""
    if os.environ.get(ENV, "").strip().lower() in ("0", "false", "off", "no"):
        return f"turned off by {ENV}"
    ext = qkernels._ext  # noqa: SLF001 - the extension module, when built
    if ext is None or not hasattr(ext, "decode_stack_plan"):
        return "native extension not loaded or predates decode_stack_plan"
    return None


class _Plan:
    """Each layer's arrays, the op's settings and the extension's checked plan of them."""

    def __init__(self, layers: list[list[mx.array]], settings: dict[str, Any],
                 first: mx.array) -> None:
        self.layers = layers
        self.weights = [a for layer in layers for a in layer]
        self.settings = settings
        self.first = first  # the first layer's qkv weight: a changed model invalidates the plan
        mx.eval(self.weights)  # the op reads them as buffers (fused ones may still be lazy)
        # raises ValueError when the weights do not fit the settings
        self.handle = qkernels._ext.decode_stack_plan(self.weights, **settings)  # noqa: SLF001


def _product(layer: Any) -> tuple[list[mx.array], int, int, bool] | None:
    if not isinstance(layer, QuantizedLinearCPU):
        return None
    arrays = [layer["weight"], layer["scales"], layer["biases"]]
    has_bias = "bias" in layer
    if has_bias:
        arrays.append(layer["bias"])
    return arrays, layer.group_size, layer.bits, has_bias


def _plan(inner: Any) -> _Plan | None:
    """The plan for ``inner``'s layers, or None when some layer does not qualify."""
    covered = set(decode_layers._SUBCLASSES.values())  # noqa: SLF001
    layers, group_sizes, bits, flags = [], [], [], None
    first_attn = None
    for block in inner.layers:
        attn, mlp = block.self_attn, block.mlp
        if type(attn) not in covered or type(mlp) not in covered:
            return None
        norms = (block.input_layernorm, block.post_attention_layernorm)
        if any(type(n) is not nn.RMSNorm or "weight" not in n for n in norms):
            return None
        parts = [_product(attn.afm_fused_q_k_v), _product(attn.o_proj),
                 _product(mlp.afm_fused_gate_up), _product(mlp.down_proj)]
        if any(p is None for p in parts):
            return None
        these = tuple(p[3] for p in parts)  # type: ignore[index]
        if flags is None:
            flags = these
        elif these != flags:
            return None
        eps = {float(n.eps) for n in norms}
        if first_attn is None:
            first_attn = (attn, block.input_layernorm.eps)
        if eps != {float(first_attn[1])} or (attn.n_heads, attn.n_kv_heads) != (
                first_attn[0].n_heads, first_attn[0].n_kv_heads):
            return None
        arrays = [block.input_layernorm["weight"], *parts[0][0], *parts[1][0],  # type: ignore[index]
                  block.post_attention_layernorm["weight"], *parts[2][0], *parts[3][0]]  # type: ignore[index]
        layers.append(arrays)
        for p in parts:
            group_sizes.append(p[1])  # type: ignore[index]
            bits.append(p[2])  # type: ignore[index]
    if not layers or first_attn is None or flags is None:
        return None
    attn = first_attn[0]
    rope = attn.rope
    head_dim = attn.afm_fused_q_k_v["weight"].shape[0] // (attn.n_heads + 2 * attn.n_kv_heads)
    settings = dict(
        layers=len(layers), n_heads=attn.n_heads, n_kv_heads=attn.n_kv_heads,
        head_dim=head_dim, attn_scale=float(attn.scale), eps=float(first_attn[1]),
        rope_dims=int(rope.dims), rope_traditional=bool(rope.traditional),
        rope_base=float(rope.base), rope_scale=float(rope.scale),
        qkv_bias=flags[0], o_bias=flags[1], gate_up_bias=flags[2], down_bias=flags[3],
        group_sizes=group_sizes, bits=bits)
    for env, key in ((THREADS_ENV, "threads"), (POLL_ENV, "poll_us")):
        raw = os.environ.get(env, "").strip()
        if raw.isdigit():
            settings[key] = int(raw)
    try:
        return _Plan(layers, settings, layers[0][1])
    except ValueError:  # a layer the op cannot take: the per-layer route runs them all
        return None


class _DecodeStackModel:
    """Mixed into a covered inner model class: the stack for one token per row."""

    def __call__(self, inputs: mx.array, cache: Any = None,
                 input_embeddings: mx.array | None = None) -> mx.array:
        me: Any = self
        plan = me.__dict__.get("_afm_stack_plan")
        if (plan is not None and input_embeddings is None and inputs.ndim == 2
                and inputs.shape[1] == 1 and cache is not None
                and len(cache) == len(plan.layers) and mx.default_device() == _CPU
                and _fits(cache)
                and plan.first is me.layers[0].self_attn.afm_fused_q_k_v["weight"]):
            return me._afm_stack(inputs, cache, plan)
        return super().__call__(inputs, cache=cache, input_embeddings=input_embeddings)  # type: ignore[misc]

    def _afm_stack(self, inputs: mx.array, cache: list[BatchKVCache], plan: _Plan) -> mx.array:
        me: Any = self
        h = me.embed_tokens(inputs)
        c0 = cache[0]
        pos = c0.offset if c0.offset.dtype == mx.int32 else c0.offset.astype(mx.int32)
        start = c0.left_padding
        if start.dtype != mx.int32:
            start = start.astype(mx.int32)
        idx = c0._idx  # noqa: SLF001
        buffers: list[mx.array] = []
        in_place = []
        for c in cache:
            buffers.append(c.keys)
            buffers.append(c.values)
            # this op's own buffers of the step before, not trimmed since: row idx is past
            # every row anyone kept (a trim would have moved _idx back under them)
            mine = c.__dict__.get(_MARK)
            in_place.append(mine is not None and mine[0] is c.keys and mine[1] is c.values
                            and mine[2] == idx)
        out, copied = plan.handle.step(h, pos, start, buffers, idx, in_place)
        del buffers
        offset = c0.offset + 1
        for i, c in enumerate(cache):
            if copied:  # written into copies of these buffers (rare): the cache takes them
                c.keys = copied.get(2 * i, c.keys)
                c.values = copied.get(2 * i + 1, c.values)
            c.offset = offset
            c._idx = idx + 1  # noqa: SLF001
            c.__dict__[_MARK] = (c.keys, c.values, idx + 1)
        return me.norm(out)


def _fits(cache: list[Any]) -> bool:
    """Every layer's cache is a float32 BatchKVCache at the same row, with room for one more."""
    c0 = cache[0]
    if type(c0) is not BatchKVCache or c0.keys is None:
        return False
    idx = c0._idx  # noqa: SLF001
    if idx >= c0.keys.shape[2] or c0.keys.dtype != mx.float32:
        return False
    for c in cache:
        if (type(c) is not BatchKVCache or c._idx != idx or c.keys is None  # noqa: SLF001
                or c.keys.shape[2] <= idx):
            return False
    return True


_SUBCLASSES: dict[type, type] = {}


def _inner_models(model: nn.Module) -> list[Any]:
    from mlx_lm.models import llama, qwen2

    def covered(module: Any) -> bool:
        if type(module) is llama.LlamaModel:
            return getattr(module, "swa_idx", None) is None  # no sliding-window layers
        return type(module) is qwen2.Qwen2Model and getattr(module, "pipeline_size", 1) == 1

    return [module for _, module in model.named_modules() if covered(module)]


def install(model: nn.Module) -> int:
    """Give ``model``'s inner llama / qwen2 model the one-op decode step when every layer
    qualifies (after :func:`engine.decode_layers.install`); the count changed (0 or 1)."""
    if available() is not None:
        return 0
    count = 0
    for inner in _inner_models(model):
        plan = _plan(inner)
        if plan is None:
            continue
        cls = type(inner)
        sub = _SUBCLASSES.get(cls)
        if sub is None:
            sub = type(f"Afm{cls.__name__}", (_DecodeStackModel, cls), {"__module__": __name__})
            _SUBCLASSES[cls] = sub
        inner.__class__ = sub
        object.__setattr__(inner, "_afm_stack_plan", plan)
        count += 1
    return count


def uninstall(model: nn.Module) -> int:
    """Give the inner models :func:`install` changed their mlx-lm class back; the count."""
    return decode_layers.restore_classes(model, _SUBCLASSES, "_afm_stack_plan")
