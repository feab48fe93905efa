"""Model folders into (model, tokenizer): mlx-lm's loader, plus the planar layers of AFM's GGUF
folders (HTTP-free).

A converted GGUF folder (``engine.gguf_load``) keeps Q5_0/Q5_1/Q5_K and Q6_K codes in the
native kernel's planar 5- and 6-bit formats, which no MLX layer holds. Its ``config.json``
lists those layers under :data:`PLANAR_KEY` (path -> bits and group size); they are built as
the native layers (``engine.qkernels``) before the weights load, so mlx-lm's loader fills them
like any other. Without the native extension they are dequantized to float32 after the load
(exact, at float32's memory).
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

PLANAR_KEY = "afm_planar"


def planar_layers(path: str | Path) -> dict[str, dict[str, int]]:
    """The planar layers a model folder's config lists ({} for any other folder or hub id)."""
    config = Path(path) / "config.json"
    try:
        return dict(json.loads(config.read_text()).get(PLANAR_KEY) or {})
    except (OSError, ValueError):
        return {}


def load(path: str, *, lazy: bool = False) -> tuple[Any, Any]:
    """``(model, tokenizer)`` of a local folder or hub id, as ``mlx_lm.load`` gives them,
    planar layers included."""
    from mlx_lm import load as mlx_load

    planar = planar_layers(path)
    if not planar:
        return tuple(mlx_load(path, lazy=lazy)[:2])  # type: ignore[return-value]
    from mlx_lm.utils import _get_classes, load_model, load_tokenizer

    def classes(config: dict[str, Any]) -> tuple[Any, Any]:
        model_class, args_class = _get_classes(config=config)

        def build(args: Any) -> Any:
            model = model_class(args)
            place_planar(model, planar)
            return model

        return build, args_class

    model, config = load_model(Path(path), lazy, get_model_classes=classes)
    from engine import qkernels

    if not qkernels.available():
        count = dequantize_planar(model)
        log.warning("%d planar 5/6-bit layers dequantized to float32: the native kernels are "
                    "not built (%s)", count, qkernels.unavailable_reason())
    tokenizer = load_tokenizer(Path(path), {}, eos_token_ids=config.get("eos_token_id"))
    return model, tokenizer


def place_planar(model: Any, planar: dict[str, dict[str, int]]) -> None:
    """Replace each listed ``Linear``/``Embedding`` of a freshly built ``model`` by an empty
    native layer of the listed format and the same shape."""
    import mlx.nn as nn
    from mlx.utils import tree_unflatten

    from engine.qkernels import QuantizedEmbeddingCPU, QuantizedLinearCPU

    modules = dict(model.named_modules())
    swaps = []
    for name, spec in planar.items():
        module = modules.get(name)
        bits, group = int(spec["bits"]), int(spec["group_size"])
        if isinstance(module, nn.Embedding):
            rows, dims = module.weight.shape
            swaps.append((name, QuantizedEmbeddingCPU.empty(rows, dims, group, bits)))
        elif isinstance(module, nn.Linear):
            rows, cols = module.weight.shape
            swaps.append((name, QuantizedLinearCPU.empty(cols, rows, "bias" in module, group,
                                                         bits)))
        else:
            raise ValueError(f"planar layer {name}: the model has no Linear or Embedding there")
    model.update_modules(tree_unflatten(swaps))


def dequantize_planar(model: Any) -> int:
    """Planar native layers of ``model`` as float32 ``Linear``/``Embedding`` layers; the count."""
    import mlx.core as mx
    import mlx.nn as nn
    from mlx.utils import tree_unflatten

    from engine.qkernels import (
        PLANAR_FORMATS,
        QuantizedEmbeddingCPU,
        QuantizedLinearCPU,
        dequantized_weight,
    )

    swaps = []
    for name, m in model.named_modules():
        if not isinstance(m, QuantizedLinearCPU | QuantizedEmbeddingCPU) or \
                m.bits not in PLANAR_FORMATS:
            continue
        weight = dequantized_weight(m)
        if isinstance(m, QuantizedEmbeddingCPU):
            new: nn.Module = nn.Embedding(*weight.shape)
        else:
            new = nn.Linear(weight.shape[1], weight.shape[0], bias="bias" in m)
            if "bias" in m:
                new.bias = m["bias"]
        new.weight = weight
        mx.eval(new.parameters())
        swaps.append((name, new))
    if swaps:
        model.update_modules(tree_unflatten(swaps))
    return len(swaps)
