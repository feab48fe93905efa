"""Config files and seeded random weights of a built model (HF Qwen3 layout)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from modelbuilder.chat_template import chat_template
from modelbuilder.spec import ModelSpec
from modelbuilder.tokens import CONTROL_TOKENS, EOS_TOKEN, PAD_TOKEN, SPECIAL_TOKEN_IDS


def model_config(spec: ModelSpec, vocab_size: int) -> dict[str, Any]:
    return {
        "architectures": ["Qwen3ForCausalLM"],
        "model_type": "qwen3",
        "attention_bias": False,
        "attention_dropout": 0.0,
        "bos_token_id": SPECIAL_TOKEN_IDS[PAD_TOKEN],
        "eos_token_id": SPECIAL_TOKEN_IDS[EOS_TOKEN],
        "pad_token_id": SPECIAL_TOKEN_IDS[PAD_TOKEN],
        "head_dim": spec.head_dim,
        "hidden_act": "silu",
        "hidden_size": spec.hidden_size,
        "initializer_range": 0.02,
        "intermediate_size": spec.intermediate_size,
        "max_position_embeddings": spec.max_position_embeddings,
        "max_window_layers": spec.num_layers,
        "num_attention_heads": spec.num_heads,
        "num_hidden_layers": spec.num_layers,
        "num_key_value_heads": spec.num_kv_heads,
        "rms_norm_eps": spec.rms_norm_eps,
        "rope_scaling": None,
        "rope_theta": spec.rope_theta,
        "sliding_window": None,
        "use_sliding_window": False,
        "tie_word_embeddings": spec.tie_word_embeddings,
        "torch_dtype": spec.dtype,
        "use_cache": True,
        "vocab_size": vocab_size,
    }


def generation_config() -> dict[str, Any]:
    return {
        "bos_token_id": SPECIAL_TOKEN_IDS[PAD_TOKEN],
        "eos_token_id": [SPECIAL_TOKEN_IDS[EOS_TOKEN], SPECIAL_TOKEN_IDS[PAD_TOKEN]],
        "pad_token_id": SPECIAL_TOKEN_IDS[PAD_TOKEN],
        "do_sample": True,
        "temperature": 0.6,
        "top_p": 0.95,
        "top_k": 20,
    }


def tokenizer_config(spec: ModelSpec) -> dict[str, Any]:
    added = {
        str(i): {
            "content": tok,
            "lstrip": False,
            "normalized": False,
            "rstrip": False,
            "single_word": False,
            "special": tok in CONTROL_TOKENS,
        }
        for tok, i in SPECIAL_TOKEN_IDS.items()
    }
    return {
        "add_bos_token": False,
        "add_prefix_space": False,
        "added_tokens_decoder": added,
        "additional_special_tokens": ["<|im_start|>", "<|im_end|>"],
        "bos_token": None,
        "chat_template": chat_template(spec.tool_format),
        "clean_up_tokenization_spaces": False,
        "eos_token": EOS_TOKEN,
        "errors": "replace",
        "model_max_length": spec.max_position_embeddings,
        "pad_token": PAD_TOKEN,
        "split_special_tokens": False,
        "tokenizer_class": "Qwen2Tokenizer",
        "unk_token": None,
    }


def special_tokens_map() -> dict[str, Any]:
    def entry(tok: str) -> dict[str, Any]:
        return {"content": tok, "lstrip": False, "normalized": False, "rstrip": False,
                "single_word": False}  # fmt: skip

    return {
        "additional_special_tokens": ["<|im_start|>", "<|im_end|>"],
        "eos_token": entry(EOS_TOKEN),
        "pad_token": entry(PAD_TOKEN),
    }


def _weight_shapes(spec: ModelSpec, vocab_size: int) -> dict[str, tuple[int, ...]]:
    """HF Qwen3 tensor names and shapes, in a fixed order (the order random draws follow)."""
    h, q, kv = spec.hidden_size, spec.num_heads * spec.head_dim, spec.num_kv_heads * spec.head_dim
    shapes: dict[str, tuple[int, ...]] = {"model.embed_tokens.weight": (vocab_size, h)}
    for n in range(spec.num_layers):
        p = f"model.layers.{n}."
        shapes |= {
            p + "input_layernorm.weight": (h,),
            p + "self_attn.q_proj.weight": (q, h),
            p + "self_attn.k_proj.weight": (kv, h),
            p + "self_attn.v_proj.weight": (kv, h),
            p + "self_attn.o_proj.weight": (h, q),
            p + "self_attn.q_norm.weight": (spec.head_dim,),
            p + "self_attn.k_norm.weight": (spec.head_dim,),
            p + "post_attention_layernorm.weight": (h,),
            p + "mlp.gate_proj.weight": (spec.intermediate_size, h),
            p + "mlp.up_proj.weight": (spec.intermediate_size, h),
            p + "mlp.down_proj.weight": (h, spec.intermediate_size),
        }
    shapes["model.norm.weight"] = (h,)
    if not spec.tie_word_embeddings:
        shapes["lm_head.weight"] = (vocab_size, h)
    return shapes


def make_weights(spec: ModelSpec, vocab_size: int) -> dict[str, np.ndarray]:
    """Seeded float32 weights: N(0, 0.02) for matrices, ones for norms."""
    rng = np.random.default_rng(spec.seed)
    weights: dict[str, np.ndarray] = {}
    for name, shape in _weight_shapes(spec, vocab_size).items():
        if len(shape) == 1:
            weights[name] = np.ones(shape, dtype=np.float32)
        else:
            weights[name] = rng.standard_normal(shape, dtype=np.float32) * np.float32(0.02)
    return weights


def save_weights(weights: dict[str, np.ndarray], path: Path, dtype: str) -> None:
    metadata = {"format": "pt"}
    if dtype == "bfloat16":
        import torch
        from safetensors.torch import save_file as save_torch

        tensors = {k: torch.from_numpy(v).to(torch.bfloat16) for k, v in weights.items()}
        save_torch(tensors, str(path), metadata=metadata)
        return
    from safetensors.numpy import save_file

    np_dtype = {"float32": np.float32, "float16": np.float16}[dtype]
    save_file({k: v.astype(np_dtype) for k, v in weights.items()}, str(path), metadata=metadata)
