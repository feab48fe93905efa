"""Native RMSNorm, RoPE, SiLU gate and attention (engine.fast_ops): the same values as MLX's own
``mx.fast`` functions and mlx-lm's ``swiglu`` (their CPU kernels are the reference) on both
instruction-set paths, the routing of ``mx.fast`` and ``swiglu`` once installed, and a real
model's greedy tokens with and without them."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import mlx.core as mx
import pytest
from mlx_lm import load as mlx_load
from mlx_lm.models import activations
from mlx_lm.models.cache import make_prompt_cache

from engine import fast_ops, qkernels
from tests.conftest import LiveServer

pytestmark = pytest.mark.skipif(fast_ops.available() is not None,
                                reason=f"native fast ops unavailable: {fast_ops.available()}")

REF_RMS = fast_ops._ORIGINAL["rms_norm"]  # noqa: SLF001 - MLX's own functions, the reference
REF_ROPE = fast_ops._ORIGINAL["rope"]  # noqa: SLF001
REF_SDPA = fast_ops._ORIGINAL["scaled_dot_product_attention"]  # noqa: SLF001
REF_SWIGLU = fast_ops._SWIGLU  # noqa: SLF001 - mlx-lm's compiled silu(gate) * x
CPU = mx.Device(mx.cpu)
ISAS = [i for i in ("avx2", "portable") if i in qkernels.supported_isas()]
# long-query attention has its own AVX-512 and AVX2 kernels (attn_panels.h): its tests run each
TILED_ISAS = [i for i in ("avx512", "avx2", "portable") if i in qkernels.supported_isas()]


def _with_isa(name: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    monkeypatch.setenv("AFM_QMM_ISA", name)
    qkernels.reload_environment()
    qkernels.set_num_threads(2)
    yield name
    qkernels.set_num_threads(0)
    monkeypatch.undo()
    qkernels.reload_environment()


@pytest.fixture(params=ISAS)
def isa(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Each kernel path in turn (AFM_QMM_ISA, handed to the extension)."""
    yield from _with_isa(request.param, monkeypatch)


@pytest.fixture(params=TILED_ISAS)
def tiled_isa(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Each path of the long-query attention op in turn (AVX-512 panels, BLAS tiles)."""
    yield from _with_isa(request.param, monkeypatch)


def _diff(a: mx.array, b: mx.array) -> float:
    assert a.shape == b.shape and a.dtype == b.dtype == mx.float32
    return mx.abs(a - b).max().item() if a.size else 0.0


def _key(*n: int) -> mx.array:
    return mx.random.key(sum(v * 7919 ** i for i, v in enumerate(n)) % 2**31)


@pytest.mark.parametrize("shape", [(1,), (7,), (3, 5, 512), (2, 1, 96), (4, 2, 3, 64), (0, 64)])
@pytest.mark.parametrize("weighted", [True, False])
def test_rms_norm_matches_mlx(isa: str, shape: tuple[int, ...], weighted: bool) -> None:
    x = mx.random.normal(shape, key=_key(*shape)) * 3
    w = mx.random.normal((shape[-1],), key=_key(9, *shape)) if weighted else None
    assert _diff(fast_ops.rms_norm(x, w, 1e-6), REF_RMS(x, w, 1e-6)) <= 1e-5


def test_rms_norm_strided_input(isa: str) -> None:
    x = mx.random.normal((64, 6), key=_key(1)).T  # last axis not contiguous
    w = mx.random.normal((64,), key=_key(2))
    assert _diff(fast_ops.rms_norm(x, w, 1e-5), REF_RMS(x, w, 1e-5)) <= 1e-5
    y = mx.random.normal((5, 8, 3, 32), key=_key(3)).transpose(0, 2, 1, 3)  # q = k.T layout
    assert _diff(fast_ops.rms_norm(y, None, 1e-5), REF_RMS(y, None, 1e-5)) <= 1e-5


OFFSETS = {"int": 0, "big int": 3000, "scalar array": mx.array(17),
           "per row": mx.array([3, 0, 250])}


@pytest.mark.parametrize("offset", list(OFFSETS))
@pytest.mark.parametrize("traditional", [False, True])
@pytest.mark.parametrize("shape,dims", [((3, 8, 5, 64), 64), ((3, 4, 1, 128), 96),
                                        ((3, 7, 32), 32), ((3, 2, 9, 80), 80)])
def test_rope_matches_mlx(isa: str, offset: str, traditional: bool, shape: tuple[int, ...],
                          dims: int) -> None:
    x = mx.random.normal(shape, key=_key(*shape, dims))
    off = OFFSETS[offset]
    kw = {"traditional": traditional, "base": 1e6, "scale": 1.0, "offset": off}
    # float32 angles (position x frequency) differ by their rounding: ~1.2e-7 x position rad
    top = (off if isinstance(off, int) else int(mx.max(off).item())) + shape[-2]
    tol = 1e-5 + 2.4e-7 * top
    assert _diff(fast_ops.rope(x, dims, **kw), REF_ROPE(x, dims, **kw)) <= tol


def test_rope_strided_scaled_and_freqs(isa: str) -> None:
    x = mx.random.normal((1, 11, 64), key=_key(4))
    kw = {"traditional": False, "base": 10000.0, "scale": 0.25, "offset": 5}
    assert _diff(fast_ops.rope(x, 64, **kw), REF_ROPE(x, 64, **kw)) <= 1e-5
    q = mx.random.normal((2, 6, 8, 64), key=_key(5)).transpose(0, 2, 1, 3)  # [B, H, L, D] view
    kw["offset"] = mx.array([7, 40])
    assert _diff(fast_ops.rope(q, 64, **kw), REF_ROPE(q, 64, **kw)) <= 1e-5
    freqs = mx.random.uniform(1.0, 5000.0, (32,), key=_key(6))  # llama3 / yarn style
    kf = {"traditional": False, "base": None, "scale": 1.0, "offset": 9, "freqs": freqs}
    assert _diff(fast_ops.rope(q, 64, **kf), REF_ROPE(q, 64, **kf)) <= 1e-5


MASKS = ["none", "causal", "bool", "float", "bool row", "float 2-D", "bool 1-D"]


def _mask(kind: str, b: int, lq: int, lk: int) -> None | str | mx.array:
    key = _key(b, lq, lk, len(kind))
    if kind == "none":
        return None
    if kind == "causal":
        return "causal"
    if kind == "bool":  # the engine's left-padded batch: [B, 1, Lq, Lk], last key always seen
        return (mx.random.uniform(shape=(b, 1, lq, lk), key=key) > 0.4) | (mx.arange(lk) == lk - 1)
    if kind == "float":
        return mx.random.normal((b, 1, lq, lk), key=key)
    if kind == "bool row":
        return mx.arange(lk)[None, None, None, :] >= mx.array([0, 2, 1])[:b, None, None, None]
    if kind == "float 2-D":
        return mx.random.normal((lq, lk), key=key)
    return mx.arange(lk) >= 1  # broadcast over everything


@pytest.mark.parametrize("mask", MASKS)
@pytest.mark.parametrize("b,hq,hkv,lq,lk,d,dv", [
    (1, 8, 4, 1, 37, 64, 64), (3, 8, 2, 1, 100, 64, 64), (2, 4, 4, 3, 9, 32, 32),
    (3, 6, 3, 5, 50, 128, 64), (1, 2, 1, 16, 16, 64, 64), (2, 4, 2, 1, 1, 16, 16),
    (1, 9, 3, 1, 1300, 64, 64), (3, 8, 2, 1, 513, 32, 32),  # decode split into key blocks
])
def test_attention_matches_mlx(isa: str, mask: str, b: int, hq: int, hkv: int, lq: int,
                               lk: int, d: int, dv: int) -> None:
    key = _key(b, hq, hkv, lq, lk, d)
    q = mx.random.normal((b, hq, lq, d), key=key)
    # K and V as the cache hands them over: a slice of a longer buffer (strided, not copied)
    kbuf = mx.random.normal((b, hkv, lk + 13, d), key=_key(1, *key.tolist()))
    vbuf = mx.random.normal((b, hkv, lk + 13, dv), key=_key(2, *key.tolist()))
    k, v = kbuf[..., :lk, :], vbuf[..., :lk, :]
    m = _mask(mask, b, lq, lk)
    scale = d ** -0.5
    got = fast_ops.scaled_dot_product_attention(q, k, v, scale=scale, mask=m)
    assert _diff(got, REF_SDPA(q, k, v, scale=scale, mask=m)) <= 2e-5


TILED = fast_ops.tiled_available()


def _tiled_case(mask: str, b: int, hq: int, hkv: int, lq: int, lk: int, d: int, dv: int):
    """A prefill-sized attention case: Q as the models pass it, K and V slices of a longer cache."""
    key = _key(b, hq, hkv, lq, lk, d)
    q = mx.random.normal((b, lq, hq, d), key=key).transpose(0, 2, 1, 3)
    kbuf = mx.random.normal((b, hkv, lk + 13, d), key=_key(1, *key.tolist())) * 2
    vbuf = mx.random.normal((b, hkv, lk + 13, dv), key=_key(2, *key.tolist()))
    k, v = kbuf[..., :lk, :], vbuf[..., :lk, :]
    return q, k, v, _mask(mask, b, lq, lk), d ** -0.5


@pytest.mark.skipif(not TILED, reason="tiled attention needs a BLAS in the process")
@pytest.mark.parametrize("mask", MASKS)
@pytest.mark.parametrize("b,hq,hkv,lq,lk,d,dv", [
    (1, 9, 3, 40, 40, 64, 64), (2, 4, 2, 17, 300, 32, 32), (1, 14, 2, 300, 700, 64, 64),
    (3, 6, 3, 33, 33, 128, 64), (1, 2, 2, 129, 129, 16, 16), (1, 3, 1, 50, 200, 24, 20),
])
def test_tiled_attention_matches_mlx(tiled_isa: str, mask: str, b: int, hq: int, hkv: int,
                                     lq: int, lk: int, d: int, dv: int) -> None:
    """Long queries (prefill): the tiled op with its online softmax gives MLX's full-matrix
    result within float32 rounding, over partial query and key blocks, GQA, a prompt chunk
    after cached keys (Lk > Lq), every mask kind and K/V read in place from a longer cache."""
    q, k, v, m, scale = _tiled_case(mask, b, hq, hkv, lq, lk, d, dv)
    ref = REF_SDPA(q, k, v, scale=scale, mask=m)
    got = qkernels._ext.sdpa_tiled(q, k, v, scale, m if isinstance(m, mx.array) else None,
                                   m == "causal")
    assert _diff(got, ref) <= 2e-5
    assert _diff(fast_ops.scaled_dot_product_attention(q, k, v, scale=scale, mask=m), ref) <= 2e-5


@pytest.mark.skipif(not TILED, reason="tiled attention needs a BLAS in the process")
@pytest.mark.parametrize("panel_isa", [i for i in TILED_ISAS if i != "portable"])
@pytest.mark.parametrize("mask", ["causal", "bool"])
def test_tiled_attention_panels_and_blas_agree(panel_isa: str, mask: str,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """On AVX2 and AVX-512 the op runs its own panel kernel unless set_attention_panels(False)
    sends it back to the BLAS tiles: two float32 paths that add in different orders (so their
    bits differ, which shows the switch works) and agree within rounding."""
    q, k, v, m, scale = _tiled_case(mask, 1, 14, 2, 300, 700, 64, 64)
    args = (q, k, v, scale, m if isinstance(m, mx.array) else None, m == "causal")
    for _ in _with_isa(panel_isa, monkeypatch):
        assert qkernels._ext.attention_panels()
        panels = qkernels._ext.sdpa_tiled(*args)
        mx.eval(panels)
        assert not qkernels._ext.set_attention_panels(False)
        try:
            blas = qkernels._ext.sdpa_tiled(*args)
            mx.eval(blas)
        finally:
            qkernels._ext.set_attention_panels(True)
    assert 0.0 < _diff(panels, blas) <= 2e-5


@pytest.mark.skipif(not (TILED and qkernels._ext.amx_bf16_available()),
                    reason="no AMX-BF16 tiles on this CPU")
@pytest.mark.parametrize("mask", ["none", "causal", "bool", "float"])
@pytest.mark.parametrize("b,hq,hkv,lq,lk,d,dv", [
    (1, 9, 3, 40, 40, 64, 64), (2, 4, 2, 17, 300, 32, 32), (1, 14, 2, 300, 700, 64, 64),
    (3, 6, 3, 33, 33, 128, 64), (1, 2, 2, 129, 129, 16, 16),
])
def test_tiled_attention_on_amx_tiles(mask: str, b: int, hq: int, hkv: int, lq: int, lk: int,
                                      d: int, dv: int) -> None:
    """With the inexact opt-in (set_blas_bf16) the tiled op's two products run on AMX bfloat16
    tiles where the head sizes fit them (d 32-128, dv a multiple of 16; else sgemm as before):
    MLX's result within bfloat16's rounding of Q, K, P and V, partial blocks and masks included;
    turned off, the float32 result's bits again."""
    q, k, v, m, scale = _tiled_case(mask, b, hq, hkv, lq, lk, d, dv)
    ref = REF_SDPA(q, k, v, scale=scale, mask=m)
    args = (q, k, v, scale, m if isinstance(m, mx.array) else None, m == "causal")
    exact = qkernels._ext.sdpa_tiled(*args)
    mx.eval(exact)
    assert qkernels._ext.set_blas_bf16(True)
    try:
        got = qkernels._ext.sdpa_tiled(*args)
        mx.eval(got)  # lazy: computed while the tiles are on
    finally:
        qkernels._ext.set_blas_bf16(False)
    assert _diff(got, ref) <= 0.05
    assert (_diff(got, exact) > 0.0) == (d % 32 == 0)  # rounded where the tiles ran
    assert mx.array_equal(qkernels._ext.sdpa_tiled(*args), exact).item()


@pytest.mark.skipif(not TILED, reason="tiled attention needs a BLAS in the process")
def test_tiled_attention_masked_rows_and_strided_values(tiled_isa: str) -> None:
    """A query row masked everywhere averages V (like MLX's lowest-value masking); values with
    rows strided by a transposed layout and keys longer than one block."""
    q = mx.random.normal((1, 2, 20, 32), key=_key(21))
    k = mx.random.normal((1, 1, 300, 32), key=_key(22))
    v = mx.random.normal((1, 300, 1, 32), key=_key(23)).transpose(0, 2, 1, 3)[..., ::1, :]
    keep = mx.broadcast_to(mx.arange(20)[:, None] != 3, (20, 300))  # row 3 sees nothing
    got = qkernels._ext.sdpa_tiled(q, k, v, 0.2, keep, False)
    assert _diff(got, REF_SDPA(q, k, v, scale=0.2, mask=keep)) <= 2e-5
    assert _diff(got[:, :, 3], mx.broadcast_to(v.mean(axis=2), (1, 2, 32))) <= 1e-5


def test_attention_with_transposed_query(isa: str) -> None:
    q = mx.random.normal((2, 1, 8, 64), key=_key(8)).transpose(0, 2, 1, 3)
    k = mx.random.normal((2, 4, 20, 64), key=_key(9)).transpose(0, 1, 2, 3)
    v = mx.random.normal((2, 20, 4, 64), key=_key(10)).transpose(0, 2, 1, 3)  # strided rows
    got = fast_ops.scaled_dot_product_attention(q, k, v, scale=0.125)
    assert _diff(got, REF_SDPA(q, k, v, scale=0.125)) <= 2e-5


@pytest.mark.parametrize("shape", [(1,), (13,), (1, 49152), (16, 151936), (3, 2, 1000)])
def test_argmax_matches_mlx(isa: str, shape: tuple[int, ...]) -> None:
    """The first largest value's index as uint32, as ``mx.argmax(x, axis=-1)``: ties, a row of
    -inf, signed zeros, NaNs (the first NaN wins), strided input."""
    x = mx.random.normal(shape, key=_key(30, *shape))
    if len(shape) == 2 and shape[0] >= 16:
        x[1, 7] = x[1, 9000] = 50.0  # a tie: the first
        x[2] = -mx.inf
        x[3, 100] = x[3, 5] = float("nan")  # NaN wins, the first of them
        x[4, -1] = float("nan")
        x[5] = 0.0
        x[5, 3] = -0.0
        x[6, -3:] = 80.0  # in the scalar tail past the last full vector
    got = qkernels._ext.argmax_last(x)  # noqa: SLF001
    assert got.dtype == mx.uint32 and got.shape == shape[:-1]
    assert mx.array_equal(got, mx.argmax(x, axis=-1)).item()
    if len(shape) == 2 and shape[0] > 1:  # views: rows a stride apart, and a transpose
        for view in (x[::2, 3:700], x[:, :64].T):
            got = qkernels._ext.argmax_last(view)  # noqa: SLF001
            assert mx.array_equal(got, mx.argmax(view, axis=-1)).item()


def test_sampling_takes_the_native_argmax_while_installed() -> None:
    logits = mx.random.normal((16, 5000), key=_key(31))
    ref = mx.argmax(logits, axis=-1)
    assert fast_ops.install(mx.Device(mx.cpu))
    try:
        out = fast_ops.argmax_last(logits)
        assert "AfmArgmaxLastCPU" in _graph_names(out)
        assert mx.array_equal(out, ref).item()
    finally:
        fast_ops.uninstall()
    out = fast_ops.argmax_last(logits)
    assert "AfmArgmaxLastCPU" not in _graph_names(out) and mx.array_equal(out, ref).item()


def _graph_names(a: mx.array) -> str:
    import tempfile
    from pathlib import Path

    with tempfile.NamedTemporaryFile(suffix=".dot") as f:
        mx.export_to_dot(f.name, a)
        return Path(f.name).read_text()


@pytest.mark.parametrize("shape", [(1,), (7,), (3, 1, 1536), (2, 45, 1536), (5, 13), (0, 8)])
def test_silu_gate_matches_mlx(isa: str, shape: tuple[int, ...]) -> None:
    """Within 2e-6 relative of MLX's, from tiny values to ones where exp over/underflows."""
    gate = mx.random.normal(shape, key=_key(20, *shape)) * 30
    x = mx.random.normal(shape, key=_key(21, *shape))
    if gate.size >= 4:
        gate[..., :4] = mx.array([-200.0, 200.0, 0.0, 1e-8])[: shape[-1]]
    got, ref = fast_ops.swiglu(gate, x), REF_SWIGLU(gate, x)
    assert got.shape == ref.shape and got.dtype == mx.float32
    if ref.size:
        assert mx.all(mx.abs(got - ref) <= 2e-6 * mx.maximum(mx.abs(ref), 1.0)).item()
        assert not mx.any(mx.isnan(got)).item()


@pytest.mark.parametrize("shape", [(2, 5, 3072), (16, 1, 3072), (40, 3072), (3072,)])
def test_silu_gate_on_column_slices(isa: str, shape: tuple[int, ...]) -> None:
    """The halves of a fused gate/up product: rows at a fixed stride, read in place."""
    both = mx.random.normal(shape, key=_key(24, *shape)) * 4
    gate, x = both[..., :1536], both[..., 1536:]
    assert _diff(fast_ops.swiglu(gate, x), REF_SWIGLU(gate, x)) <= 2e-5
    if len(shape) == 3 and shape[1] > 2:  # uneven spacing (every other row): copied first
        g2, x2 = gate[:, ::2], x[:, ::2]
        assert _diff(fast_ops.swiglu(g2, x2), REF_SWIGLU(g2, x2)) <= 2e-5


def test_silu_gate_strided_and_left_to_mlx(isa: str) -> None:
    gate = mx.random.normal((64, 24), key=_key(22)).T  # not row-contiguous
    x = mx.random.normal((24, 64), key=_key(23))
    assert _diff(fast_ops.swiglu(gate, x), REF_SWIGLU(gate, x)) <= 1e-5
    half = gate.astype(mx.bfloat16)  # other dtypes and broadcasting: MLX's function
    assert mx.array_equal(fast_ops.swiglu(half, half), REF_SWIGLU(half, half)).item()
    row = x[:1]
    assert _diff(fast_ops.swiglu(gate, row), REF_SWIGLU(gate, row)) == 0.0


def test_what_the_native_ops_leave_to_mlx() -> None:
    """Other dtypes, sinks and bad shapes (and long queries, without the tiled op) go to MLX's
    function, results unchanged."""
    q = mx.random.normal((1, 4, 40, 32), key=_key(11))
    k = mx.random.normal((1, 2, 40, 32), key=_key(12))
    long_q = fast_ops.scaled_dot_product_attention(q, k, k, scale=0.2, mask="causal")
    assert fast_ops.MAX_QUERY < 40
    assert _diff(long_q, REF_SDPA(q, k, k, scale=0.2, mask="causal")) <= (2e-5 if TILED else 0.0)
    half = q[:, :, :1].astype(mx.float16)
    kh = k.astype(mx.float16)
    a = fast_ops.scaled_dot_product_attention(half, kh, kh, scale=0.2)
    assert a.dtype == mx.float16
    assert mx.array_equal(a, REF_SDPA(half, kh, kh, scale=0.2)).item()
    sinks = mx.zeros((4,))
    s = fast_ops.scaled_dot_product_attention(q[:, :, :1], k, k, scale=0.2, sinks=sinks)
    assert _diff(s, REF_SDPA(q[:, :, :1], k, k, scale=0.2, sinks=sinks)) == 0.0
    with pytest.raises(ValueError):  # 3 query heads over 2 KV heads: MLX's own error
        fast_ops.scaled_dot_product_attention(q[:, :3, :1], k, k, scale=0.2)
    xb = mx.random.normal((2, 3, 64), key=_key(13)).astype(mx.bfloat16)
    assert mx.array_equal(fast_ops.rms_norm(xb, None, 1e-5), REF_RMS(xb, None, 1e-5)).item()
    odd = mx.random.normal((2, 3, 4, 5, 64), key=_key(14))  # 5-D: MLX's function
    kw = {"traditional": False, "base": 1e4, "scale": 1.0, "offset": 3}
    assert _diff(fast_ops.rope(odd, 64, **kw), REF_ROPE(odd, 64, **kw)) == 0.0


def test_install_routes_mx_fast_and_uninstall_restores() -> None:
    was = fast_ops.installed()
    try:
        assert fast_ops.install(CPU)
        assert mx.fast.rms_norm is fast_ops.rms_norm
        assert mx.fast.rope is fast_ops.rope
        assert mx.fast.scaled_dot_product_attention is fast_ops.scaled_dot_product_attention
        models = [m for n, m in sys.modules.items()
                  if n.startswith("mlx_lm.models.") and hasattr(m, "swiglu")]
        assert activations.swiglu is fast_ops.swiglu
        assert all(m.swiglu is fast_ops.swiglu for m in models)
        assert fast_ops.install(CPU, silu_gate=False)  # the benchmark's middle variant
        assert mx.fast.rms_norm is fast_ops.rms_norm and activations.swiglu is REF_SWIGLU
        assert all(m.swiglu is REF_SWIGLU for m in models)
        fast_ops.install(CPU)
        fast_ops.uninstall()
        assert mx.fast.rms_norm is REF_RMS and not fast_ops.installed()
        assert activations.swiglu is REF_SWIGLU
        assert all(m.swiglu is REF_SWIGLU for m in models)
    finally:
        if was:
            fast_ops.install(CPU)


def _greedy(model: object, prompt: mx.array, n: int) -> tuple[list[list[int]], mx.array]:
    cache = make_prompt_cache(model)
    logits = model(prompt, cache=cache)[:, -1, :]  # type: ignore[operator]
    first = logits
    out: list[list[int]] = []
    for _ in range(n):
        tok = mx.argmax(logits, axis=-1)
        out.append(tok.tolist())
        logits = model(tok[:, None], cache=cache)[:, -1, :]  # type: ignore[operator]
    return out, first


def test_model_greedy_tokens_unchanged(tiny_model: Path) -> None:
    """The project's tiny model, batch of 3 prompts: same greedy tokens, logits within 1e-4."""
    model, _ = mlx_load(str(tiny_model))
    prompt = mx.array([[5, 17, 300, 42, 9, 77, 1000, 3], [8, 8, 2, 19, 4, 400, 6, 7],
                       [1, 2, 3, 4, 5, 6, 7, 8]])
    was = fast_ops.installed()
    fast_ops.uninstall()
    try:
        ref_tokens, ref_logits = _greedy(model, prompt, 16)
        fast_ops.install(CPU)
        assert sys.modules[type(model).__module__].swiglu is fast_ops.swiglu  # its MLP's gate
        tokens, logits = _greedy(model, prompt, 16)
    finally:
        fast_ops.uninstall()
        if was:
            fast_ops.install(CPU)
    assert tokens == ref_tokens
    top = max(1.0, mx.abs(ref_logits).max().item())
    assert mx.abs(logits - ref_logits).max().item() <= 1e-4 * top


def test_served_model_reports_native_ops(live_server: Callable[..., LiveServer]) -> None:
    server = live_server("--concurrent", "4")
    health = httpx.get(server.url + "/health").json()["cpu_weights"]
    assert "RMSNorm, RoPE, SiLU gate and decode attention as native CPU ops" in health["reason"]
    chat = server.openai().chat.completions.create(
        model="tiny", messages=[{"role": "user", "content": "hi"}], max_tokens=8, seed=1)
    assert chat.choices[0].message.content is not None
