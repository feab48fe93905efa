"""The native quantized matmul (engine._afm_qmm) against MLX's reference, path by path.

Tolerance: every output may differ from ``mx.quantized_matmul`` by at most 2e-5 times the sum
of |x_k * w_hat_k| over its dot product (float32 sums taken in another order; the bound is
~350 float32 epsilons of the absolute dot product). Each test runs on every instruction-set
path this CPU supports. Without a C++ compiler or cmake the extension cannot exist and these
tests skip; with them, a missing extension is a failure (build: python -m engine.qkernels build).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from engine.blas import preload_fast_blas

preload_fast_blas()

import mlx.core as mx  # noqa: E402
import mlx.nn as nn  # noqa: E402

from engine import qkernel_isa, qkernels  # noqa: E402
from engine.qkernels_build import missing_tools  # noqa: E402

if not qkernels.available():
    _why = missing_tools()
    if _why is not None:
        pytest.skip(f"native kernels cannot be built here: {_why}", allow_module_level=True)
    pytest.fail(
        "a compiler and cmake are present but engine._afm_qmm is not importable "
        f"({qkernels.unavailable_reason()}); run: python -m engine.qkernels build",
        pytrace=False,
    )

ISAS = qkernels.supported_isas()
REL_TOL = 2e-5
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def untimed_paths():
    """"auto" means the widest exact path in every test unless the test times or sets one (the
    choice is process-wide, and other test modules load models that time the paths); the
    extension's copy of the environment is the environment's."""
    qkernels.reload_environment()
    for bits in (4, 8):
        qkernels._ext.set_auto_isa(bits, "auto")
    yield
    qkernels.reload_environment()  # after the test's monkeypatch is undone (set up after this)
    for bits in (4, 8):
        qkernels._ext.set_auto_isa(bits, "auto")


def _case(m: int, n: int, k: int, group_size: int, bits: int, seed: int = 0):
    mx.random.seed(seed)
    x = mx.random.normal((m, k))
    w = mx.random.normal((n, k)) * 0.1
    wq, scales, biases = mx.quantize(w, group_size, bits)
    return x, wq, scales, biases


def _check(out: mx.array, x: mx.array, wq, scales, biases, group_size: int, bits: int,
           split: bool = False) -> None:
    """``split``: bound by |x| @ (|scales * q| + |biases|) instead of |x| @ |w_hat|, for inputs
    where the kernel's two terms (scales * dot(q, x) and biases * sum(x)) are huge and cancel."""
    ref = mx.quantized_matmul(
        x, wq, scales, biases, transpose=True, group_size=group_size, bits=bits
    )
    assert out.shape == ref.shape and out.dtype == ref.dtype
    w_hat = mx.dequantize(wq, scales, biases, group_size, bits)
    if split:
        w_sq = mx.dequantize(wq, scales, mx.zeros_like(biases), group_size, bits)
        w_hat = mx.abs(w_sq) + mx.abs(w_hat - w_sq)
    bound = mx.abs(x) @ mx.abs(w_hat).T
    excess = mx.abs(out - ref) - REL_TOL * bound
    assert mx.max(excess).item() <= 0.0, f"max abs error {mx.max(mx.abs(out - ref)).item()}"


def test_paths_cover_the_portable_fallback() -> None:
    assert "portable" in ISAS
    assert qkernels.default_isa() in ISAS


@pytest.mark.parametrize("isa", ISAS)
@pytest.mark.parametrize("bits", [4, 8])
@pytest.mark.parametrize("group_size", [32, 64, 128])
@pytest.mark.parametrize("rows", [1, 2, 8, 32])
def test_matches_mlx_reference(isa: str, bits: int, group_size: int, rows: int) -> None:
    x, wq, s, b = _case(rows, 136, 384, group_size, bits)
    out = qkernels.quantized_matmul(x, wq, s, b, group_size, bits, isa=isa)
    _check(out, x, wq, s, b, group_size, bits)


@pytest.mark.parametrize("isa", ISAS)
@pytest.mark.parametrize(
    ("rows", "n", "k", "group_size", "bits"),
    [(1, 1, 32, 32, 4), (3, 13, 128, 128, 8), (5, 77, 256, 64, 4), (17, 3, 640, 128, 4),
     (31, 250, 96, 32, 8), (7, 1001, 512, 64, 4)],
)
def test_odd_shapes(isa: str, rows: int, n: int, k: int, group_size: int, bits: int) -> None:
    x, wq, s, b = _case(rows, n, k, group_size, bits, seed=rows)
    out = qkernels.quantized_matmul(x, wq, s, b, group_size, bits, isa=isa)
    _check(out, x, wq, s, b, group_size, bits)


@pytest.mark.parametrize("isa", ISAS)
def test_threaded_result_is_the_single_threaded_one(isa: str) -> None:
    x, wq, s, b = _case(8, 3000, 512, 64, 4)  # large enough to use the thread pool
    try:
        qkernels.set_num_threads(1)
        one = qkernels.quantized_matmul(x, wq, s, b, 64, 4, isa=isa)
        mx.eval(one)
        qkernels.set_num_threads(4)
        four = qkernels.quantized_matmul(x, wq, s, b, 64, 4, isa=isa)
        mx.eval(four)
    finally:
        qkernels.set_num_threads(0)
    assert mx.array_equal(one, four).item()
    _check(four, x, wq, s, b, 64, 4)


def test_batched_strided_and_half_precision_inputs() -> None:
    x, wq, s, b = _case(6, 40, 128, 64, 8)
    x3 = x.reshape(2, 3, 128)
    out = qkernels.quantized_matmul(x3, wq, s, b, 64, 8)
    assert out.shape == (2, 3, 40)
    _check(out.reshape(6, 40), x, wq, s, b, 64, 8)
    xt = mx.array(x.T.tolist()).T  # a transposed (column-major) view
    _check(qkernels.quantized_matmul(xt, wq[::2], s[::2], b[::2], 64, 8), x, wq[::2], s[::2],
           b[::2], 64, 8)
    xb = x.astype(mx.bfloat16)
    outb = qkernels.quantized_matmul(xb, wq, s.astype(mx.bfloat16), b.astype(mx.bfloat16), 64, 8)
    assert outb.dtype == mx.bfloat16
    ref = mx.quantized_matmul(x, wq, s, b, transpose=True, group_size=64, bits=8)
    assert mx.allclose(outb.astype(mx.float32), ref, rtol=2e-2, atol=2e-2).item()


@pytest.mark.parametrize("isa", ISAS)
@pytest.mark.parametrize("rows", [1, 2])
@pytest.mark.parametrize("magnitude", [1.0, 1e-20, 1e20])
def test_few_row_4bit_products_hold_across_the_activations_range(
    isa: str, rows: int, magnitude: float
) -> None:
    """One- and two-row 4-bit products (AVX2 takes the codes masked in place, the activations
    prepared times 16^-j for them): within the float tolerance for activations from 1e-20 to
    1e20, with a tail past the last 64-value unit."""
    x, wq, s, b = _case(rows, 45, 352, 32, 4, seed=rows)
    x = x * magnitude
    _check(qkernels.quantized_matmul(x, wq, s, b, 32, 4, isa=isa), x, wq, s, b, 32, 4)


INT8 = qkernels.int8_isas()  # paths rounding activations to int8 per group (group size)
INT8_CASES = [(isa, bits) for isa in INT8 for bits in (4, 8)]
INT8_RMS_TOL = 0.015  # RMS of the shift from the exact output / RMS of the output
PLANES = qkernels.plane_isas()  # x as three int8 digit planes: float32-level activations
PLANE_CASES = [(isa, bits) for isa in PLANES for bits in (4, 8)]
ODD_SHAPES = [(1, 1, 128, 32), (3, 13, 128, 128), (5, 77, 256, 64), (17, 3, 640, 128),
              (31, 250, 96, 32), (7, 1001, 512, 64), (12, 9, 1536, 64)]  # rows, n, k, group


def _rounded(x: mx.array, block: int) -> mx.array:
    """x rounded as the int8 paths round it: per block, to multiples of max|x| / 127."""
    m, k = x.shape
    g = x.reshape(m, k // block, block)
    amax = mx.max(mx.abs(g), axis=-1, keepdims=True)
    step = amax / 127
    return (mx.round(g / mx.where(amax > 0, step, 1)) * step).reshape(m, k)


def _check_int8(isa: str, out: mx.array, x: mx.array, wq, s, b, group_size: int, bits: int):
    """The only approximation is rounding x: out is x_hat @ w_hat.T within the float tolerance,
    and that moves it from the exact output by under INT8_RMS_TOL of its RMS."""
    _check(out, _rounded(x, group_size), wq, s, b, group_size, bits)
    exact = mx.quantized_matmul(x, wq, s, b, transpose=True, group_size=group_size, bits=bits)
    shift = mx.sqrt(mx.mean((out - exact) ** 2)) / mx.sqrt(mx.mean(exact**2))
    assert shift.item() < INT8_RMS_TOL


@pytest.mark.parametrize(("isa", "bits"), INT8_CASES)
@pytest.mark.parametrize("group_size", [32, 64, 128])
@pytest.mark.parametrize("rows", [1, 2, 3, 8, 32])
def test_int8_paths_compute_the_rounded_activations(
    isa: str, bits: int, group_size: int, rows: int
) -> None:
    x, wq, s, b = _case(rows, 136, 384, group_size, bits, seed=rows)
    _check_int8(isa, qkernels.quantized_matmul(x, wq, s, b, group_size, bits, isa=isa),
                x, wq, s, b, group_size, bits)


@pytest.mark.parametrize(("isa", "bits"), INT8_CASES)
@pytest.mark.parametrize(
    ("rows", "n", "k", "group_size"),
    ODD_SHAPES,
)
def test_int8_paths_on_odd_shapes(
    isa: str, bits: int, rows: int, n: int, k: int, group_size: int
) -> None:
    x, wq, s, b = _case(rows, n, k, group_size, bits, seed=rows + n)
    _check_int8(isa, qkernels.quantized_matmul(x, wq, s, b, group_size, bits, isa=isa),
                x, wq, s, b, group_size, bits)


@pytest.mark.parametrize("isa", INT8)
def test_int8_paths_handle_zero_and_huge_activations(isa: str) -> None:
    """An all-zero group has no scale to divide by; one outlier only coarsens its own group."""
    x, wq, s, b = _case(2, 40, 256, 64, 4)
    x[0, :64] = 0.0
    x[1, 3] = 1e4
    out = qkernels.quantized_matmul(x, wq, s, b, 64, 4, isa=isa)
    xr = _rounded(x, 64)
    assert mx.all(xr[0, :64] == 0).item() and mx.mean(xr[1, 64:] != 0).item() > 0.9
    _check(out, xr, wq, s, b, 64, 4, split=True)


@pytest.mark.parametrize("isa", [*INT8, *PLANES, *ISAS])
@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_non_finite_activations_give_non_finite_outputs(isa: str, bad: float) -> None:
    """A NaN or infinity in x reaches its outputs on every path (the int8 paths give NaN: the
    group's scale is NaN), and other rows are untouched."""
    x, wq, s, b = _case(3, 24, 256, 64, 4)
    x[1, 70] = bad
    out = qkernels.quantized_matmul(x, wq, s, b, 64, 4, isa=isa)
    assert not mx.any(mx.isfinite(out[1])).item()
    assert mx.all(mx.isfinite(out[::2])).item()


@pytest.mark.parametrize(("isa", "bits"), PLANE_CASES)
@pytest.mark.parametrize("group_size", [32, 64, 128])
@pytest.mark.parametrize("rows", [1, 2, 3, 8])
def test_digit_planes_keep_the_exact_paths_accuracy(
    isa: str, bits: int, group_size: int, rows: int
) -> None:
    """Three int8 planes hold x to 2^-24 of each group's largest value: the outputs meet the
    float paths' tolerance against MLX, and are ~1000x closer to it than one int8 plane."""
    x, wq, s, b = _case(rows, 136, 384, group_size, bits, seed=rows)
    out = qkernels.quantized_matmul(x, wq, s, b, group_size, bits, isa=isa)
    _check(out, x, wq, s, b, group_size, bits)
    exact = mx.quantized_matmul(x, wq, s, b, transpose=True, group_size=group_size, bits=bits)
    for int8 in INT8:
        coarse = qkernels.quantized_matmul(x, wq, s, b, group_size, bits, isa=int8)
        assert mx.abs(out - exact).max().item() * 300 < mx.abs(coarse - exact).max().item()


@pytest.mark.parametrize(("isa", "bits"), PLANE_CASES)
@pytest.mark.parametrize(
    ("rows", "n", "k", "group_size"),
    ODD_SHAPES,
)
def test_digit_planes_on_odd_shapes(
    isa: str, bits: int, rows: int, n: int, k: int, group_size: int
) -> None:
    x, wq, s, b = _case(rows, n, k, group_size, bits, seed=rows + n)
    _check(qkernels.quantized_matmul(x, wq, s, b, group_size, bits, isa=isa),
           x, wq, s, b, group_size, bits)


@pytest.mark.parametrize("isa", PLANES)
def test_digit_planes_handle_zero_and_huge_activations(isa: str) -> None:
    """An all-zero group gives zero planes; an outlier of 1e4 leaves its group's other values
    held to 1e4 * 2^-24 (one int8 plane: to 1e4 / 254)."""
    x, wq, s, b = _case(2, 40, 256, 64, 4)
    x[0, :64] = 0.0
    x[1, 3] = 1e4
    out = qkernels.quantized_matmul(x, wq, s, b, 64, 4, isa=isa)
    _check(out, x, wq, s, b, 64, 4, split=True)


def test_environment_forces_the_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """AFM_QMM_ISA forces a path once handed to the extension: it never reads the environment
    after import itself (a getenv racing a setenv on another thread is undefined behaviour)."""
    before = qkernels.default_isa()
    monkeypatch.setenv("AFM_QMM_ISA", "portable")
    assert qkernels.default_isa() == before  # not read at the call
    qkernels.reload_environment()
    assert qkernels.default_isa() == "portable"
    monkeypatch.setenv("AFM_QMM_ISA", "no-such-isa")
    qkernels.reload_environment()
    with pytest.raises(ValueError, match="unknown isa 'no-such-isa'"):
        qkernels.default_isa()
    monkeypatch.setenv("AFM_QMM_THREADS", "3")
    qkernels.set_num_threads(0)
    qkernels.reload_environment()
    assert qkernels.num_threads() == 3


def test_environment_is_read_once_at_import() -> None:
    """A fresh process: the variables set before import are the extension's; a later change is
    not, until reload_environment hands it over."""
    code = (
        "import os\n"
        "from engine import qkernels\n"
        "assert qkernels.default_isa() == 'portable', qkernels.default_isa()\n"
        "assert qkernels.num_threads() == 5\n"
        "os.environ['AFM_QMM_THREADS'] = '7'\n"
        "assert qkernels.num_threads() == 5\n"
        "qkernels.reload_environment()\n"
        "assert qkernels.num_threads() == 7\n"
    )
    env = {**os.environ, "AFM_QMM_ISA": "portable", "AFM_QMM_THREADS": "5",
           "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def test_thread_pool_survives_its_call_counter_wrapping() -> None:
    """The pool tags each parallel call with a 32-bit generation; across the wrap every call
    still runs all its tasks (before the fix, the 2^32nd call found nothing to claim and waited
    forever). Driven through the test hook in a child process, so a hang is a timeout."""
    code = (
        "import mlx.core as mx\n"
        "from engine import qkernels\n"
        "ext = qkernels._ext\n"
        "ext.set_num_threads(2)\n"
        "mx.random.seed(0)\n"
        "x = mx.random.normal((8, 512))\n"
        "wq, s, b = mx.quantize(mx.random.normal((2048, 512)), 64, 4)\n"
        "ref = mx.quantized_matmul(x, wq, s, b, transpose=True, group_size=64, bits=4)\n"
        "ext.set_pool_generation(2**32 - 3)\n"
        "seen = []\n"
        "for _ in range(6):\n"
        "    out = ext.quantized_matmul(x, wq, s, b, 64, 4, 'avx2' if 'avx2' in "
        "ext.supported_isas() else 'portable')\n"
        "    mx.eval(out)\n"
        "    assert mx.allclose(out, ref, rtol=1e-4, atol=1e-4).item()\n"
        "    seen.append(ext.pool_generation())\n"
        "print(seen)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("AFM_QMM_ISA", None)
    done = subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["[4294967294,", "4294967295,", "1,", "2,", "3,", "4]"]


@pytest.mark.skipif(not qkernels._ext.has_sgemm(), reason="no BLAS loaded")
@pytest.mark.parametrize("bits", [4, 8])
@pytest.mark.parametrize("group_size", [32, 64, 128])
@pytest.mark.parametrize(("rows", "n"), [(64, 200), (257, 96), (600, 1100)])
def test_many_rows_take_the_blas_tile_path(bits: int, group_size: int, rows: int, n: int,
                                           panels_off: None) -> None:
    """From blas_rows() rows on (the panel product off), "auto" dequantizes weight tiles once
    and multiplies through the BLAS: MLX's reference within the kernels' float tolerance, on
    odd column counts (tiles of 64 weight rows, the last one short), and whatever path "auto"
    was timed to at decode sizes: with an int8 path chosen, few rows show its rounding and many
    rows none of it."""
    assert qkernels.blas_rows() == qkernels.DEFAULT_BLAS_ROWS <= rows
    x, wq, s, b = _case(rows, n, 384, group_size, bits, seed=rows)
    s, b = s.astype(mx.float32), b.astype(mx.float32)
    _check(qkernels.quantized_matmul(x, wq, s, b, group_size, bits), x, wq, s, b, group_size,
           bits)
    for isa in qkernels.int8_isas()[:1]:
        qkernels._ext.set_auto_isa(bits, isa)
        _check(qkernels.quantized_matmul(x, wq, s, b, group_size, bits), x, wq, s, b,
               group_size, bits)
        few = qkernels.quantized_matmul(x[:8], wq, s, b, group_size, bits)
        ref = mx.quantized_matmul(x[:8], wq, s, b, transpose=True, group_size=group_size,
                                  bits=bits)
        assert mx.abs(few - ref).max().item() > 1e-3  # the int8 path ran there


SMALL_GEMM = "avx512" in qkernels.supported_isas()  # the tiles' own products (AVX-512)


@pytest.fixture
def panels_off():
    """The panel product turned off for one test (the small-M product and sgemm take over)."""
    qkernels._ext.set_panel_rows(0)
    yield
    qkernels._ext.set_panel_rows(qkernels.DEFAULT_PANEL_ROWS)


@pytest.mark.skipif(not SMALL_GEMM, reason="the tiles' own product needs AVX-512")
@pytest.mark.parametrize("bits", [4, 8])
@pytest.mark.parametrize("group_size", [32, 128])
@pytest.mark.parametrize(("n", "k"), [(203, 384), (70, 1152), (6, 256), (40, 4864)])
def test_decode_batches_take_the_tiles_own_product(bits: int, group_size: int, n: int,
                                                   k: int, panels_off: None) -> None:
    """With the panel product off, from blas_rows() to sgemm_rows() rows (decode batches) the
    tiles are multiplied by the kernel's own register-blocked small-M product: MLX's reference
    within the float tolerance on every remainder (rows not a multiple of its 4, weight rows not
    of its 6, a short last tile), and each sum in an order set by K alone, so a row's output is
    the same bits whatever the batch around it; through sgemm (AFM_QMM_SGEMM_ROWS=1) the
    reference too."""
    lo, hi = qkernels.blas_rows(), qkernels._ext.sgemm_rows()
    assert lo == qkernels.DEFAULT_BLAS_ROWS < hi == qkernels.DEFAULT_SGEMM_ROWS
    x, wq, s, b = _case(hi - 1, n, k, group_size, bits, seed=n + k)
    s, b = s.astype(mx.float16), b.astype(mx.float16)
    s32, b32 = s.astype(mx.float32), b.astype(mx.float32)
    outs = {m: qkernels.quantized_matmul(x[:m], wq, s, b, group_size, bits)
            for m in (lo, lo + 1, lo + 3, hi - 1)}
    for m, out in outs.items():
        _check(out, x[:m], wq, s32, b32, group_size, bits)
        assert mx.array_equal(out, outs[hi - 1][:m]).item()
    qkernels._ext.set_sgemm_rows(1)
    try:
        through_blas = qkernels.quantized_matmul(x, wq, s, b, group_size, bits)
        mx.eval(through_blas)
    finally:
        qkernels._ext.set_sgemm_rows(hi)
    _check(through_blas, x, wq, s32, b32, group_size, bits)


@pytest.mark.skipif(not SMALL_GEMM, reason="the panel product needs AVX-512")
@pytest.mark.parametrize("bits", [4, 8])
@pytest.mark.parametrize("group_size", [32, 128])
@pytest.mark.parametrize(("n", "k"), [(203, 384), (70, 1152), (6, 256), (40, 4864)])
def test_many_rows_take_the_panel_product(bits: int, group_size: int, n: int, k: int) -> None:
    """From panel_rows() rows on an AVX-512 CPU, x is packed into panels of 48 rows and the
    tiles multiplied by 8 x 48 register blocks: MLX's reference within the float tolerance on
    every remainder (a last panel of 1, 15, 16 or 17 rows, weight rows not a multiple of 8, a
    short last tile, depths past one 256-step chunk or not a multiple of it, float16 scales),
    each sum in an order set by K alone, so a row's output is the same bits whatever the batch
    around it; and it is the product "auto" runs from 10 rows (decode batches included, below
    blas_rows() too)."""
    lo = qkernels._ext.panel_rows()
    assert lo == qkernels.DEFAULT_PANEL_ROWS < qkernels.blas_rows()
    x, wq, s, b = _case(113, n, k, group_size, bits, seed=n + k + bits)
    s, b = s.astype(mx.float16), b.astype(mx.float16)
    s32, b32 = s.astype(mx.float32), b.astype(mx.float32)
    outs = {m: qkernels.quantized_matmul(x[:m], wq, s, b, group_size, bits)
            for m in (lo, lo + 1, 15, 16, 47, 48, 49, 64, 113)}
    for m, out in outs.items():
        _check(out, x[:m], wq, s32, b32, group_size, bits)
        assert mx.array_equal(out, outs[113][:m]).item()
    qkernels._ext.set_panel_rows(0)  # the small-M product and sgemm sum in other orders
    try:
        other = qkernels.quantized_matmul(x[:lo], wq, s, b, group_size, bits)
        mx.eval(other)
    finally:
        qkernels._ext.set_panel_rows(lo)
    if k > 256:
        assert not mx.array_equal(other, outs[lo]).item()


@pytest.mark.skipif(not SMALL_GEMM, reason="the panel product needs AVX-512")
def test_panel_product_keeps_non_finite_values_and_empty_depth() -> None:
    """A NaN or infinity in one row of x stays in that row's outputs only (the panels' zero
    padding and the other rows untouched), like the other paths."""
    x, wq, s, b = _case(20, 24, 256, 32, 4, seed=5)
    s, b = s.astype(mx.float32), b.astype(mx.float32)
    clean = qkernels.quantized_matmul(x, wq, s, b, 32, 4)
    bad = mx.concatenate([x[:3], mx.full((1, 256), float("nan")), x[4:]])
    out = qkernels.quantized_matmul(bad, wq, s, b, 32, 4)
    assert mx.isnan(out[3]).all().item()
    keep = mx.array([i for i in range(20) if i != 3])
    assert mx.array_equal(out[keep], clean[keep]).item()


AMX_BF16 = qkernels._ext.amx_bf16_available()


@pytest.mark.skipif(not AMX_BF16, reason="no AMX-BF16 tiles on this CPU")
@pytest.mark.parametrize("bits", [4, 8])
@pytest.mark.parametrize("group_size", [32, 64, 128])
@pytest.mark.parametrize(("rows", "n", "k"), [(16, 32, 256), (17, 40, 384), (50, 200, 1024),
                                              (257, 96, 384), (33, 1100, 128)])
def test_many_rows_on_amx_bf16_tiles(bits: int, group_size: int, rows: int, n: int,
                                     k: int) -> None:
    """With the inexact opt-in (set_blas_bf16, AFM_QMM_INT8=1), many-row products run on AMX
    bfloat16 tiles: MLX's reference within bfloat16's rounding of each weight and activation
    (half a step of 8 significant bits each) on odd shapes (a short last panel of 32 weight rows,
    a short last block of 16 rows of x), with float32 and float16 scales; turned off, the exact
    tiles' bits again."""
    x, wq, s, b = _case(rows, n, k, group_size, bits, seed=rows + n)
    for scales, biases in ((s, b), (s.astype(mx.float16), b.astype(mx.float16))):
        exact = qkernels.quantized_matmul(x, wq, scales, biases, group_size, bits)
        mx.eval(exact)
        assert qkernels._ext.set_blas_bf16(True)
        try:
            out = qkernels.quantized_matmul(x, wq, scales, biases, group_size, bits)
            mx.eval(out)  # lazy: computed while the tiles are on
        finally:
            qkernels._ext.set_blas_bf16(False)
        s32, b32 = scales.astype(mx.float32), biases.astype(mx.float32)
        ref = mx.quantized_matmul(x, wq, s32, b32, transpose=True, group_size=group_size,
                                  bits=bits)
        w_hat = mx.dequantize(wq, s32, b32, group_size, bits)
        bound = mx.abs(x) @ mx.abs(w_hat).T
        assert mx.max(mx.abs(out - ref) - 2.0**-7 * bound).item() <= 0.0
        assert not mx.array_equal(out, exact).item()  # rounded: the tiles ran
        again = qkernels.quantized_matmul(x, wq, scales, biases, group_size, bits)
        assert mx.array_equal(again, exact).item()


def test_amx_tiles_follow_the_int8_opt_in(monkeypatch: pytest.MonkeyPatch) -> None:
    """AFM_QMM_INT8=1 (the opt-in to inexact arithmetic) turns the AMX tiles on where the CPU
    has them; unset, they are off."""
    monkeypatch.setenv("AFM_QMM_INT8", "1")
    qkernels.reload_environment()
    assert qkernels._ext.blas_bf16() == AMX_BF16
    monkeypatch.delenv("AFM_QMM_INT8")
    qkernels.reload_environment()
    assert not qkernels._ext.blas_bf16()


def test_blas_rows_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    """AFM_QMM_BLAS_ROWS moves the threshold (0: never), AFM_QMM_SGEMM_ROWS the tiles' switch to
    sgemm; a forced path never takes the tiles."""
    x, wq, s, b = _case(96, 128, 256, 64, 4)
    s, b = s.astype(mx.float32), b.astype(mx.float32)
    auto = qkernels.quantized_matmul(x, wq, s, b, 64, 4)
    forced = qkernels.quantized_matmul(x, wq, s, b, 64, 4, isa=qkernels.default_isa())
    monkeypatch.setenv(qkernels.BLAS_ROWS_ENV, "0")
    qkernels.reload_environment()
    assert qkernels.blas_rows() == 0
    off = qkernels.quantized_matmul(x, wq, s, b, 64, 4)
    assert mx.array_equal(off, forced).item()
    for out in (auto, off):
        _check(out, x, wq, s, b, 64, 4)
    monkeypatch.setenv(qkernels.BLAS_ROWS_ENV, "200")
    monkeypatch.setenv(qkernels.SGEMM_ROWS_ENV, "1")
    monkeypatch.setenv(qkernels.PANEL_ROWS_ENV, "0")
    qkernels.reload_environment()
    assert qkernels.blas_rows() == 200
    assert qkernels._ext.sgemm_rows() == 1
    assert qkernels._ext.panel_rows() == 0


def test_embedding_lookup_rejects_ids_out_of_range() -> None:
    """An id past either end raises (a clamp would return another token's row silently);
    negative ids count from the end, like Python indexing."""
    wq, s, b = mx.quantize(mx.random.normal((10, 64), key=mx.random.key(3)), 32, 4)
    s, b = s.astype(mx.float32), b.astype(mx.float32)
    rows = qkernels._ext.quantized_rows
    w_hat = mx.dequantize(wq, s, b, 32, 4)
    assert mx.array_equal(rows(mx.array([9, -1, -10, 0]), wq, s, b, 32, 4),
                          w_hat[mx.array([9, 9, 0, 0])]).item()
    for bad in ([10], [3, -11], [2**31 - 1]):
        with pytest.raises(RuntimeError, match="out of range for 10 rows"):
            mx.eval(rows(mx.array(bad), wq, s, b, 32, 4))
    assert mx.array_equal(rows(mx.array([4]), wq, s, b, 32, 4), w_hat[4:5]).item()


def test_rejects_what_it_cannot_compute() -> None:
    x, wq, s, b = _case(2, 16, 128, 64, 4)
    with pytest.raises(ValueError, match="shapes"):
        qkernels._ext.quantized_matmul(x[:, :64], wq, s, b, 64, 4)
    with pytest.raises(ValueError, match="bits"):
        qkernels._ext.quantized_matmul(x, wq, s, b, 64, 3)
    missing = {"avx512", "avx512-256", "avx2"} - set(ISAS)
    for isa in missing:
        with pytest.raises(ValueError, match="lacks"):
            qkernels._ext.quantized_matmul(x, wq, s, b, 64, 4, isa)
    # formats the kernel lacks fall back to MLX's own kernel
    wq2, s2, b2 = mx.quantize(mx.random.normal((16, 128)), 64, 2)
    out = qkernels.quantized_matmul(x, wq2, s2, b2, 64, 2)
    ref = mx.quantized_matmul(x, wq2, s2, b2, transpose=True, group_size=64, bits=2)
    assert mx.array_equal(out, ref).item()


def test_linear_layer_swap_keeps_outputs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AFM_QMM_INT8", "0")  # the swap times the paths: keep them exact here
    mx.random.seed(3)
    model = nn.Sequential(nn.Linear(128, 96), nn.Linear(96, 40, bias=False), nn.Embedding(50, 64))
    nn.quantize(model, group_size=32, bits=4)
    x = mx.random.normal((3, 128))
    ref = model.layers[1](model.layers[0](x))
    ref_head = model.layers[2].as_linear(mx.random.normal((2, 64), key=mx.random.key(1)))
    assert qkernels.use_native_kernels(model, mx.Device(mx.gpu)) == 0  # not a CPU device
    assert qkernels.use_native_kernels(model, mx.Device(mx.cpu)) == 3
    assert isinstance(model.layers[0], qkernels.QuantizedLinearCPU)
    assert isinstance(model.layers[2], qkernels.QuantizedEmbeddingCPU)
    assert qkernels.use_native_kernels(model, mx.Device(mx.cpu)) == 0  # already swapped
    out = model.layers[1](model.layers[0](x))
    head = model.layers[2].as_linear(mx.random.normal((2, 64), key=mx.random.key(1)))
    assert mx.allclose(out, ref, rtol=1e-4, atol=1e-4).item()
    assert mx.allclose(head, ref_head, rtol=1e-4, atol=1e-4).item()
    tokens = mx.array([[1, 7, 49]])
    assert model.layers[2](tokens).shape == (1, 3, 64)


@pytest.mark.parametrize("bits", [4, 8])
@pytest.mark.parametrize("group_size", [32, 64, 128])
def test_embedding_lookup_matches_mlx(bits: int, group_size: int) -> None:
    """The native lookup (one op) equals MLX's dequantize of the gathered rows, for every id
    dtype and shape the models pass."""
    emb = nn.Embedding(300, 256)
    emb.weight = mx.random.normal((300, 256), key=mx.random.key(bits * 1000 + group_size))
    q = nn.QuantizedEmbedding.from_embedding(emb, group_size=group_size, bits=bits)
    q.scales, q.biases = q.scales.astype(mx.float32), q.biases.astype(mx.float32)
    native = qkernels.QuantizedEmbeddingCPU(q)
    for ids in (mx.array([[5]]), mx.array([[0, 299, 17], [3, 3, 150]]), mx.array([7, 8]),
                mx.array([[1, 2]], dtype=mx.uint32), mx.array([[4, 299]], dtype=mx.int64)):
        ref = q(ids)
        out = native(ids)
        assert out.shape == ref.shape == (*ids.shape, 256) and out.dtype == mx.float32
        assert mx.array_equal(out, ref).item()


def _tiny_quantized(bits: int, count: int) -> list[nn.Module]:
    from mlx_lm import load
    from mlx_lm.utils import quantize_model

    from modelbuilder import ensure_model

    path = ensure_model("tiny")
    models = []
    for _ in range(count):
        model, _tok, config = load(str(path), return_config=True)
        quantize_model(model, config, group_size=64, bits=bits)
        models.append(model)
    return models


PROMPT = [5, 17, 300, 42, 1024, 7, 99, 2048]


@pytest.mark.slow
@pytest.mark.parametrize("bits", [4, 8])
def test_tiny_model_greedy_tokens_match_the_reference_path(
    bits: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On the exact float paths (``AFM_QMM_INT8=0``) the logits are MLX's within float sums."""
    from tools.bench_lib.accuracy import logit_shift

    monkeypatch.delenv("AFM_QMM_ISA", raising=False)
    monkeypatch.setenv("AFM_QMM_INT8", "0")
    reference, native = _tiny_quantized(bits, 2)
    assert qkernels.use_native_kernels(native, mx.Device(mx.cpu)) > 0
    assert qkernels.auto_isa(bits) in ISAS
    shift = logit_shift(reference, native, PROMPT, 24)
    assert shift.max_abs < 1e-3
    assert shift.top1_agree == 24 and shift.first_greedy_difference is None


@pytest.mark.slow
@pytest.mark.parametrize(("isa", "bits"), INT8_CASES)
def test_tiny_model_logits_on_the_int8_paths(isa: str, bits: int) -> None:
    """Rounding activations moves the logits by a few percent of their RMS at most, and the
    greedy choice changes only where the reference's top two logits are closer than that."""
    from tools.bench_lib.accuracy import logit_shift

    reference, native = _tiny_quantized(bits, 2)
    assert qkernels.use_native_kernels(native, mx.Device(mx.cpu)) > 0
    qkernels._ext.set_auto_isa(bits, isa)
    shift = logit_shift(reference, native, PROMPT, 24)
    assert shift.max_abs > 0 and shift.rel_rms < 0.05
    assert all(margin < 2 * shift.max_abs for margin in shift.margins)
    assert shift.top1_agree >= 22


def _mixed_model() -> nn.Module:
    mx.random.seed(5)
    model = nn.Sequential(nn.Linear(256, 512), nn.Linear(512, 128), nn.Embedding(1000, 256))
    nn.quantize(model, group_size=64, bits=4, class_predicate=lambda p, m: p != "layers.1")
    model.layers[1] = nn.QuantizedLinear.from_linear(model.layers[1], group_size=64, bits=8)
    return model


def test_load_times_the_paths_and_auto_runs_the_fastest(monkeypatch) -> None:
    from engine.qkernel_isa import candidates

    monkeypatch.delenv("AFM_QMM_ISA", raising=False)
    monkeypatch.setenv("AFM_QMM_INT8", "1")  # opt in: the int8 paths are timed too
    model = _mixed_model()
    x = mx.random.normal((3, 256), key=mx.random.key(2))
    ref = model.layers[1](model.layers[0](x))
    assert qkernels.use_native_kernels(model, mx.Device(mx.cpu)) == 3
    expected = {bits: candidates(qkernels._ext) for bits in (4, 8)}
    assert all(set(INT8) & set(expected[bits]) for bits in (4, 8) if "vnni-int8" in INT8)
    timed_bits = [bits for bits in (4, 8) if len(expected[bits]) >= 2]
    timings = qkernels.time_paths(model)
    assert [t.bits for t in timings] == timed_bits
    if not timings:
        return
    for t in timings:
        assert t.shape == ((1000, 256) if t.bits == 4 else (128, 512))  # 4 bits: the tied head
        assert set(t.ms) == set(expected[t.bits]) and all(ms > 0 for ms in t.ms.values())
        assert t.chosen == min(t.ms, key=t.ms.__getitem__)
        assert qkernels.auto_isa(t.bits) == t.chosen
        assert t.chosen in t.describe() and f"{t.bits}-bit" in t.describe()
    out = model.layers[1](model.layers[0](x))  # "auto" now runs the chosen paths
    shift = mx.sqrt(mx.mean((out - ref) ** 2)) / mx.sqrt(mx.mean(ref**2))
    assert shift.item() < (2 * INT8_RMS_TOL if any(t.chosen in INT8 for t in timings) else 1e-5)
    # a forced path wins over the timed one, and then nothing is timed
    other = next(isa for isa in expected[4] if isa != qkernels.auto_isa(4))
    monkeypatch.setenv("AFM_QMM_ISA", other)
    qkernels.reload_environment()
    assert qkernels.auto_isa(4) == other
    assert qkernels.time_paths(model) == []


@pytest.mark.parametrize("int8", [None, "0"])
def test_by_default_auto_stays_on_the_exact_paths(monkeypatch, int8: str | None) -> None:
    """Unset (the default) or ``AFM_QMM_INT8=0``: only the exact float paths are candidates
    (the int8 ones change a real model's greedy answers: tests/test_gguf_fidelity.py)."""
    monkeypatch.delenv("AFM_QMM_ISA", raising=False)
    if int8 is None:
        monkeypatch.delenv("AFM_QMM_INT8", raising=False)
    else:
        monkeypatch.setenv("AFM_QMM_INT8", int8)
    model = _mixed_model()
    x = mx.random.normal((3, 256), key=mx.random.key(2))
    ref = model.layers[1](model.layers[0](x))
    assert qkernels.use_native_kernels(model, mx.Device(mx.cpu)) == 3
    for t in qkernels.time_paths(model):
        assert set(t.ms) <= set(ISAS)
    assert qkernels.auto_isa(4) in ISAS and qkernels.auto_isa(8) in ISAS
    out = model.layers[1](model.layers[0](x))
    assert mx.allclose(out, ref, rtol=1e-4, atol=1e-4).item()


@pytest.mark.skipif(not PLANES, reason="no digit-plane path on this CPU")
@pytest.mark.parametrize("planes", [None, "0"])
def test_one_row_products_take_the_digit_planes_where_faster(monkeypatch, planes) -> None:
    """At load the digit-plane path is timed at one row against each bit width's chosen path,
    through every layer of that bit width as a decode step runs them, and runs one-row products
    where it is faster by more than ``ROW_GAIN`` says (unless ``AFM_QMM_PLANES=0``); products
    of more rows keep the chosen path, bit for bit."""
    monkeypatch.delenv("AFM_QMM_ISA", raising=False)
    monkeypatch.delenv("AFM_QMM_INT8", raising=False)
    if planes is None:
        monkeypatch.delenv("AFM_QMM_PLANES", raising=False)
    else:
        monkeypatch.setenv("AFM_QMM_PLANES", planes)
    model = _mixed_model()
    assert qkernels.use_native_kernels(model, mx.Device(mx.cpu)) == 3
    layers = {4: 2, 8: 1}  # the 4-bit linear and embedding, the 8-bit linear
    for t in qkernels.time_paths(model):
        row = qkernels._ext.row_isa(t.bits)
        if planes != "0":
            assert t.row_pass is not None and t.row_pass[0] == layers[t.bits]
            assert f"one row through {layers[t.bits]} layer" in t.describe()  # 1 layer, 2 layers
        if planes == "0":
            assert not t.row_ms and t.row_chosen is None and row == t.chosen
        elif t.row_chosen is None:
            assert set(t.row_ms) == {t.chosen, *PLANES} and row == t.chosen
            assert f"one row: {t.chosen} kept" in t.describe()
        else:
            assert t.row_ratio[t.row_chosen] < qkernel_isa.ROW_GAIN
            assert t.row_ratio[t.chosen] == 1.0 and set(t.row_ratio) == set(t.row_ms)
            assert row == t.row_chosen
            assert f"one row: {t.row_chosen}" in t.describe()


def test_one_row_pass_is_timed_in_the_extension() -> None:
    """``row_pass_ms``: one row through a list of layers on each path asked, every round after
    a warm-up, in the extension (the products as the one-op step runs them); bad lists
    refused."""
    model = _mixed_model()
    assert qkernels.use_native_kernels(model, mx.Device(mx.cpu)) == 3
    layers = [m for _, m in model.named_modules() if isinstance(m, qkernels.QuantizedLinearCPU)]
    weights = [m[n] for m in layers for n in ("weight", "scales", "biases")]
    sizes, bits = [m.group_size for m in layers], [m.bits for m in layers]
    rounds = qkernels._ext.row_pass_ms(weights, sizes, bits, [ISAS[0], ISAS[-1]], 3)
    assert len(rounds) == 3 and all(len(r) == 2 and all(0 < t < 1000 for t in r) for r in rounds)
    with pytest.raises(ValueError, match="each layer"):
        qkernels._ext.row_pass_ms(weights[:-1], sizes, bits, [ISAS[0]], 1)
    with pytest.raises(ValueError, match="unknown isa"):
        qkernels._ext.row_pass_ms(weights, sizes, bits, ["sse9"], 1)


@pytest.mark.skipif(not PLANES, reason="no digit-plane path on this CPU")
def test_one_row_path_applies_to_one_row_only() -> None:
    x, wq, s, b = _case(4, 200, 512, 32, 8, seed=3)
    qkernels._ext.set_auto_isa(8, ISAS[0])
    qkernels._ext.set_row_isa(8, PLANES[0])
    assert qkernels._ext.row_isa(8) == PLANES[0] and qkernels._ext.auto_isa(8) == ISAS[0]
    for rows in (1, 2, 4):
        auto = qkernels.quantized_matmul(x[:rows], wq, s, b, 32, 8)
        isa = PLANES[0] if rows == 1 else ISAS[0]
        assert mx.array_equal(auto, qkernels.quantized_matmul(x[:rows], wq, s, b, 32, 8, isa=isa))
    qkernels._ext.set_auto_isa(8, ISAS[0])  # a new choice for all rows resets the one-row one
    assert qkernels._ext.row_isa(8) == ISAS[0]
    with pytest.raises(ValueError, match="bits"):
        qkernels._ext.set_row_isa(7, PLANES[0])


def test_auto_path_setter_checks_its_arguments() -> None:
    with pytest.raises(ValueError, match="bits"):
        qkernels._ext.set_auto_isa(3, "avx2")
    with pytest.raises(ValueError, match="unknown isa"):
        qkernels._ext.set_auto_isa(4, "sse9")
    qkernels._ext.set_auto_isa(4, "portable")
    assert qkernels.auto_isa(4) == "portable" and qkernels.auto_isa(8) == qkernels.default_isa()
    qkernels._ext.set_auto_isa(4, "auto")
    assert qkernels.auto_isa(4) == qkernels.default_isa()


def _half_exact(wq_scales: mx.array) -> mx.array:
    """Values float16 holds exactly (scales rounded through float16, kept as float32)."""
    return wq_scales.astype(mx.float16).astype(mx.float32)


@pytest.mark.parametrize("bits", [4, 8])
@pytest.mark.parametrize("group_size", [32, 64, 128])
def test_float16_scales_give_the_float32_bits(bits: int, group_size: int) -> None:
    """Scales and biases stored as float16 (where float16 holds them exactly) are read back as
    the same floats: every path gives the very bits of the float32 copy, at one row, a few, the
    tile path's 16 and the BLAS tiles' many, on shapes with tails (K % 64 != 0)."""
    for rows, n, k in ((1, 37, 5 * group_size), (3, 64, 384), (16, 40, 3 * group_size),
                       (70, 33, 128)):
        x, wq, s, b = _case(rows, n, k, group_size, bits, seed=rows + bits)
        s, b = _half_exact(s), _half_exact(b)
        hs, hb = s.astype(mx.float16), b.astype(mx.float16)
        for isa in ["auto", *ISAS, *qkernels.int8_isas()]:
            full = qkernels._ext.quantized_matmul(x, wq, s, b, group_size, bits, isa)
            half = qkernels._ext.quantized_matmul(x, wq, hs, hb, group_size, bits, isa)
            assert mx.array_equal(full, half).item(), (isa, rows)
        _check(qkernels.quantized_matmul(x, wq, hs, hb, group_size, bits), x, wq, s, b,
               group_size, bits)
        ids = mx.array([0, n - 1, 5])
        assert mx.array_equal(qkernels._ext.quantized_rows(ids, wq, hs, hb, group_size, bits),
                              qkernels._ext.quantized_rows(ids, wq, s, b, group_size, bits)).item()
    with pytest.raises(ValueError, match="both float32 or both float16"):
        qkernels._ext.quantized_matmul(x, wq, hs, b, group_size, bits)


def test_halve_scales_only_where_float16_is_exact(monkeypatch: pytest.MonkeyPatch) -> None:
    """Swapped-in native layers keep float16 scales and biases only when every value converts
    exactly (a layer with one value float16 cannot hold stays float32), their outputs unchanged;
    AFM_QMM_HALF_SCALES=0 keeps all float32. One path throughout (the swap would time them)."""
    monkeypatch.setenv("AFM_QMM_ISA", ISAS[0])

    def model() -> nn.Module:
        mx.random.seed(5)
        m = nn.Sequential(nn.Linear(128, 96, bias=False), nn.Linear(96, 64))
        nn.quantize(m, group_size=32, bits=4)
        for layer in m.layers:
            layer.scales, layer.biases = _half_exact(layer.scales), _half_exact(layer.biases)
        m.layers[1].scales[0, 0] = 1.0 + 2.0**-20  # float16 rounds this
        return m

    x = mx.random.normal((2, 128), key=mx.random.key(1))
    ref = model()
    want = ref(x)
    half = model()
    assert qkernels.use_native_kernels(half, mx.Device(mx.cpu)) == 2
    assert [la.scales.dtype for la in half.layers] == [mx.float16, mx.float32]
    assert [la.biases.dtype for la in half.layers] == [mx.float16, mx.float32]
    got = half(x)
    monkeypatch.setenv(qkernels.HALF_SCALES_ENV, "0")
    full = model()
    qkernels.use_native_kernels(full, mx.Device(mx.cpu))
    assert [la.scales.dtype for la in full.layers] == [mx.float32, mx.float32]
    assert mx.array_equal(got, full(x)).item()
    _check(half.layers[0](x), x, ref.layers[0].weight, ref.layers[0].scales,
           ref.layers[0].biases, 32, 4)
    assert mx.allclose(got, want, rtol=1e-4, atol=1e-4).item()
