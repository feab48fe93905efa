"""GGUF K-quant and Q5 blocks kept as codes (issue 60): bit-exact against the ``gguf`` package's
dequantization, packed losslessly, and multiplied by the native kernel's planar 5- and 6-bit
paths on every instruction set this CPU runs."""

from __future__ import annotations

import gguf
import gguf.quants
import mlx.core as mx
import numpy as np
import pytest

from engine import gguf_blocks, qkernels
from engine.fused_linear import common_format, widen

needs_ext = pytest.mark.skipif(not qkernels.available(), reason="native extension not built")

_BLOCK = {"Q4_K": (144, 256), "Q5_0": (22, 32), "Q5_1": (24, 32), "Q5_K": (176, 256),
          "Q6_K": (210, 256)}
_HALVES = {"Q4_K": (0, 2), "Q5_0": (0,), "Q5_1": (0, 2), "Q5_K": (0, 2), "Q6_K": (208,)}
"""Byte offsets of each block's float16 fields (d, and dmin or m), set to finite values."""


def random_blocks(type_name: str, rows: int, cols: int, seed: int = 0) -> np.ndarray:
    """Random raw bytes of a tensor of this type whose float16 fields are finite."""
    size, values = _BLOCK[type_name]
    rng = np.random.default_rng(seed)
    raw = rng.integers(0, 256, size=(rows, cols // values, size), dtype=np.uint8)
    for at in _HALVES[type_name]:
        halves = (rng.standard_normal((rows, cols // values)) * 0.01).astype(np.float16)
        raw[..., at:at + 2] = halves.view(np.uint8).reshape(rows, cols // values, 2)
    return raw.reshape(rows, -1)


@pytest.mark.parametrize("type_name", sorted(gguf_blocks.KEPT_TYPES))
def test_codes_give_the_gguf_package_values_bit_for_bit(type_name: str) -> None:
    raw = random_blocks(type_name, 7, 512)
    codes = gguf_blocks.decode(raw, type_name)
    assert (codes.bits, codes.group) == gguf_blocks.KEPT_TYPES[type_name]
    assert codes.q.shape == (7, 512) and int(codes.q.max()) < (1 << codes.bits)
    ref = gguf.quants.dequantize(raw, gguf.GGMLQuantizationType[type_name]).reshape(7, 512)
    g = codes.q.reshape(7, -1, codes.group).astype(np.float32)
    mine = (g * codes.scales[..., None] + codes.biases[..., None]).reshape(7, 512)
    np.testing.assert_array_equal(mine, ref)


@pytest.mark.parametrize("bits", [4, 5, 6, 8])
def test_packing_is_lossless(bits: int) -> None:
    q = np.random.default_rng(bits).integers(0, 1 << bits, size=(5, 256), dtype=np.uint8)
    w = gguf_blocks.pack(q, bits)
    assert w.dtype == np.uint32 and w.shape == (5, 256 * bits // 32)
    np.testing.assert_array_equal(gguf_blocks.unpack(w, bits), q)


def test_four_bits_are_mlx_packing() -> None:
    x = mx.random.normal((4, 128))
    w, s, b = mx.quantize(x, group_size=32, bits=4)
    codes = gguf_blocks.unpack(np.array(w), 4)
    np.testing.assert_array_equal(gguf_blocks.pack(codes, 4), np.array(w))
    np.testing.assert_allclose(gguf_blocks.dequantize(np.array(w), np.array(s), np.array(b), 32, 4),
                               np.array(mx.dequantize(w, s, b, group_size=32, bits=4)), atol=1e-6)


def _case(rng: np.random.Generator, n: int, k: int, bits: int, group: int
          ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    q = rng.integers(0, 1 << bits, size=(n, k), dtype=np.uint8)
    s = (rng.standard_normal((n, k // group)) * 0.02).astype(np.float32)
    b = (rng.standard_normal((n, k // group)) * 0.02).astype(np.float32)
    return gguf_blocks.pack(q, bits), s, b, gguf_blocks.dequantize(gguf_blocks.pack(q, bits),
                                                                  s, b, group, bits)


@needs_ext
@pytest.mark.parametrize("bits", [5, 6])
@pytest.mark.parametrize("rows", [1, 2, 3, 9, 16, 40])
def test_planar_products_match_float(bits: int, rows: int) -> None:
    """The kernel's product against float64 on random codes, every path this CPU has, with
    float32 and float16 scales (odd shapes: a K past the last whole SIMD unit)."""
    ext = qkernels._ext  # noqa: SLF001
    group = qkernels.PLANAR_FORMATS[bits]
    rng = np.random.default_rng(rows)
    for n, k in ((37, 896), (24, 4864), (16, 160)):
        w, s, b, dense = _case(rng, n, k, bits, group)
        x = rng.standard_normal((rows, k)).astype(np.float32)
        ref = x.astype(np.float64) @ dense.astype(np.float64).T
        tol = 2e-5 * (np.abs(x) @ np.abs(dense).T)
        for half in (False, True):
            sc, bi = mx.array(s), mx.array(b)
            if half:
                sc, bi = sc.astype(mx.float16), bi.astype(mx.float16)
                ref_h = x.astype(np.float64) @ gguf_blocks.dequantize(
                    w, np.array(sc.astype(mx.float32)), np.array(bi.astype(mx.float32)), group,
                    bits).astype(np.float64).T
            for isa in ["auto", *qkernels.supported_isas()]:
                out = np.array(ext.quantized_matmul(mx.array(x), mx.array(w), sc, bi, group, bits,
                                                    isa))
                assert np.all(np.abs(out - (ref_h if half else ref)) <= tol + 1e-7), (isa, n, k)


@needs_ext
@pytest.mark.parametrize("bits", [5, 6])
def test_planar_rows_are_the_dequantized_rows(bits: int) -> None:
    group = qkernels.PLANAR_FORMATS[bits]
    w, s, b, dense = _case(np.random.default_rng(1), 50, 256, bits, group)
    ids = mx.array([0, 49, 7, -1], dtype=mx.int32)
    rows = np.array(qkernels._ext.quantized_rows(  # noqa: SLF001
        ids, mx.array(w), mx.array(s), mx.array(b), group, bits))
    np.testing.assert_array_equal(rows, dense[[0, 49, 7, 49]])


def _rounded(x: np.ndarray, group: int) -> np.ndarray:
    """x as the int8 kernels round it: per group, to multiples of max|x| / 127."""
    g = x.reshape(x.shape[0], -1, group)
    d = np.abs(g).max(axis=-1, keepdims=True) / 127
    return (np.rint(g / np.where(d > 0, d, 1)) * d).reshape(x.shape).astype(np.float64)


@needs_ext
@pytest.mark.parametrize("bits", [5, 6])
@pytest.mark.parametrize("rows", [1, 2, 3, 5, 9])
def test_planar_products_on_int8_activations(bits: int, rows: int) -> None:
    """The int8-activation paths on planar codes: the digit planes (x3) to float32's precision,
    one plane exactly x rounded per group times the weights; K past a multiple of 64 falls
    back to the float path."""
    ext = qkernels._ext  # noqa: SLF001
    if not qkernels.int8_isas():
        pytest.skip("no int8 path on this CPU")
    group = qkernels.PLANAR_FORMATS[bits]
    rng = np.random.default_rng(10 + rows)
    for n, k in ((37, 896), (24, 4864), (16, 160)):
        w, s, b, dense = _case(rng, n, k, bits, group)
        x = rng.standard_normal((rows, k)).astype(np.float32)
        exact = x.astype(np.float64) @ dense.astype(np.float64).T
        mag = np.abs(x) @ np.abs(dense).T
        args = (mx.array(w), mx.array(s), mx.array(b), group, bits)
        for isa in qkernels.plane_isas():
            out = np.array(ext.quantized_matmul(mx.array(x), *args, isa))
            assert np.all(np.abs(out - exact) <= 2e-5 * mag + 1e-7), (isa, n, k)
        for isa in qkernels.int8_isas():
            out = np.array(ext.quantized_matmul(mx.array(x), *args, isa))
            ref = exact if k % 64 else _rounded(x, group) @ dense.astype(np.float64).T
            assert np.all(np.abs(out - ref) <= 2e-5 * mag + 1e-7), (isa, n, k)


@pytest.mark.parametrize(("formats", "target"), [
    ({(4, 32), (8, 32)}, (8, 32)), ({(5, 32), (8, 32)}, (8, 32)), ({(4, 32), (6, 16)}, (6, 16)),
    ({(5, 32), (6, 16)}, (6, 16)), ({(4, 32), (5, 32)}, (5, 32)), ({(6, 16), (8, 32)}, None),
    ({(4, 64), (4, 32)}, (4, 32))])
def test_sibling_formats_widen_to_one(formats: set[tuple[int, int]],
                                      target: tuple[int, int] | None) -> None:
    assert common_format(formats) == target


@needs_ext
@pytest.mark.parametrize(("source", "target"), [((4, 32), (6, 16)), ((5, 32), (8, 32)),
                                                ((5, 32), (6, 16)), ((4, 32), (5, 32))])
def test_widening_keeps_every_value(source: tuple[int, int], target: tuple[int, int]) -> None:
    bits, group = source
    w, s, b, dense = _case(np.random.default_rng(4), 8, 256, bits, group)
    layer = qkernels.QuantizedLinearCPU.empty(256, 8, False, group, bits)
    layer.update({"weight": mx.array(w), "scales": mx.array(s), "biases": mx.array(b)})
    wide = widen(layer, *target)
    assert (wide.bits, wide.group_size) == target
    np.testing.assert_array_equal(np.array(qkernels.dequantized_weight(wide)), dense)
    x = mx.random.normal((3, 256))
    np.testing.assert_allclose(np.array(wide(x)), np.array(x) @ dense.T, rtol=1e-4, atol=1e-5)
