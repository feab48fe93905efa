"""Token ids to bytes and text, incrementally and without splitting UTF-8 characters.

:class:`TokenTable` knows the exact bytes each token stands for (byte-level BPE and SentencePiece
vocabularies; other tokenizers fall back to ``decode``). :class:`IncrementalDetokenizer` turns a
stream of token ids into text, holding back an incomplete multi-byte character until the token
that completes it arrives, so no U+FFFD is ever emitted for a character split across tokens.
Special tokens (``special=True`` added tokens such as ``<|im_end|>``) add no text; non-special added
tokens (``<think>``, ``<tool_call>``) do.
"""

from __future__ import annotations

import codecs
from typing import Any

from mlx_lm.tokenizer_utils import (
    BPEStreamingDetokenizer,
    SPMStreamingDetokenizer,
    _byte_decoder,
)

from engine.reasoning import THINK_END, THINK_START
from engine.tool_formats import marker_tokens

VISIBLE_MARKERS = frozenset({THINK_START, THINK_END}) | marker_tokens()


class TokenTable:
    """Exact byte strings of token ids, computed lazily and memoised."""

    def __init__(self, tokenizer: Any) -> None:
        self._tok = tokenizer
        detok = getattr(tokenizer, "_detokenizer", None)
        if isinstance(detok, BPEStreamingDetokenizer):
            self.kind = "bpe"
        elif isinstance(detok, SPMStreamingDetokenizer):
            self.kind = "spm"
            self.trim_space = detok.trim_space
        else:
            self.kind = "naive"
        self.trim_space = getattr(detok, "trim_space", False)
        added = getattr(tokenizer, "added_tokens_decoder", {}) or {}
        self._added = {int(i): t.content for i, t in added.items()}
        self.special_ids = {int(i) for i, t in added.items() if getattr(t, "special", False)}
        self.special_ids |= set(getattr(tokenizer, "all_special_ids", []) or [])
        # Reasoning and tool-call markers stay visible even where a tokenizer marks them special
        # (Mistral's [TOOL_CALLS], Llama 3's <|python_tag|>): the output parsers need them.
        self.special_ids -= {i for i, text in self._added.items() if text in VISIBLE_MARKERS}
        self._cache: dict[int, bytes] = {}

    def bytes_of(self, token_id: int) -> bytes:
        """The bytes ``token_id`` decodes to (added tokens: their literal content)."""
        cached = self._cache.get(token_id)
        if cached is not None:
            return cached
        if token_id in self._added:
            out = self._added[token_id].encode("utf-8")
        elif self.kind == "bpe":
            piece = self._tok.convert_ids_to_tokens(token_id) or ""
            decoder = _byte_decoder()
            buf = bytearray()
            for ch in piece:
                b = decoder.get(ch)
                if b is None:
                    buf.extend(ch.encode("utf-8"))
                else:
                    buf.append(b)
            out = bytes(buf)
        elif self.kind == "spm":
            piece = self._tok.convert_ids_to_tokens(token_id) or ""
            if piece.startswith("<0x") and piece.endswith(">") and len(piece) == 6:
                out = bytes([int(piece[3:5], 16)])
            else:
                out = piece.replace("\u2581", " ").encode("utf-8")
        else:
            out = self._tok.decode([token_id]).encode("utf-8")
        self._cache[token_id] = out
        return out

    def text_of(self, token_id: int) -> str:
        """Display text of one token (lossy for a partial UTF-8 character)."""
        return self.bytes_of(token_id).decode("utf-8", errors="replace")


class IncrementalDetokenizer:
    """Token-by-token decoding that never emits half of a multi-byte character."""

    def __init__(self, table: TokenTable) -> None:
        self._table = table
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._started = False

    def add(self, token_id: int) -> str:
        """Consume one token; return the newly complete text (possibly empty)."""
        if token_id in self._table.special_ids:
            return ""
        text = self._decoder.decode(self._table.bytes_of(token_id))
        if not self._started and text:
            self._started = True
            if self._table.kind == "spm" and self._table.trim_space and text[0] == " ":
                text = text[1:]
        return text

    def flush(self) -> str:
        """End of stream: whatever bytes remain (an incomplete character becomes U+FFFD)."""
        return self._decoder.decode(b"", final=True)
