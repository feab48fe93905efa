"""Offline, deterministic builder of small Qwen3-architecture models.

No machine here reaches a model hub, so the project makes its own models: seeded random weights
in a Qwen3 layout, a byte-level BPE tokenizer trained by ``tokenizers`` on a seeded synthetic
corpus, and a Qwen3-style chat template with think markup and one of four tool-call formats.
The folder loads with ``mlx_lm.load`` and with HF transformers. The server builds its default
model with :func:`ensure_model` at start-up, so this package ships in the wheel.

Use :func:`ensure_model` for a cached build of a preset and :func:`build_model` for a one-off.
"""

from modelbuilder.build import (
    BUILD_INFO_FILE,
    BUILDER_VERSION,
    build_model,
    default_cache_dir,
    ensure_model,
    model_cache_path,
    spec_hash,
)
from modelbuilder.chat_template import chat_template, detect_tool_format
from modelbuilder.spec import PRESETS, ModelSpec
from modelbuilder.tokenizer import train_tokenizer
from modelbuilder.tokens import (
    CONTROL_TOKENS,
    EOS_TOKEN,
    PAD_TOKEN,
    SPECIAL_TOKEN_IDS,
    SPECIAL_TOKENS,
    TOOL_FORMATS,
)
from modelbuilder.weights import make_weights, tokenizer_config

__all__ = [
    "BUILDER_VERSION", "BUILD_INFO_FILE", "CONTROL_TOKENS", "EOS_TOKEN", "PAD_TOKEN", "PRESETS",
    "SPECIAL_TOKENS", "SPECIAL_TOKEN_IDS", "TOOL_FORMATS", "ModelSpec", "build_model",
    "chat_template", "default_cache_dir", "detect_tool_format", "ensure_model", "make_weights",
    "model_cache_path", "spec_hash", "tokenizer_config", "train_tokenizer",
]  # fmt: skip
