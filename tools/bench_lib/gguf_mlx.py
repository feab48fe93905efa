"""A llama-family GGUF file (Q4_0 / Q4_1 / Q8_0 / float) as an mlx-lm model, in process.

A benchmark-only loader until afm serves GGUF itself: ``mx.load`` reads these tensor types as
MLX affine quantized triples (group size 32); llama files store the Q and K rows permuted for
llama.cpp's rotary layout, undone here per head (design.md, "Loading facts"). Random token ids
stand in for a tokenizer, so no tokenizer is built.
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


def load_llama_gguf(path: Path | str) -> tuple[nn.Module, dict[str, Any]]:
    """The model (mlx-lm ``llama``, quantized layers as in the file) and its config."""
    from mlx_lm.models import llama

    weights, meta = mx.load(str(path), return_metadata=True)
    arch = str(meta["general.architecture"])
    if arch != "llama":
        raise ValueError(f"{path}: architecture {arch}, this loader reads llama files only")
    heads = int(_scalar(meta, "llama.attention.head_count"))
    kv_heads = int(_scalar(meta, "llama.attention.head_count_kv"))
    config = {
        "model_type": "llama",
        "hidden_size": int(_scalar(meta, "llama.embedding_length")),
        "num_hidden_layers": int(_scalar(meta, "llama.block_count")),
        "intermediate_size": int(_scalar(meta, "llama.feed_forward_length")),
        "num_attention_heads": heads,
        "num_key_value_heads": kv_heads,
        "rms_norm_eps": float(_scalar(meta, "llama.attention.layer_norm_rms_epsilon")),
        "vocab_size": int(_scalar(meta, "llama.vocab_size")),
        "rope_theta": float(_scalar(meta, "llama.rope.freq_base")),
        "max_position_embeddings": int(_scalar(meta, "llama.context_length")),
        "tie_word_embeddings": "output.weight" not in weights,
    }
    out: dict[str, mx.array] = {}
    quantized: set[str] = set()
    for name, arr in weights.items():
        parts = name.split(".")
        if parts[0] == "blk":
            layer, kind, field = parts[1], parts[2], parts[3]
            target = f"model.layers.{layer}.{_NAMES[kind]}.{field}"
            if kind in ("attn_q", "attn_k"):
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
    args = llama.ModelArgs.from_dict(config)
    model = llama.Model(args)
    bits = {name: out[f"{name}.weight"].shape[1] // out[f"{name}.scales"].shape[1]
            for name in quantized}
    nn.quantize(model, group_size=32,
                class_predicate=lambda p, m: ({"group_size": 32, "bits": bits[p]}
                                              if p in bits else False))
    model.load_weights(list(out.items()), strict=True)
    mx.eval(model.parameters())
    return model, config
