"""Special tokens shared by every built model (ids 0.. in a fixed order)."""

from __future__ import annotations

TOOL_FORMATS = ("hermes", "qwen3_xml", "llama3_json", "mistral")

# Special tokens take ids 0.. in this order, the same for every preset.
SPECIAL_TOKENS: tuple[str, ...] = (
    "<|endoftext|>",
    "<|im_start|>",
    "<|im_end|>",
    "<think>",
    "</think>",
    "<tool_call>",
    "</tool_call>",
    "<tool_response>",
    "</tool_response>",
    "[TOOL_CALLS]",
    "<|python_tag|>",
)
SPECIAL_TOKEN_IDS: dict[str, int] = {tok: i for i, tok in enumerate(SPECIAL_TOKENS)}
# Control tokens (skipped by ``skip_special_tokens``); the others stay visible in decoded text
# so that reasoning and tool-call parsers see them, as in Qwen3's own tokenizer.
CONTROL_TOKENS = frozenset({"<|endoftext|>", "<|im_start|>", "<|im_end|>"})
EOS_TOKEN = "<|im_end|>"
PAD_TOKEN = "<|endoftext|>"
