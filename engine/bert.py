"""A BERT encoder (HF ``BertModel`` layout) written in MLX, for sentence embeddings.

Module and parameter names mirror Hugging Face's, so a ``model.safetensors`` from a BERT
checkpoint loads with no renaming beyond an optional ``bert.`` prefix. Only the encoder is
built: the pooler head is unused by sentence-transformers and is dropped on load.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import mlx.core as mx
import mlx.nn as nn
from mlx.utils import tree_flatten

# erf(x) = x * P(x^2) / Q(x^2) on [-4, 4] (the float32 rational approximation of Eigen and XLA;
# |error| < 5e-7). Only multiply-adds: on MLX's CPU backend mx.erf is a scalar loop, ~5x slower.
_ERF_P = (
    -2.72614225801306e-10,
    2.77068142495902e-08,
    -2.10102402082508e-06,
    -5.69250639462346e-05,
    -7.34990630326855e-04,
    -2.95459980854025e-03,
    -1.60960333262415e-02,
)
_ERF_Q = (
    -1.45660718464996e-05,
    -2.13374055278905e-04,
    -1.68282697438203e-03,
    -7.37332916720468e-03,
    -1.42647390514189e-02,
)


def erf_rational(x: mx.array) -> mx.array:
    """float32 erf from multiply-adds only (see ``_ERF_P``)."""
    x = mx.clip(x, -4.0, 4.0)
    x2 = x * x
    p = x2 * _ERF_P[0] + _ERF_P[1]
    for c in _ERF_P[2:]:
        p = p * x2 + c
    q = x2 * _ERF_Q[0] + _ERF_Q[1]
    for c in _ERF_Q[2:]:
        q = q * x2 + c
    return x * p / q


def gelu_rational(x: mx.array) -> mx.array:
    """Exact-form GELU, ``x/2 * (1 + erf(x/sqrt 2))``, with :func:`erf_rational`."""
    return 0.5 * x * (1.0 + erf_rational(x * (1.0 / math.sqrt(2.0))))


_ACTIVATIONS: dict[str, Callable[[mx.array], mx.array]] = {
    "gelu": nn.gelu,  # HF "gelu" is the exact erf form
    "gelu_new": nn.gelu_approx,
    "gelu_pytorch_tanh": nn.gelu_approx,
    "gelu_fast": nn.gelu_approx,
    "relu": nn.relu,
    "silu": nn.silu,
    "swish": nn.silu,
}


def activation(name: str) -> Callable[[mx.array], mx.array]:
    """The activation for a HF ``hidden_act``; the multiply-add GELU on the CPU device."""
    if name == "gelu" and mx.default_device() == mx.cpu:
        return gelu_rational
    return _ACTIVATIONS[name]


@dataclass(frozen=True)
class BertConfig:
    """The subset of a HF BERT ``config.json`` the forward pass needs."""

    vocab_size: int
    hidden_size: int
    num_hidden_layers: int
    num_attention_heads: int
    intermediate_size: int
    max_position_embeddings: int = 512
    type_vocab_size: int = 2
    layer_norm_eps: float = 1e-12
    hidden_act: str = "gelu"
    pad_token_id: int = 0

    @classmethod
    def from_dict(cls, cfg: dict[str, Any]) -> BertConfig:
        """Build from a parsed ``config.json``; raises ValueError for unsupported settings."""
        model_type = cfg.get("model_type", "bert")
        if model_type != "bert":
            raise ValueError(f"unsupported model_type {model_type!r} (only 'bert')")
        pos_type = cfg.get("position_embedding_type", "absolute")
        if pos_type != "absolute":
            raise ValueError(f"unsupported position_embedding_type {pos_type!r}")
        act = cfg.get("hidden_act", "gelu")
        if act not in _ACTIVATIONS:
            raise ValueError(f"unsupported hidden_act {act!r}")
        if cfg["hidden_size"] % cfg["num_attention_heads"]:
            raise ValueError("hidden_size is not a multiple of num_attention_heads")
        return cls(
            vocab_size=int(cfg["vocab_size"]),
            hidden_size=int(cfg["hidden_size"]),
            num_hidden_layers=int(cfg["num_hidden_layers"]),
            num_attention_heads=int(cfg["num_attention_heads"]),
            intermediate_size=int(cfg["intermediate_size"]),
            max_position_embeddings=int(cfg.get("max_position_embeddings", 512)),
            type_vocab_size=int(cfg.get("type_vocab_size", 2)),
            layer_norm_eps=float(cfg.get("layer_norm_eps", 1e-12)),
            hidden_act=act,
            pad_token_id=int(cfg.get("pad_token_id") or 0),
        )


class BertEmbeddings(nn.Module):
    """Word + absolute position + token-type embeddings, then LayerNorm."""

    def __init__(self, cfg: BertConfig):
        super().__init__()
        self.word_embeddings = nn.Embedding(cfg.vocab_size, cfg.hidden_size)
        self.position_embeddings = nn.Embedding(cfg.max_position_embeddings, cfg.hidden_size)
        self.token_type_embeddings = nn.Embedding(cfg.type_vocab_size, cfg.hidden_size)
        self.LayerNorm = nn.LayerNorm(cfg.hidden_size, eps=cfg.layer_norm_eps)

    def __call__(self, input_ids: mx.array) -> mx.array:
        positions = mx.arange(input_ids.shape[1])
        x = self.word_embeddings(input_ids) + self.position_embeddings(positions)
        # Single-segment input: every token has type 0.
        x = x + self.token_type_embeddings.weight[0]
        return self.LayerNorm(x)


class BertSelfAttention(nn.Module):
    """Multi-head self-attention projections and scaled dot-product attention."""

    def __init__(self, cfg: BertConfig):
        super().__init__()
        self.num_heads = cfg.num_attention_heads
        self.head_dim = cfg.hidden_size // cfg.num_attention_heads
        self.query = nn.Linear(cfg.hidden_size, cfg.hidden_size)
        self.key = nn.Linear(cfg.hidden_size, cfg.hidden_size)
        self.value = nn.Linear(cfg.hidden_size, cfg.hidden_size)

    def __call__(self, x: mx.array, mask: mx.array) -> mx.array:
        b, n, _ = x.shape

        def heads(t: mx.array) -> mx.array:
            return t.reshape(b, n, self.num_heads, self.head_dim).transpose(0, 2, 1, 3)

        q, k, v = heads(self.query(x)), heads(self.key(x)), heads(self.value(x))
        out = mx.fast.scaled_dot_product_attention(
            q, k, v, scale=1.0 / math.sqrt(self.head_dim), mask=mask
        )
        return out.transpose(0, 2, 1, 3).reshape(b, n, -1)


class BertSelfOutput(nn.Module):
    """Output projection plus residual and LayerNorm (used after attention and FFN)."""

    def __init__(self, in_dims: int, cfg: BertConfig):
        super().__init__()
        self.dense = nn.Linear(in_dims, cfg.hidden_size)
        self.LayerNorm = nn.LayerNorm(cfg.hidden_size, eps=cfg.layer_norm_eps)

    def __call__(self, h: mx.array, residual: mx.array) -> mx.array:
        return self.LayerNorm(self.dense(h) + residual)


class BertAttention(nn.Module):
    """``attention.self`` + ``attention.output`` as in HF."""

    def __init__(self, cfg: BertConfig):
        super().__init__()
        # HF names this submodule "self"; keep the name so weights load unchanged.
        self.self = BertSelfAttention(cfg)
        self.output = BertSelfOutput(cfg.hidden_size, cfg)

    def __call__(self, x: mx.array, mask: mx.array) -> mx.array:
        return self.output(self.self(x, mask), x)


class BertIntermediate(nn.Module):
    """FFN up-projection and activation."""

    def __init__(self, cfg: BertConfig):
        super().__init__()
        self.dense = nn.Linear(cfg.hidden_size, cfg.intermediate_size)
        self.act = activation(cfg.hidden_act)

    def __call__(self, x: mx.array) -> mx.array:
        return self.act(self.dense(x))


class BertLayer(nn.Module):
    """One post-LayerNorm transformer block."""

    def __init__(self, cfg: BertConfig):
        super().__init__()
        self.attention = BertAttention(cfg)
        self.intermediate = BertIntermediate(cfg)
        self.output = BertSelfOutput(cfg.intermediate_size, cfg)

    def __call__(self, x: mx.array, mask: mx.array) -> mx.array:
        h = self.attention(x, mask)
        return self.output(self.intermediate(h), h)


class BertEncoder(nn.Module):
    def __init__(self, cfg: BertConfig):
        super().__init__()
        self.layer = [BertLayer(cfg) for _ in range(cfg.num_hidden_layers)]

    def __call__(self, x: mx.array, mask: mx.array) -> mx.array:
        for layer in self.layer:
            x = layer(x, mask)
        return x


class BertModel(nn.Module):
    """BERT encoder: token ids [B, L] and a 0/1 attention mask [B, L] -> hidden states [B, L, H]."""

    def __init__(self, cfg: BertConfig):
        super().__init__()
        self.config = cfg
        self.embeddings = BertEmbeddings(cfg)
        self.encoder = BertEncoder(cfg)

    def __call__(self, input_ids: mx.array, attention_mask: mx.array) -> mx.array:
        # Boolean key mask, broadcast over heads and queries: padded keys get no weight.
        key_mask = (attention_mask != 0)[:, None, None, :]
        return self.encoder(self.embeddings(input_ids), key_mask)

    def load_hf_weights(self, weights: dict[str, mx.array]) -> None:
        """Load HF-named weights (optionally ``bert.``-prefixed); unused heads are ignored."""
        own = {k for k, _ in tree_flatten(self.parameters())}
        picked: dict[str, mx.array] = {}
        for name, value in weights.items():
            key = name.removeprefix("bert.")
            if key in own:
                picked[key] = value
        missing = own - picked.keys()
        if missing:
            raise ValueError(f"checkpoint lacks {len(missing)} weights, e.g. {sorted(missing)[0]}")
        self.load_weights(list(picked.items()), strict=True)
        mx.eval(self.parameters())
