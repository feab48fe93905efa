"""Native quantized matmul for MLX's CPU backend (issue 18), and the layers that use it.

MLX's Linux CPU backend dequantizes 4- and 8-bit weights in a scalar loop on one thread. The
extension ``engine._afm_qmm`` (sources in native/afm_qmm, built by ``python -m engine.qkernels
build``, by tools/setup.sh, or by ``pip install .``) adds an MLX primitive computing
``x @ dequantize(w, scales, biases).T`` for MLX's affine layout (bits 4 and 8, group sizes 32,
64 and 128), threaded over output columns, with AVX-512 (512- and 256-bit tiles), AVX2+FMA
and portable paths picked at run time, and a path that rounds the activations to int8 per group
and multiplies them with AVX-512 VNNI dot products (``vnni-int8``). At load the engine times
the paths on the model's own layers and runs the fastest (``engine.qkernel_isa``).
Environment: ``AFM_QMM_ISA`` (``avx512``, ``avx512-256``, ``avx2``, ``vnni-int8``,
``vnni-int8x3``, ``avx2-int8``, ``avx2-int8x3``, ``portable``) forces a path,
``AFM_QMM_INT8=1`` lets the timed choice pick the int8 paths too (off by default: int8
activations move each matmul's output by ~0.6% of its RMS on random inputs, and change a real
model's greedy answers),
``AFM_QMM_THREADS`` sets the threads per call (default: all cores),
``AFM_QMM_DISABLE=1`` turns the extension off (MLX's own kernels run, as without a build).
Scales and biases are float32, or float16 where that holds every value exactly (GGUF's Q4_0,
Q4_1 and Q8_0 store them as float16): a layer's bytes per 4-bit weight at group size 32 drop
from 0.75 to 0.625 and the kernel reads the same values, so its sums are the same bits
(:func:`halve_scales`; ``AFM_QMM_HALF_SCALES=0`` keeps float32).
The extension reads ``AFM_QMM_ISA`` and ``AFM_QMM_THREADS`` once, at import; a process that
changes them later calls :func:`reload_environment` (model loads do), so no native code calls
``getenv`` while another thread may ``setenv`` (engine/blas.py sets BLAS variables).

Many rows (prefill, and decode batches of 16): a matmul of at least :func:`blas_rows` rows of x
on the ``auto`` path dequantizes tiles of 64 weight rows once (vectorized, in the kernel's order
of x) and multiplies them. On an AVX-512 CPU, from ``AFM_QMM_PANEL_ROWS`` rows (default 10, below
:func:`blas_rows` too; 0: never) by the panel product (``native/afm_qmm/qmm_panels.h``: x packed
once per call into panels of 48 rows along K, 8 x 48 outer-product register blocks; 100-105
GMAC/s on two Zen 4 cores, 1.2x MKL's sgemm on the same tiles, 1.4-2.2x the small-M product at
16 rows; a panel costs the same from 1 to 16 rows, and the per-row kernels, one pass over the
weights per 8 rows, cost more from 10 rows: Qwen2.5-0.5B's decode step at 15 rows 167 ms
against 110 ms at 16, before panels took the 10-15 row batches of a staggered 16-client load);
below it by the AVX-512 unit's own small-M product (``native/afm_qmm/qmm_gemm.h``) under
``AFM_QMM_SGEMM_ROWS`` rows (default 32); else through the BLAS's sgemm (from twice
:func:`blas_rows` where K >= 1024 without AVX-512). Exact float arithmetic on every one; 5-10x
the per-row kernels' speed at hundreds of rows (tools/bench_prefill.py). ``AFM_QMM_BLAS_ROWS``
sets the first row count (default 16; 0: never).
With ``AFM_QMM_INT8=1`` (the opt-in to inexact arithmetic) on a CPU with AMX-BF16 (Intel
Xeon 4th generation on), those products run on AMX tiles instead: x and panels of 32 weight
rows rounded to bfloat16, float32 sums (``native/afm_qmm/qmm_amx.cpp``; 2-3x the float32
tiles from 32 rows).
``avx2-int8`` is the same int8 arithmetic from AVX2 multiply-adds, for CPUs without VNNI.

Without the extension everything here falls back to ``mx.quantized_matmul`` and
:func:`use_native_kernels` changes nothing.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Callable
from typing import Any

import mlx.core as mx
import mlx.nn as nn
import mlx.nn.layers.distributed as dist_layers
from mlx.utils import tree_map_with_path

from engine.qkernel_isa import IsaTiming, int8_allowed, pick_isas

log = logging.getLogger(__name__)

SUPPORTED_BITS = (4, 8)
SUPPORTED_GROUP_SIZES = (32, 64, 128)
PLANAR_FORMATS = {5: 32, 6: 16}
"""Planar bits -> their group size: AFM's own layout of 5- and 6-bit codes (GGUF's Q5_0, Q5_1,
Q5_K and Q6_K kept bit for bit; ``engine.gguf_blocks``). Only the native layers of this
module hold them; MLX's own 5- and 6-bit layers (another packing) are never swapped in."""

DISABLE_ENV = "AFM_QMM_DISABLE"
HALF_SCALES_ENV = "AFM_QMM_HALF_SCALES"

if os.environ.get(DISABLE_ENV, "").strip() not in ("", "0"):
    _ext = None
    _IMPORT_ERROR = f"disabled by {DISABLE_ENV}"
else:
    try:
        from engine import _afm_qmm as _ext  # type: ignore[attr-defined]
    except ImportError as exc:  # not built (no compiler at install time) or built for another MLX
        _ext = None
        _IMPORT_ERROR = str(exc)
    else:
        _IMPORT_ERROR = ""


def available() -> bool:
    """Whether the native extension is importable in this process."""
    return _ext is not None


def unavailable_reason() -> str:
    """Why :func:`available` is False ('' when it is True)."""
    return _IMPORT_ERROR


def supported_isas() -> list[str]:
    """Instruction-set paths this CPU can run, best first ([] without the extension)."""
    return list(_ext.supported_isas()) if _ext else []


def int8_isas() -> list[str]:
    """Paths this CPU runs that round activations to int8 ([] without the extension)."""
    return list(_ext.int8_isas()) if _ext and hasattr(_ext, "int8_isas") else []


def plane_isas() -> list[str]:
    """Paths this CPU runs that take activations as three int8 digit planes: float32-level
    activations, exact integer dot products (``vnni-int8x3``, ``avx2-int8x3``; [] without the
    extension)."""
    return list(_ext.plane_isas()) if _ext and hasattr(_ext, "plane_isas") else []


def default_isa() -> str | None:
    """The path ``isa="auto"`` takes (``AFM_QMM_ISA`` or the best supported)."""
    return _ext.default_isa() if _ext else None


BLAS_ROWS_ENV = "AFM_QMM_BLAS_ROWS"
DEFAULT_BLAS_ROWS = 16  # the crossover measured at 8-24 rows (BENCHMARKS.md, issue 31)
SGEMM_ROWS_ENV = "AFM_QMM_SGEMM_ROWS"
DEFAULT_SGEMM_ROWS = 32  # below: the AVX-512 tiles' own product beats sgemm (issue 31)
PANEL_ROWS_ENV = "AFM_QMM_PANEL_ROWS"
DEFAULT_PANEL_ROWS = 10  # from here the AVX-512 panel product beats the rest (Zen 4, issue 31)


def _env_int(name: str) -> int | None:
    raw = os.environ.get(name, "").strip()
    try:
        return int(raw) if raw else None
    except ValueError:
        log.warning("%s=%r is not an integer; ignored", name, raw)
        return None


def reload_environment() -> None:
    """Hand ``AFM_QMM_ISA``, ``AFM_QMM_THREADS``, ``AFM_QMM_BLAS_ROWS``,
    ``AFM_QMM_SGEMM_ROWS`` and ``AFM_QMM_PANEL_ROWS`` as set now (Python's ``os.environ``) to
    the extension, which otherwise read them once at import."""
    if _ext is None or not hasattr(_ext, "set_environment"):
        return
    _ext.set_environment(os.environ.get("AFM_QMM_ISA", "").strip(),
                         _env_int("AFM_QMM_THREADS") or 0)
    rows = _env_int(BLAS_ROWS_ENV)
    _ext.set_blas_rows(DEFAULT_BLAS_ROWS if rows is None else rows)
    if hasattr(_ext, "set_sgemm_rows"):
        rows = _env_int(SGEMM_ROWS_ENV)
        _ext.set_sgemm_rows(DEFAULT_SGEMM_ROWS if rows is None else rows)
    if hasattr(_ext, "set_panel_rows"):
        rows = _env_int(PANEL_ROWS_ENV)
        _ext.set_panel_rows(DEFAULT_PANEL_ROWS if rows is None else rows)
    if hasattr(_ext, "set_blas_bf16"):  # the inexact opt-in covers the many-row tiles too
        _ext.set_blas_bf16(int8_allowed())


def amx_tiles() -> bool:
    """Whether many-row products run on AMX bfloat16 tiles (``AFM_QMM_INT8=1`` on a CPU with
    AMX-BF16: inexact, like the int8 paths)."""
    return bool(_ext and hasattr(_ext, "blas_bf16") and _ext.blas_bf16())


def blas_rows() -> int:
    """Rows of x from which ``auto`` quantized matmuls take the BLAS tile path (0: never)."""
    return int(_ext.blas_rows()) if _ext and hasattr(_ext, "blas_rows") else 0


reload_environment()


def set_num_threads(n: int) -> None:
    """Threads per kernel call; ``n <= 0`` restores ``AFM_QMM_THREADS`` or all cores."""
    if _ext:
        _ext.set_num_threads(n)


def num_threads() -> int:
    """Threads per kernel call (0 without the extension)."""
    return int(_ext.num_threads()) if _ext else 0


def supports(group_size: int, bits: int, mode: str = "affine") -> bool:
    """Whether the kernel handles this quantization (and the extension is present)."""
    return (
        _ext is not None
        and mode == "affine"
        and bits in SUPPORTED_BITS
        and group_size in SUPPORTED_GROUP_SIZES
    )


def native_format(group_size: int, bits: int) -> bool:
    """Whether the native kernel reads this format in the native layers' layout (4 or 8 bits
    as MLX packs them, or planar 5 and 6 bits)."""
    return (bits in SUPPORTED_BITS and group_size in SUPPORTED_GROUP_SIZES) or \
        PLANAR_FORMATS.get(bits) == group_size


def dequantized_weight(layer: nn.Module) -> mx.array:
    """A quantized layer's float32 weight (MLX's packing, or the planar one of this module's
    native layers at 5 and 6 bits)."""
    if isinstance(layer, QuantizedLinearCPU | QuantizedEmbeddingCPU) and \
            layer.bits in PLANAR_FORMATS:
        import numpy as np

        from engine.gguf_blocks import dequantize

        return mx.array(dequantize(np.array(layer["weight"]), np.array(_f32(layer["scales"])),
                                   np.array(_f32(layer["biases"])), layer.group_size,
                                   layer.bits))
    return mx.dequantize(layer["weight"], layer["scales"], layer.get("biases"),
                         layer.group_size, layer.bits,
                         mode=getattr(layer, "mode", "affine")).astype(mx.float32)


def quantized_matmul(
    x: mx.array,
    w: mx.array,
    scales: mx.array,
    biases: mx.array,
    group_size: int,
    bits: int,
    isa: str = "auto",
) -> mx.array:
    """``x @ dequantize(w, scales, biases).T`` (``mx.quantized_matmul`` with transpose=True).

    Runs the native kernel on the CPU stream when it supports the format; other activation
    dtypes are computed in float32 and cast back. Falls back to ``mx.quantized_matmul``.
    """
    if bits in PLANAR_FORMATS:  # only native layers hold them, and only with the extension
        if _ext is None:
            raise RuntimeError("planar quantized weights need the native extension")
    elif not supports(group_size, bits) or x.shape[-1] % group_size:
        return mx.quantized_matmul(
            x, w, scales, biases, transpose=True, group_size=group_size, bits=bits
        )
    dtype = x.dtype
    if scales.dtype != biases.dtype or scales.dtype not in (mx.float32, mx.float16):
        scales, biases = _f32(scales), _f32(biases)
    out = _ext.quantized_matmul(_f32(x), w, scales, biases, group_size, bits, isa)
    return out if dtype == mx.float32 else out.astype(dtype)


def _f32(a: mx.array) -> mx.array:
    return a if a.dtype == mx.float32 else a.astype(mx.float32)


def half_scales_allowed() -> bool:
    """Whether native layers may keep exact float16 copies of their scales and biases
    (``AFM_QMM_HALF_SCALES``, default on)."""
    return os.environ.get(HALF_SCALES_ENV, "").strip().lower() not in ("0", "false", "off", "no")


def halve_scales(modules: list[nn.Module]) -> int:
    """Store the float32 scales and biases of ``modules`` as float16 where every value converts
    exactly (the native kernel reads them back as the same floats); returns how many layers
    changed. Layers with any value float16 cannot hold (a K-quant's products of two scales, an
    MLX model's bfloat16 ones past float16's range or precision) keep float32."""
    todo = [m for m in modules if m["scales"].dtype == mx.float32]
    halves = [(m["scales"].astype(mx.float16), m["biases"].astype(mx.float16)) for m in todo]
    exact = [mx.array_equal(hs.astype(mx.float32), m["scales"])
             & mx.array_equal(hb.astype(mx.float32), m["biases"])
             for m, (hs, hb) in zip(todo, halves, strict=True)]
    mx.eval(halves, exact)
    changed = 0
    for m, (hs, hb), ok in zip(todo, halves, exact, strict=True):
        if ok.item():
            m["scales"], m["biases"] = hs, hb
            changed += 1
    return changed


class QuantizedLinearCPU(nn.Module):
    """A drop-in for ``nn.QuantizedLinear`` (affine mode) whose matmul is the native kernel.

    Scales and biases are kept in float32 (converted once here), so calls convert nothing;
    :func:`halve_scales` may then store exact float16 copies.
    """

    def __init__(self, layer: nn.QuantizedLinear):
        super().__init__()
        self.group_size = layer.group_size
        self.bits = layer.bits
        self.mode = "affine"
        self.weight = layer.weight
        self.scales = layer.scales.astype(mx.float32)
        self.biases = layer["biases"].astype(mx.float32)
        if "bias" in layer:
            self.bias = layer.bias
        self.freeze()

    @classmethod
    def empty(cls, input_dims: int, output_dims: int, bias: bool, group_size: int,
              bits: int) -> QuantizedLinearCPU:
        """A layer of this shape and format whose arrays a checkpoint's load fills (the
        planar formats, which no MLX layer holds)."""
        self = cls.__new__(cls)
        nn.Module.__init__(self)
        self.group_size, self.bits, self.mode = group_size, bits, "affine"
        self.weight = mx.zeros((output_dims, input_dims * bits // 32), dtype=mx.uint32)
        self.scales = mx.zeros((output_dims, input_dims // group_size))
        self.biases = mx.zeros((output_dims, input_dims // group_size))
        if bias:
            self.bias = mx.zeros((output_dims,))
        self.freeze()
        return self

    def _extra_repr(self) -> str:
        out_dims, in_dims = self.weight.shape
        return (
            f"input_dims={in_dims * 32 // self.bits}, output_dims={out_dims}, "
            f"bias={'bias' in self}, group_size={self.group_size}, bits={self.bits}, native"
        )

    def product(self, x: mx.array) -> mx.array:
        """``x`` times the dequantized weight, transposed (no bias)."""
        if x.dtype == mx.float32:  # the hot path: straight to the op (this runs ~60x per token)
            return _ext.quantized_matmul(x, self["weight"], self["scales"], self["biases"],
                                         self.group_size, self.bits)
        return quantized_matmul(x, self["weight"], self["scales"], self["biases"],
                                self.group_size, self.bits)

    def __call__(self, x: mx.array) -> mx.array:
        y = self.product(x)
        return y + self["bias"] if "bias" in self else y


class ShardedToAllQuantizedLinearCPU(QuantizedLinearCPU):
    """A drop-in for mlx's ``QuantizedShardedToAllLinear`` (a tensor-parallel rank's slice of a
    layer's input columns): the native product of this rank's slice, summed over the group,
    then the bias. (Its sibling ``QuantizedAllToShardedLinear`` is, forward, a plain quantized
    linear of this rank's output rows: :class:`QuantizedLinearCPU` takes it as it is.)"""

    def __init__(self, layer: nn.Module):
        super().__init__(layer)  # type: ignore[arg-type]
        self.group = layer.group

    def __call__(self, x: mx.array) -> mx.array:
        y = mx.distributed.all_sum(self.product(x), group=self.group)
        return y + self["bias"] if "bias" in self else y


class QuantizedEmbeddingCPU(nn.QuantizedEmbedding):
    """``nn.QuantizedEmbedding`` whose lookup and ``as_linear`` (a tied LM head) are native.

    The lookup dequantizes only the gathered rows, in one op (``quantized_rows``; MLX's CPU
    dequantize is a graph of about 40 shifts, masks and broadcasts per lookup).
    """

    def __init__(self, layer: nn.QuantizedEmbedding):
        nn.Module.__init__(self)
        self.group_size = layer.group_size
        self.bits = layer.bits
        self.mode = "affine"
        self.num_embeddings = layer.num_embeddings
        self.dims = layer.dims
        self.weight = layer.weight
        self.scales = layer.scales.astype(mx.float32)
        self.biases = layer["biases"].astype(mx.float32)
        self.freeze()

    @classmethod
    def empty(cls, num_embeddings: int, dims: int, group_size: int,
              bits: int) -> QuantizedEmbeddingCPU:
        """An embedding of this shape and format whose arrays a checkpoint's load fills."""
        self = cls.__new__(cls)
        nn.Module.__init__(self)
        self.group_size, self.bits, self.mode = group_size, bits, "affine"
        self.num_embeddings, self.dims = num_embeddings, dims
        self.weight = mx.zeros((num_embeddings, dims * bits // 32), dtype=mx.uint32)
        self.scales = mx.zeros((num_embeddings, dims // group_size))
        self.biases = mx.zeros((num_embeddings, dims // group_size))
        self.freeze()
        return self

    def __call__(self, x: mx.array) -> mx.array:
        if not mx.issubdtype(x.dtype, mx.integer):
            return super().__call__(x)
        return _ext.quantized_rows(x, self.weight, self.scales, self.biases, self.group_size,
                                   self.bits)

    def as_linear(self, x: mx.array) -> mx.array:
        return quantized_matmul(
            x, self.weight, self.scales, self.biases, self.group_size, self.bits
        )


SHARDED_QUANTIZED: tuple[type, ...] = (dist_layers.QuantizedAllToShardedLinear,
                                       dist_layers.QuantizedShardedToAllLinear)
"""mlx's tensor-parallel quantized linears (``model.shard(group)``): the kernel runs them too."""


def _swappable(module: Any) -> bool:
    return (
        isinstance(module, (nn.QuantizedLinear, nn.QuantizedEmbedding, *SHARDED_QUANTIZED))
        and module.get("biases") is not None
        and supports(module.group_size, module.bits, getattr(module, "mode", "affine"))
    )


def swap_leaf_modules(model: nn.Module, replacement: Callable[[Any], Any | None]) -> int:
    """Replace each leaf module of ``model`` for which ``replacement`` returns a module; returns
    how many were replaced."""
    swapped = 0

    def swap(_path: str, module: Any) -> Any:
        nonlocal swapped
        new = replacement(module)
        if new is None:
            return module
        swapped += 1
        return new

    leaves = tree_map_with_path(swap, model.leaf_modules(), is_leaf=nn.Module.is_module)
    model.update_modules(leaves)
    return swapped


def use_native_kernels(model: nn.Module, device: mx.Device | None = None, *,
                       int8: bool = False) -> int:
    """Swap the model's quantized linear layers (and quantized embeddings, for tied heads) for
    ones calling the native kernel. Only on CPU devices (``device`` defaults to MLX's default
    device) and only when the extension is present; returns how many layers were swapped.
    """
    device = device or mx.default_device()
    if _ext is None or device.type != mx.DeviceType.cpu:
        return 0
    reload_environment()

    def replacement(module: Any) -> Any | None:
        if isinstance(module, QuantizedLinearCPU | QuantizedEmbeddingCPU) or not _swappable(
            module
        ):
            return None
        if isinstance(module, nn.QuantizedEmbedding):
            return QuantizedEmbeddingCPU(module)
        if isinstance(module, dist_layers.QuantizedShardedToAllLinear):
            return ShardedToAllQuantizedLinearCPU(module)
        return QuantizedLinearCPU(module)

    swapped = swap_leaf_modules(model, replacement)
    # materialize the float32 scales now, so the original ones are freed at once
    native = [m for _, m in model.named_modules()
              if isinstance(m, QuantizedLinearCPU | QuantizedEmbeddingCPU)]
    mx.eval([m.parameters() for m in native])
    if native and half_scales_allowed():
        halved = halve_scales(native)
        if halved:
            log.info("afm_qmm: %d of %d quantized layers keep float16 scales and biases "
                     "(exact; %s=0 keeps float32)", halved, len(native), HALF_SCALES_ENV)
    if swapped:
        timed = time_paths(model, int8)
        log.info("afm_qmm: %d quantized layers use the native kernel (%d threads; %s)",
                 swapped, _ext.num_threads(),
                 "; ".join(t.describe() for t in timed) or f"{_ext.default_isa()} path")
    return swapped


def time_paths(model: nn.Module, int8: bool = False) -> list[IsaTiming]:
    """Time the kernel's SIMD paths on ``model``'s native quantized layers and run the faster
    per bit width from now on (:func:`engine.qkernel_isa.pick_isas`)."""
    if _ext is None:
        return []
    layers = [m for _, m in model.named_modules()
              if isinstance(m, QuantizedLinearCPU | QuantizedEmbeddingCPU)]
    return pick_isas(_ext, layers, int8)


def auto_isa(bits: int) -> str | None:
    """The path the kernel runs at ``bits`` (``AFM_QMM_ISA``, else the one timed fastest at
    load by :func:`engine.qkernel_isa.pick_isas`, else the widest supported)."""
    if _ext is None:
        return None
    return _ext.auto_isa(bits) if hasattr(_ext, "auto_isa") else _ext.default_isa()


def _main(argv: list[str]) -> int:
    """``python -m engine.qkernels build``: build the extension in place (engine/)."""
    from engine.qkernels_build import build_extension

    logging.basicConfig(level=logging.INFO, format="%(message)s")
    if argv[:1] != ["build"]:
        print("usage: python -m engine.qkernels build", file=sys.stderr)
        return 2
    path = build_extension(quiet="-v" not in argv)
    if path is None:
        return 1
    print(f"afm_qmm: built {path}")
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
