"""Decode-step attention and MLP as native layer ops (engine.decode_layers): the same logits, bit
for bit, as mlx-lm's layers over the native RoPE / attention / SiLU gate, for llama and qwen2
shapes, float32 and 4-bit, a left-padded batch, across a KV buffer's growth; other calls (plain
caches, prefill) keep mlx-lm's route."""

from __future__ import annotations

from typing import Any

import mlx.core as mx
import mlx.nn as nn
import pytest
from mlx_lm.models import llama, qwen2
from mlx_lm.models.cache import BatchKVCache, make_prompt_cache

from engine import decode_layers, fast_ops, fused_linear, parallel_linear, qkernels

pytestmark = pytest.mark.skipif(
    decode_layers.available() is not None or parallel_linear.available() is not None
    or fast_ops.available() is not None, reason="needs the native extension and a fast BLAS")

SHAPE = dict(hidden_size=128, num_hidden_layers=2, intermediate_size=256, num_attention_heads=4,
             num_key_value_heads=2, rms_norm_eps=1e-5, vocab_size=384, rope_theta=10000.0,
             tie_word_embeddings=True)


def _model(kind: str, bits: int | None) -> nn.Module:
    mx.random.seed(7)
    mod: Any = llama if kind == "llama" else qwen2
    model = mod.Model(mod.ModelArgs(model_type=kind, **SHAPE))
    model.update(nn.utils.tree_map(lambda p: mx.random.normal(p.shape) * 0.2, model.parameters()))
    cpu = mx.Device(mx.cpu)
    if bits:
        nn.quantize(model, group_size=32, bits=bits)
        assert qkernels.use_native_kernels(model, cpu) > 0
    else:
        assert parallel_linear.use_parallel_matmuls(model, cpu) > 0
    assert fused_linear.fuse_siblings(model) == 4
    assert fast_ops.install(cpu)
    mx.eval(model.parameters())
    return model


def _run(model: nn.Module, lengths: list[int], steps: int,
         forced: list[mx.array] | None = None) -> tuple[list[mx.array], list[mx.array]]:
    """Batched prefill (left-padded) and greedy decode steps, as the engine runs them; with
    ``forced``, those tokens are fed instead (so two routes see the same inputs)."""
    longest = max(lengths)
    pads = [longest - n for n in lengths]
    cache = [BatchKVCache(pads) for _ in make_prompt_cache(model)]
    rows = [[0] * p + [(5 * i + 3 * j) % 300 + 2 for j in range(n)]
            for i, (p, n) in enumerate(zip(pads, lengths, strict=True))]
    inputs = mx.array(rows)
    model(inputs[:, :-1], cache=cache)
    logits = model(inputs[:, -1:], cache=cache)[:, -1, :]
    outs, fed = [logits], []
    for i in range(steps):
        tok = forced[i] if forced is not None else mx.argmax(logits, axis=-1)
        fed.append(tok)
        logits = model(tok[:, None], cache=cache)[:, -1, :]
        mx.eval(logits)
        outs.append(logits)
    return outs, fed


@pytest.mark.parametrize(("kind", "bits"), [("llama", None), ("llama", 4), ("qwen2", None)])
def test_native_decode_layers_equal_mlx_lm_layers(kind: str, bits: int | None,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    model = _model(kind, bits)
    assert decode_layers.install(model) == 4  # attention and MLP of both layers
    calls = []
    real = qkernels._ext.decode_attention  # noqa: SLF001

    def counting(*args: Any) -> mx.array:
        calls.append(args[6])  # n_keys
        return real(*args)

    monkeypatch.setattr(qkernels._ext, "decode_attention", counting)  # noqa: SLF001
    # 250 + 12 tokens: the BatchKVCache's 256-row buffer grows on the way (mlx-lm's route
    # for that step, the native one after)
    # one-token calls: the prompts' last token and each step, but the one that grows the buffer
    for lengths, steps, native in (([9], 6, 7), ([20, 5, 13], 5, 6), ([250, 3], 12, 12)):
        calls.clear()
        fast, fed = _run(model, lengths, steps)
        assert len(calls) == 2 * native  # two layers
        assert decode_layers.uninstall(model) == 4
        ref, _ = _run(model, lengths, steps, fed)
        assert decode_layers.install(model) == 4
        for a, b in zip(fast, ref, strict=True):
            assert mx.array_equal(a, b), float(mx.abs(a - b).max())


def test_plain_cache_and_prefill_keep_mlx_lm_route(monkeypatch: pytest.MonkeyPatch) -> None:
    model = _model("llama", None)
    decode_layers.install(model)
    calls = []
    monkeypatch.setattr(qkernels._ext, "decode_attention",  # noqa: SLF001
                        lambda *a: calls.append(a))
    cache = make_prompt_cache(model)  # a plain KVCache (one prompt prefilled alone)
    logits = model(mx.array([[3, 4, 5, 6]]), cache=cache)
    logits = model(mx.argmax(logits[:, -1, :], axis=-1)[:, None], cache=cache)
    mx.eval(logits)
    assert calls == []
    assert decode_layers.uninstall(model) == 4
