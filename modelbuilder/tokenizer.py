"""Byte-level BPE tokenizer training (Qwen2 style) with ``tokenizers``."""

from __future__ import annotations

import json
from typing import Any

from modelbuilder.corpus import build_corpus
from modelbuilder.tokens import CONTROL_TOKENS, SPECIAL_TOKENS

# Qwen2/Qwen3 pre-tokenizer regex (the one transformers' Qwen2Tokenizer uses).
_PRETOKENIZE_REGEX = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"
    r"|\s*[\r\n]+|\s+(?!\S)|\s+"
)


def train_tokenizer(vocab_size: int, seed: int = 0) -> Any:
    """Train a Qwen2-style byte-level BPE ``tokenizers.Tokenizer`` of about ``vocab_size``."""
    from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE(fuse_unk=False, byte_fallback=False))
    tok.normalizer = normalizers.NFC()
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(_PRETOKENIZE_REGEX), behavior="isolated", invert=False),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        min_frequency=2,
        show_progress=False,
        special_tokens=list(SPECIAL_TOKENS),
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    tok.train_from_iterator(build_corpus(vocab_size, seed), trainer=trainer)
    return tok


def tokenizer_json(tok: Any) -> dict[str, Any]:
    """Serialized tokenizer with non-control specials marked non-special (as in Qwen3)."""
    data = json.loads(tok.to_str())
    for added in data["added_tokens"]:
        added["special"] = added["content"] in CONTROL_TOKENS
        added["normalized"] = False
    return data
