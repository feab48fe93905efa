"""A llama or qwen2 GGUF file as an mlx-lm model, in process.

A benchmark-only loader until afm serves GGUF itself: ``mx.load`` reads Q4_0 / Q4_1 / Q8_0 and
float tensors as MLX affine quantized triples (group size 32); llama files store the Q and K
rows permuted for llama.cpp's rotary layout, undone here per head (design.md, "Loading facts").
Files ``mx.load`` cannot read (K-quants: Q4_K_M) are dequantized by the ``gguf`` package and
quantized again as MLX 4-bit, group size 32 (the copy the issue 31 table measured). Random
token ids stand in for a tokenizer, so no tokenizer is built.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import mlx.core as mx
import mlx.nn as nn

_NAMES = {
    "attn_q": "self_attn.q_proj", "attn_k": "self_attn.k_proj", "attn_v": "self_attn.v_proj",
    "attn_output": "self_attn.o_proj", "ffn_gate": "mlp.gate_proj", "ffn_up": "mlp.up_proj",
    "ffn_down": "mlp.down_proj", "attn_norm": "input_layernorm",
    "ffn_norm": "post_attention_layernorm",
}


def _unpermute(a: mx.array, heads: int) -> mx.array:
    rows = a.shape[0]
    return a.reshape(heads, rows // heads // 2, 2, *a.shape[1:]).swapaxes(1, 2).reshape(a.shape)


def _scalar(meta: dict[str, Any], key: str) -> Any:
    v = meta[key]
    return v.item() if isinstance(v, mx.array) else v


def _read_with_gguf(path: Path | str) -> tuple[dict[str, mx.array], dict[str, Any]]:
    """Every tensor dequantized to float32 by the ``gguf`` package, and the metadata."""
    import numpy as np
    from gguf import GGUFReader
    from gguf.quants import dequantize

    reader = GGUFReader(str(path))
    meta: dict[str, Any] = {}
    for name, field in reader.fields.items():
        if name.startswith("tokenizer.") or not field.types:
            continue
        try:
            meta[name] = field.contents()
        except Exception:  # noqa: BLE001 - a field this reader cannot decode is not needed
            continue
    weights = {}
    for t in reader.tensors:
        arr = dequantize(t.data, t.tensor_type).astype(np.float32)
        weights[t.name] = mx.array(arr.reshape([int(d) for d in reversed(t.shape)]))
    return weights, meta


def load_llama_gguf(path: Path | str) -> tuple[nn.Module, dict[str, Any]]:
    """The model (mlx-lm ``llama`` or ``qwen2``, quantized layers) and its config."""
    from mlx_lm.models import llama, qwen2

    try:
        weights, meta = mx.load(str(path), return_metadata=True)
        requantize = False
    except (RuntimeError, ValueError):  # K-quants: dequantize, then MLX 4-bit g32
        weights, meta = _read_with_gguf(path)
        requantize = True
    arch = str(meta["general.architecture"])
    if arch not in ("llama", "qwen2"):
        raise ValueError(f"{path}: architecture {arch}; this loader reads llama and qwen2")
    heads = int(_scalar(meta, f"{arch}.attention.head_count"))
    kv_heads = int(_scalar(meta, f"{arch}.attention.head_count_kv"))
    config = {
        "model_type": arch,
        "hidden_size": int(_scalar(meta, f"{arch}.embedding_length")),
        "num_hidden_layers": int(_scalar(meta, f"{arch}.block_count")),
        "intermediate_size": int(_scalar(meta, f"{arch}.feed_forward_length")),
        "num_attention_heads": heads,
        "num_key_value_heads": kv_heads,
        "rms_norm_eps": float(_scalar(meta, f"{arch}.attention.layer_norm_rms_epsilon")),
        "vocab_size": int(weights["token_embd.weight"].shape[0]),
        "rope_theta": float(_scalar(meta, f"{arch}.rope.freq_base")),
        "max_position_embeddings": int(_scalar(meta, f"{arch}.context_length")),
        "tie_word_embeddings": "output.weight" not in weights,
    }
    out: dict[str, mx.array] = {}
    quantized: set[str] = set()
    for name, arr in weights.items():
        parts = name.split(".")
        if parts[0] == "blk":
            layer, kind, field = parts[1], parts[2], parts[3]
            target = f"model.layers.{layer}.{_NAMES[kind]}.{field}"
            if arch == "llama" and kind in ("attn_q", "attn_k"):
                arr = _unpermute(arr, heads if kind == "attn_q" else kv_heads)
        elif parts[0] == "token_embd":
            target = f"model.embed_tokens.{parts[1]}"
        elif parts[0] == "output_norm":
            target = f"model.norm.{parts[1]}"
        elif parts[0] == "output":
            target = f"lm_head.{parts[1]}"
        else:
            continue
        if parts[-1] == "scales":
            quantized.add(target.rsplit(".", 1)[0])
        out[target] = arr
    module = llama if arch == "llama" else qwen2
    model = module.Model(module.ModelArgs.from_dict(config))
    if requantize:
        model.load_weights(list(out.items()), strict=True)
        nn.quantize(model, group_size=32, bits=4,
                    class_predicate=lambda p, m: hasattr(m, "to_quantized")
                    and m.weight.shape[-1] % 32 == 0)
        mx.eval(model.parameters())
        return model, config
    bits = {name: out[f"{name}.weight"].shape[1] // out[f"{name}.scales"].shape[1]
            for name in quantized}
    nn.quantize(model, group_size=32,
                class_predicate=lambda p, m: ({"group_size": 32, "bits": bits[p]}
                                              if p in bits else False))
    model.load_weights(list(out.items()), strict=True)
    mx.eval(model.parameters())
    return model, config
