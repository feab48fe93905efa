"""A decode step's layers as one native op (engine.decode_stack): the same logits, bit for bit,
as the per-layer native route, for llama and qwen2 (biases) 4- and 8-bit models, one row and a
left-padded batch, across a KV buffer's growth and with either thread count; other calls
(prefill, float weights, quantized KV caches) keep the per-layer route."""

from __future__ import annotations

from typing import Any

import mlx.core as mx
import mlx.nn as nn
import pytest
from mlx_lm.models import llama, qwen2
from mlx_lm.models.cache import BatchKVCache, make_prompt_cache

from engine import decode_layers, decode_stack, fast_ops, fused_linear, parallel_linear, qkernels

pytestmark = pytest.mark.skipif(
    decode_stack.available() is not None or decode_layers.available() is not None
    or fast_ops.available() is not None, reason="needs the native extension")

SHAPE = dict(hidden_size=128, num_hidden_layers=3, intermediate_size=256, num_attention_heads=4,
             num_key_value_heads=2, rms_norm_eps=1e-5, vocab_size=384, rope_theta=10000.0,
             tie_word_embeddings=True)


def _model(kind: str, bits: int | None) -> nn.Module:
    mx.random.seed(11)
    mod: Any = llama if kind == "llama" else qwen2
    model = mod.Model(mod.ModelArgs(model_type=kind, **SHAPE))
    model.update(nn.utils.tree_map(lambda p: mx.random.normal(p.shape) * 0.2, model.parameters()))
    cpu = mx.Device(mx.cpu)
    if bits:
        nn.quantize(model, group_size=32 if bits == 4 else 64, bits=bits)
        assert qkernels.use_native_kernels(model, cpu) > 0
    else:
        assert parallel_linear.use_parallel_matmuls(model, cpu) > 0
    assert fused_linear.fuse_siblings(model) == 2 * SHAPE["num_hidden_layers"]
    assert fast_ops.install(cpu)
    assert decode_layers.install(model) == 2 * SHAPE["num_hidden_layers"]
    mx.eval(model.parameters())
    return model


def _run(model: nn.Module, lengths: list[int], steps: int) -> list[mx.array]:
    """Batched prefill (left-padded) and greedy decode steps, as the engine runs them."""
    longest = max(lengths)
    pads = [longest - n for n in lengths]
    cache = [BatchKVCache(pads) for _ in make_prompt_cache(model)]
    rows = [[0] * p + [(7 * i + 3 * j) % 300 + 2 for j in range(n)]
            for i, (p, n) in enumerate(zip(pads, lengths, strict=True))]
    inputs = mx.array(rows)
    model(inputs[:, :-1], cache=cache)
    logits = model(inputs[:, -1:], cache=cache)[:, -1, :]
    outs = [logits]
    for _ in range(steps):
        tok = mx.argmax(logits, axis=-1)
        logits = model(tok[:, None], cache=cache)[:, -1, :]
        mx.eval(logits)
        outs.append(logits)
    return outs


def _stack_calls(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The cache row of every step the one-op route takes from now on."""
    calls: list[int] = []
    real = decode_stack._DecodeStackModel._afm_stack  # noqa: SLF001

    def counting(self: Any, inputs: mx.array, cache: list[Any], plan: Any) -> mx.array:
        calls.append(cache[0]._idx)  # noqa: SLF001
        return real(self, inputs, cache, plan)

    monkeypatch.setattr(decode_stack._DecodeStackModel, "_afm_stack", counting)  # noqa: SLF001
    return calls


@pytest.mark.parametrize(("kind", "bits"), [("llama", 4), ("qwen2", 4), ("llama", 8)])
@pytest.mark.parametrize("lengths", [[250], [250, 9, 130]])
def test_stack_equals_per_layer_route(kind: str, bits: int, lengths: list[int],
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    model = _model(kind, bits)
    # 250 + 12 tokens: the 256-row buffer grows on the way (the per-layer route for that step)
    want = _run(model, lengths, 12)
    assert decode_stack.install(model) == 1
    calls = _stack_calls(monkeypatch)
    got = _run(model, lengths, 12)
    # every one-token call (the last prompt token too) but the one that grows the buffer
    assert len(calls) == 12 and 256 not in calls
    for a, b in zip(want, got, strict=True):
        assert mx.array_equal(a, b).item()
    assert decode_stack.uninstall(model) == 1
    assert not _stack_calls(monkeypatch) and _run(model, [5], 2)


@pytest.mark.parametrize("threads", [1, 2])
def test_thread_count_does_not_change_the_sums(threads: int) -> None:
    model = _model("qwen2", 4)
    want = _run(model, [20, 3], 4)
    assert decode_stack.install(model) == 1
    model.model.__dict__["_afm_stack_plan"].settings.update(threads=threads, poll_us=threads * 50)
    for a, b in zip(want, _run(model, [20, 3], 4), strict=True):
        assert mx.array_equal(a, b).item()


@pytest.mark.parametrize("threads", [2, 3])
def test_long_ranges_split_alike_on_both_routes_at_any_thread_count(threads: int) -> None:
    """Past ``kDecodeBlock`` (512) keys a row's decode attention is split into blocks merged by
    their softmax maxima: the stack on ``threads`` threads gives the bits of the per-layer
    route on one (the split depends on the row's keys alone)."""
    model = _model("llama", 4)
    lengths = [1100, 530, 40]  # three blocks, two, one (left-padded: each row's own keys)
    try:
        qkernels.set_num_threads(1)
        want = _run(model, lengths, 3)
        assert decode_stack.install(model) == 1
        qkernels.set_num_threads(threads)
        got = _run(model, lengths, 3)
    finally:
        qkernels.set_num_threads(0)
    for a, b in zip(want, got, strict=True):
        assert mx.array_equal(a, b).item()


def test_float_weights_and_quantized_kv_keep_the_per_layer_route(
        monkeypatch: pytest.MonkeyPatch) -> None:
    assert decode_stack.install(_model("llama", None)) == 0  # float32 products: no plan
    model = _model("llama", 4)
    assert decode_stack.install(model) == 1
    calls = _stack_calls(monkeypatch)
    cache = make_prompt_cache(model)  # plain KVCache (a single sequence outside the batch)
    model(mx.array([[3, 4, 5]]), cache=cache)
    model(mx.array([[6]]), cache=cache)
    assert calls == []


def test_bad_shapes_are_refused() -> None:
    model = _model("llama", 4)
    assert decode_stack.install(model) == 1
    plan = model.model.__dict__["_afm_stack_plan"]
    h = mx.zeros((1, 1, 128))
    pos = mx.array([3], dtype=mx.int32)
    buffers = [mx.zeros((1, 2, 8, 32)) for _ in range(2 * len(plan.layers))]
    ext = qkernels._ext  # noqa: SLF001
    # the weights once, when the plan is made; the rest every step
    with pytest.raises(ValueError, match="number of layer weights"):
        ext.decode_stack_plan(plan.weights[:-1], **plan.settings)
    narrow = mx.zeros((7,))  # a first norm of another width
    mx.eval(narrow)
    with pytest.raises(ValueError, match="map D"):
        ext.decode_stack_plan([narrow, *plan.weights[1:]], **plan.settings)
    with pytest.raises(ValueError, match="cache row"):
        plan.handle.step(h, pos, pos, buffers, 8, [])
    with pytest.raises(ValueError, match="keys and values of every layer"):
        plan.handle.step(h, pos, pos, buffers[:-1], 1, [])
    with pytest.raises(ValueError, match="hidden size"):
        plan.handle.step(mx.zeros((1, 1, 64)), pos, pos, buffers, 1, [])


def test_widened_codes_dequantize_to_the_same_weights() -> None:
    w = mx.random.normal((64, 128), key=mx.random.key(3))
    q, scales, biases = mx.quantize(w, group_size=32, bits=4)
    wide = fused_linear.widen_to_8_bits(q)
    assert wide.shape == (64, 32)
    assert mx.array_equal(mx.dequantize(q, scales, biases, group_size=32, bits=4),
                          mx.dequantize(wide, scales, biases, group_size=32, bits=8)).item()


def test_mixed_bit_siblings_fuse_at_8_bits_and_take_the_stack(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A GGUF Q4_K_M file's Q8_0 v_proj beside 4-bit q/k (Qwen2.5-Coder): fused at 8 bits, so
    the native decode layers and the one-op step cover every layer."""
    mx.random.seed(5)
    args = qwen2.ModelArgs(model_type="qwen2", **SHAPE)
    plain, model = qwen2.Model(args), qwen2.Model(args)
    params = nn.utils.tree_map(lambda p: mx.random.normal(p.shape) * 0.2, plain.parameters())
    cpu = mx.Device(mx.cpu)
    for m in (plain, model):
        m.update(params)
        nn.quantize(m, group_size=32, bits=4, class_predicate=lambda path, mod: (
            hasattr(mod, "to_quantized")
            and ({"group_size": 32, "bits": 8} if path.endswith("v_proj") else True)))
        assert qkernels.use_native_kernels(m, cpu) > 0
    assert fused_linear.fuse_siblings(model) == 2 * SHAPE["num_hidden_layers"]
    assert model.model.layers[0].self_attn.afm_fused_q_k_v.bits == 8
    assert fast_ops.install(cpu)
    assert decode_layers.install(model) == 2 * SHAPE["num_hidden_layers"]
    assert decode_stack.install(model) == 1
    calls = _stack_calls(monkeypatch)
    want, got = _run(plain, [12, 4], 3), _run(model, [12, 4], 3)
    assert len(calls) == 4
    for a, b in zip(want, got, strict=True):  # the same weights, summed in another order
        assert mx.allclose(a, b, rtol=1e-4, atol=1e-4).item()


def test_a_kept_slice_survives_a_trim_and_steady_steps_write_in_place() -> None:
    """Steps after the first write each cache buffer in place, pipelined as the engine runs
    them; after a trim (a speculative rollback) a slice kept of the rows the next step writes
    again still reads what it read (the buffer is copied that once)."""
    model = _model("llama", 4)
    assert decode_stack.install(model) == 1
    ext = qkernels._ext  # noqa: SLF001
    cache = [BatchKVCache([0]) for _ in make_prompt_cache(model)]
    tok = mx.argmax(model(mx.array([[3, 4, 5, 6]]), cache=cache)[:, -1, :], axis=-1)
    mx.eval(tok)
    copies = ext.decode_stack_copies()
    pending = None
    for _ in range(8):  # step k + 1 is built and launched before step k is read
        nxt = mx.argmax(model(tok[:, None], cache=cache)[:, -1, :], axis=-1)
        mx.async_eval(nxt)
        if pending is not None:
            pending.tolist()
        pending, tok = nxt, nxt
    pending.tolist()
    assert ext.decode_stack_copies() - copies <= 2 * len(cache)  # the first step at most
    idx = cache[0]._idx  # noqa: SLF001
    kept = cache[0].keys[:, :, : idx, :]  # e.g. the prefix cache's copy of a finished row
    mx.eval(kept)
    before = mx.array(kept.tolist())
    for c in cache:
        c.trim(2)
    copies = ext.decode_stack_copies()
    mx.eval(model(mx.array([[8]]), cache=cache))
    assert ext.decode_stack_copies() - copies == 1  # the one buffer a slice shares
    assert mx.array_equal(kept, before).item()
    assert not mx.array_equal(cache[0].keys[:, :, idx - 2], before[:, :, idx - 2]).item()
