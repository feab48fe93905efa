"""Model specs and the named presets the project builds."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ModelSpec:
    """Shape and flavour of a built model; ``vocab_size`` is the target tokenizer size."""

    name: str
    hidden_size: int = 64
    num_layers: int = 2
    intermediate_size: int = 128
    num_heads: int = 4
    num_kv_heads: int = 2
    head_dim: int = 16
    vocab_size: int = 4096
    max_position_embeddings: int = 4096
    tool_format: str = "hermes"
    seed: int = 0
    dtype: str = "float32"
    tie_word_embeddings: bool = True
    rope_theta: float = 1_000_000.0
    rms_norm_eps: float = 1e-6
    # Fine-tuned to call tools (see modelbuilder.tool_training); hermes format only.
    train_tool_calls: bool = False


def _tiny(name: str, tool_format: str = "hermes") -> ModelSpec:
    return ModelSpec(name=name, tool_format=tool_format)


PRESETS: dict[str, ModelSpec] = {
    "tiny": _tiny("tiny"),
    "tiny-qwen3-xml": _tiny("tiny-qwen3-xml", "qwen3_xml"),
    "tiny-llama3": _tiny("tiny-llama3", "llama3_json"),
    "tiny-mistral": _tiny("tiny-mistral", "mistral"),
    "tiny-tools": ModelSpec(
        name="tiny-tools", hidden_size=128, intermediate_size=256, head_dim=32,
        train_tool_calls=True,
    ),
    "default": ModelSpec(
        name="default",
        hidden_size=256,
        num_layers=4,
        intermediate_size=768,
        num_heads=4,
        num_kv_heads=2,
        head_dim=64,
        vocab_size=8192,
    ),
    "bench": ModelSpec(
        name="bench",
        hidden_size=512,
        num_layers=8,
        intermediate_size=1536,
        num_heads=8,
        num_kv_heads=4,
        head_dim=64,
        vocab_size=32000,
    ),
}
