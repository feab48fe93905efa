"""CPU weight policy: run quantized and half-precision checkpoints as float32 on a CPU device.

MLX's CPU backend sends only float32 matmuls to BLAS. Quantized matmuls run a scalar loop that
dequantizes every weight on every step, and bf16/fp16 matmuls a scalar gemm: a 4-bit or bf16
copy of a model decodes 3-7x slower than the same weights in float32 (measured in
/work/shared/design.md). Where memory allows, the policy therefore converts at load:

- ``nn.QuantizedLinear`` -> ``nn.Linear`` and ``nn.QuantizedEmbedding`` -> ``nn.Embedding`` with
  ``mx.dequantize``d float32 weights (exactly the quantized model's effective weights; a tied
  embedding used as the LM head goes through ``Embedding.as_linear``, a float32 matmul too);
- every other bf16/fp16 parameter -> float32.

With AFM's native quantized kernel (``engine.qkernels``, issue 18) built, 4- and 8-bit affine
checkpoints instead keep their quantized weights and run on it: as fast as float32 through BLAS
or faster, in a quarter to an eighth of the memory (tools/bench_qkernels.py).

Modes (``--cpu-weights``): ``auto`` runs quantized weights on the native kernel when it covers
every quantized layer, else converts when the float32 copy fits the memory budget; ``float32``
always converts; ``native`` never converts (quantized layers still use the native kernel when
present). Metal devices are never touched.

Budget: the float32 copy needs ``float32_bytes - native_bytes`` more memory than the loaded
model. It fits when that growth is at most the budget: ``AFM_CPU_WEIGHTS_BUDGET`` (bytes) when
set, else :data:`BUDGET_FRACTION` of the memory the OS reports available (``MemAvailable``,
physical memory minus what is in use, measured after the native weights loaded). The other half
stays for KV caches, the prefix cache and everything else.
"""

from __future__ import annotations

import logging
import os
from dataclasses import asdict, dataclass
from typing import Any

import mlx.core as mx
import mlx.nn as nn
import mlx.nn.layers.distributed as dist_layers
from mlx.utils import tree_flatten, tree_unflatten

log = logging.getLogger(__name__)

MODES = ("auto", "float32", "native")
BUDGET_ENV = "AFM_CPU_WEIGHTS_BUDGET"
BUDGET_FRACTION = 0.5
_HALF = (mx.float16, mx.bfloat16)


@dataclass
class WeightsChoice:
    """What the policy chose for one model, for logs, ``/health`` and ``afm_profile``."""

    mode: str
    """The requested mode: ``auto``, ``float32`` or ``native``."""
    weights: str
    """What runs: ``float32`` (converted or already so) or ``native``."""
    source: str
    """The checkpoint's format: ``float32``, ``bfloat16``, ``float16``, ``4-bit``, ``8-bit``..."""
    converted: bool
    """True when layers were dequantized or cast at load."""
    reason: str
    """Why, in one sentence."""
    native_bytes: int = 0
    float32_bytes: int = 0
    budget_bytes: int | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _is_cpu() -> bool:
    return mx.default_device().type == mx.DeviceType.cpu


def available_memory() -> int | None:
    """Bytes the OS reports available (``MemAvailable``), or None when unknown."""
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return int(os.sysconf("SC_AVPHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return None


def memory_budget() -> int | None:
    """Bytes the float32 copy may add: ``AFM_CPU_WEIGHTS_BUDGET``, else a fraction of what is
    available; None when neither is known."""
    forced = os.environ.get(BUDGET_ENV, "").strip()
    if forced:
        try:
            return max(0, int(float(forced)))
        except ValueError as exc:
            raise ValueError(f"{BUDGET_ENV}={forced!r} is not a number of bytes") from exc
    free = available_memory()
    return None if free is None else int(free * BUDGET_FRACTION)


_SHARDED = {dist_layers.QuantizedAllToShardedLinear: dist_layers.AllToShardedLinear,
            dist_layers.QuantizedShardedToAllLinear: dist_layers.ShardedToAllLinear}
"""mlx's tensor-parallel quantized linears (a sharded rank's layers) and their float32 kinds."""


def _quantized(module: nn.Module) -> bool:
    from engine.qkernels import QuantizedLinearCPU

    return isinstance(module, (nn.QuantizedLinear, nn.QuantizedEmbedding, QuantizedLinearCPU,
                               *_SHARDED))


def _float_module(module: nn.Module, weight: mx.array) -> nn.Module:
    """The float32 layer of ``module``'s kind (embedding, linear, or the same tensor-parallel
    slice of a linear) for its dequantized ``weight``, bias included."""
    if isinstance(module, nn.QuantizedEmbedding):
        new: nn.Module = nn.Embedding(*weight.shape)
    else:
        has_bias = "bias" in module
        rows, cols = weight.shape
        kind = _SHARDED.get(type(module))
        if kind is dist_layers.AllToShardedLinear:  # this rank's output rows
            n = int(module.group.size())
            new = kind(cols, rows * n, bias=has_bias, group=module.group)
        elif kind is dist_layers.ShardedToAllLinear:  # this rank's input columns
            n = int(module.group.size())
            new = kind(cols * n, rows, bias=has_bias, group=module.group)
        else:
            new = nn.Linear(cols, rows, bias=has_bias)
        if has_bias:
            new.bias = module.bias.astype(mx.float32)
    new.weight = weight
    return new


def _other_quantized(model: nn.Module) -> list[str]:
    """Class names of quantized layers this policy does not convert (e.g. MoE experts'
    ``QuantizedSwitchLinear``): they keep running MLX's quantized kernel."""
    return sorted({type(m).__name__ for _, m in model.named_modules()
                   if not _quantized(m) and "scales" in m and hasattr(m, "bits")})


def _float32_size(module: nn.Module) -> int:
    """Bytes of a quantized module's dequantized float32 weight (plus its bias)."""
    rows, packed = module.weight.shape[-2:]
    cols = packed * 32 // module.bits
    bias = getattr(module, "bias", None) if "bias" in module else None
    return rows * cols * 4 + (bias.size * 4 if bias is not None else 0)


def describe(model: nn.Module) -> tuple[str, int, int]:
    """``(source format, native bytes, float32 bytes)`` of a loaded model's parameters."""
    quant_bits: set[int] = set()
    dtypes: set[str] = set()
    native = f32 = 0
    quant_params: set[str] = set()
    for name, module in model.named_modules():
        if _quantized(module):
            quant_bits.add(int(module.bits))
            f32 += _float32_size(module)
            prefix = f"{name}." if name else ""
            quant_params.update(prefix + k for k, _ in tree_flatten(module.parameters()))
    for name, value in tree_flatten(model.parameters()):
        native += value.nbytes
        if name in quant_params:
            continue
        if mx.issubdtype(value.dtype, mx.floating):
            dtypes.add(str(value.dtype).removeprefix("mlx.core."))
            f32 += value.size * 4
        else:
            f32 += value.nbytes
    if quant_bits:
        source = "/".join(f"{b}-bit" for b in sorted(quant_bits))
    else:
        halves = sorted(d for d in dtypes if d != "float32")
        source = "/".join(halves) if halves else "float32"
    return source, native, f32


def to_float32(model: nn.Module) -> int:
    """Dequantize quantized layers into float32 ``Linear``/``Embedding`` and cast half-precision
    parameters to float32, in place; returns the number of layers dequantized."""
    from engine import qkernels

    count = 0
    quantized = [(name, m) for name, m in model.named_modules() if _quantized(m)]
    while quantized:
        name, module = quantized.pop()
        weight = qkernels.dequantized_weight(module)
        new = _float_module(module, weight)
        mx.eval(new.parameters())
        # swap one layer at a time, so the quantized copy is freed as the float32 one grows
        model.update_modules(tree_unflatten([(name, new)]))
        del module, new, weight
        count += 1
    model.set_dtype(mx.float32, lambda dtype: dtype in _HALF)
    mx.eval(model.parameters())
    return count


def _kernel_covers(model: nn.Module) -> bool:
    """Whether the native quantized kernel is built and handles every quantized layer."""
    from engine import qkernels

    layers = [m for _, m in model.named_modules() if _quantized(m)]
    native = (qkernels.QuantizedLinearCPU, qkernels.QuantizedEmbeddingCPU)
    return bool(layers) and not _other_quantized(model) and all(
        "biases" in m and (qkernels.native_format(m.group_size, m.bits) if isinstance(m, native)
                           else qkernels.supports(m.group_size, m.bits,
                                                  getattr(m, "mode", "affine")))
        for m in layers)


def _use_kernel(model: nn.Module, choice: WeightsChoice, int8: bool = False) -> None:
    """Run the quantized layers on the native kernel; other half-precision parameters (norms)
    become float32."""
    from engine import qkernels
    from engine.qkernel_isa import INT8_ENV

    # first, so that the native layers' exact float16 scales (qkernels.halve_scales) stay so
    model.set_dtype(mx.float32, lambda dtype: dtype in _HALF)
    # also times its SIMD paths on this model (int8 ones too where the file allows: int8)
    count = qkernels.use_native_kernels(model, int8=int8)
    mx.eval(model.parameters())
    choice.native_bytes = sum(v.nbytes for _, v in tree_flatten(model.parameters()))
    bits = sorted({m.bits for _, m in model.named_modules()
                   if isinstance(m, qkernels.QuantizedLinearCPU | qkernels.QuantizedEmbeddingCPU)})
    paths = ", ".join(f"{qkernels.auto_isa(b)} at {b} bits" for b in bits)
    choice.reason = (f"{choice.source} weights run on AFM's native quantized CPU kernel "
                     f"({paths}, {count} layers): {_mib(choice.native_bytes)} "
                     f"instead of {_mib(choice.float32_bytes)} as float32")
    if int8:
        choice.reason += ("; int8-activation paths timed too: this file measured at least "
                          "llama.cpp's agreement on them (engine.fidelity)")
    if qkernels.amx_tiles():
        choice.reason += ("; many-row products on AMX bfloat16 tiles "
                          f"(from {qkernels.blas_rows()} rows; {INT8_ENV}=1)")


def use_parallel_matmuls(model: nn.Module, choice: WeightsChoice) -> None:
    """After :func:`apply`: float32 weights on the CPU get the parallel matmul
    (``engine.parallel_linear``); the choice's reason says so."""
    if choice.weights != "float32" or not _is_cpu():
        return
    from engine import parallel_linear, qkernels

    count = parallel_linear.use_parallel_matmuls(model)
    if count:
        choice.reason += (f"; float32 matmuls split over {qkernels.num_threads()} threads "
                          f"({count} layers)")


def use_fused_siblings(model: nn.Module, choice: WeightsChoice) -> None:
    """After the CPU layers are in place (:func:`apply`, :func:`use_parallel_matmuls`): sibling
    projections of one input run as one matmul (``engine.fused_linear``); the reason says so."""
    if not _is_cpu():
        return
    from engine import fused_linear

    count = fused_linear.fuse_siblings(model)
    if count:
        choice.reason += f"; q/k/v and gate/up projections fused ({count} groups)"


def use_native_ops(choice: WeightsChoice) -> None:
    """On the CPU, route RMSNorm, RoPE and decode attention through the native ops
    (``engine.fast_ops``, process-wide); the choice's reason says so."""
    if not _is_cpu():
        return
    from engine import fast_ops

    if fast_ops.install():
        choice.reason += "; RMSNorm, RoPE, SiLU gate and decode attention as native CPU ops"


def use_decode_layers(model: nn.Module, choice: WeightsChoice) -> None:
    """After fusion and the native ops: decode steps' attention and MLP as a few native ops a
    layer (``engine.decode_layers``); the choice's reason says so."""
    from engine import decode_layers, decode_stack, fast_ops

    if not _is_cpu() or not fast_ops.installed():
        return
    count = decode_layers.install(model)
    if count:
        choice.reason += f"; decode attention and MLP as native layer ops ({count} modules)"
        stacked = decode_stack.install(model)
        if stacked:
            choice.reason += "; a decode step's layers as one native op"
        log.info("decode steps: attention and MLP as native layer ops (%d modules); %s", count,
                 "the whole step's layers as one native op" if stacked else
                 f"layer by layer ({decode_stack.available() or 'some layer does not qualify'})")


def prepare(model: nn.Module, mode: str = "auto", what: str = "model", *,
            sharded: bool = False, int8: bool = False) -> WeightsChoice:
    """Everything the engine does to a freshly loaded model for the CPU: :func:`apply`,
    then (not when sharded: the ranks already share the cores, and their layers are shards)
    :func:`use_parallel_matmuls` and :func:`use_fused_siblings`, then :func:`use_native_ops`
    and (not sharded) :func:`use_decode_layers`."""
    choice = apply(model, mode, what=what, int8=int8)
    if not sharded:
        use_parallel_matmuls(model, choice)
        use_fused_siblings(model, choice)
    use_native_ops(choice)
    if not sharded:
        use_decode_layers(model, choice)
    return choice


def apply(model: nn.Module, mode: str = "auto", what: str = "model", *,
          int8: bool = False) -> WeightsChoice:
    """Apply the policy to a freshly loaded ``model``; logs one line saying what and why.
    ``int8``: the int8-activation kernel paths may be timed and chosen (the model's file
    measured at least llama.cpp's agreement on them: ``engine.fidelity``)."""
    if mode not in MODES:
        raise ValueError(f"cpu weights mode {mode!r}: choose one of {', '.join(MODES)}")
    source, native, f32 = describe(model)
    choice = WeightsChoice(mode, "native", source, False, "", native, f32)
    if not _is_cpu():
        choice.reason = f"{mx.default_device()} device: weights run as loaded"
    elif source == "float32":
        choice.weights = "float32"
        choice.reason = "the checkpoint is float32 already"
    elif mode != "float32" and _kernel_covers(model):
        _use_kernel(model, choice, int8)
    elif mode == "native":
        choice.reason = (f"--cpu-weights native: {source} matmuls run MLX's scalar CPU kernels "
                         "(3-7x slower than float32 through BLAS)")
    else:
        budget = memory_budget()
        choice.budget_bytes = budget
        growth = f32 - native
        fits = budget is None or growth <= budget
        if mode == "float32" or fits:
            count = to_float32(model)
            choice.weights, choice.converted = "float32", True
            how = f"{count} quantized layers dequantized" if count else "cast"
            why = ("--cpu-weights float32" if mode == "float32" else
                   f"the float32 copy (+{_mib(growth)}) fits the budget "
                   f"({_mib(budget) if budget is not None else 'unknown'})")
            choice.reason = (f"{source} -> float32 ({how}, {_mib(f32)}): {why}; BLAS runs "
                             "float32 matmuls only")
            others = _other_quantized(model)
            if others:
                choice.reason += f"; {', '.join(others)} layers stay quantized"
        else:
            choice.reason = (f"the float32 copy (+{_mib(growth)}) does not fit the budget "
                             f"({_mib(budget)}, {BUDGET_ENV} or half of available memory): "
                             f"{source} weights run natively on MLX's scalar CPU kernels, "
                             "3-7x slower than float32 through BLAS")
            log.warning("CPU weights for %s: %s", what, choice.reason)
            return choice
    log.info("CPU weights for %s: %s (%s)", what, choice.weights, choice.reason)
    return choice


def _mib(n: int | None) -> str:
    return "?" if n is None else f"{n / 2**20:.0f} MiB"
