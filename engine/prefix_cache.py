"""Prompt prefix reuse: KV states of earlier token sequences, looked up by longest common prefix.

Each entry holds the per-layer KV cache (batch 1) of one token sequence. A lookup finds the
entry sharing the longest prefix with a new prompt and returns fresh caches trimmed to that
prefix; the entry itself is never written to. Entries that are a prefix of a newer one are
dropped (the newer one serves the same lookups). Memory is bounded by ``max_bytes`` with
least-recently-used eviction.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import mlx.core as mx
import numpy as np
from mlx_lm.models.cache import KVCache, QuantizedKVCache

KV = Any  # one layer's keys (or values): an array [1, H, n, D], or a quantized triple of them


@dataclass
class _Entry:
    tokens: np.ndarray
    keys: list[KV]  # per layer [1, H, n, D] (or quantized triples)
    values: list[KV]
    nbytes: int
    quant: tuple[int, int] | None = None  # (group_size, bits) of quantized entries


def _cut(x: KV, n: int) -> KV:
    """The first ``n`` positions of an array or a quantized triple."""
    if isinstance(x, (tuple, list)):
        return tuple(a[..., :n, :] for a in x)
    return x[..., :n, :]


def _contiguous(x: KV) -> KV:
    if isinstance(x, (tuple, list)):
        return tuple(mx.contiguous(a) for a in x)
    return mx.contiguous(x)


def _nbytes(x: KV) -> int:
    return sum(a.nbytes for a in x) if isinstance(x, (tuple, list)) else x.nbytes


def restore(keys: list[KV], values: list[KV], n: int, quant: tuple[int, int] | None
            ) -> list[Any]:
    """Fresh batch-1 caches holding the first ``n`` positions of ``keys``/``values``."""
    caches: list[Any] = []
    for k, v in zip(keys, values, strict=True):
        c: Any = KVCache() if quant is None else QuantizedKVCache(*quant)
        c.keys, c.values, c.offset = _cut(k, n), _cut(v, n), n
        caches.append(c)
    return caches


def supports_prefix_cache(cache: list[Any]) -> bool:
    """Only plain (trimmable, full-attention) KV caches, or their quantized form, can be cut at
    any prefix."""
    return bool(cache) and (all(type(c) is KVCache for c in cache)
                            or all(type(c) is QuantizedKVCache for c in cache))


def common_prefix(a: np.ndarray, b: np.ndarray) -> int:
    """How many leading tokens two token arrays share."""
    m = min(a.shape[0], b.shape[0])
    if m == 0:
        return 0
    diff = np.flatnonzero(a[:m] != b[:m])
    return int(diff[0]) if diff.size else m


class PrefixCache:
    """LRU store of KV caches keyed by token sequences."""

    def __init__(self, max_bytes: int,
                 on_insert: Callable[[np.ndarray, list[KV], list[KV], tuple[int, int] | None],
                                     None] | None = None) -> None:
        self.max_bytes = max_bytes
        self.on_insert = on_insert  # told of each stored entry (the persistent prompt cache)
        self._entries: OrderedDict[int, _Entry] = OrderedDict()
        self._next_id = 0
        self.nbytes = 0
        self.query_tokens = 0
        self.hit_tokens = 0
        self.evictions = 0

    def __len__(self) -> int:
        return len(self._entries)

    def lookup(self, tokens: list[int], limit: int) -> tuple[int, list[Any] | None]:
        """Reuse up to ``limit`` leading tokens: (count, fresh caches) or (0, None)."""
        self.query_tokens += len(tokens)
        if not self._entries or limit <= 0:
            return 0, None
        query = np.asarray(tokens, dtype=np.int64)
        best_id, best_len = -1, 0
        for entry_id, entry in self._entries.items():
            n = common_prefix(entry.tokens, query)
            if n > best_len:
                best_id, best_len = entry_id, n
        n = min(best_len, limit)
        if n <= 0:
            return 0, None
        entry = self._entries[best_id]
        self._entries.move_to_end(best_id)
        self.hit_tokens += n
        return n, restore(entry.keys, entry.values, n, entry.quant)

    def insert(self, tokens: list[int], cache: list[Any]) -> bool:
        """Store the KV state of ``tokens`` (``cache`` must hold exactly those positions)."""
        n = len(tokens)
        if n == 0 or any(c.offset != n for c in cache):
            return False
        seq = np.asarray(tokens, dtype=np.int64)
        for entry_id, entry in list(self._entries.items()):
            common = common_prefix(entry.tokens, seq)
            if common == n:  # already covered by an entry at least as long
                self._entries.move_to_end(entry_id)
                return False
            if common == entry.tokens.shape[0]:  # the old entry is a prefix of the new one
                self._drop(entry_id)
        keys = [_contiguous(_cut(c.keys, n)) for c in cache]
        values = [_contiguous(_cut(c.values, n)) for c in cache]
        # the copies run on the stream after what is queued, not before the caller goes on: the
        # first token of a 4k-token prompt is not held back by copying its KV (~185 MiB)
        mx.async_eval(keys, values)
        quant = ((cache[0].group_size, cache[0].bits) if isinstance(cache[0], QuantizedKVCache)
                 else None)
        nbytes = sum(_nbytes(k) + _nbytes(v) for k, v in zip(keys, values, strict=True))
        if self.on_insert is not None:
            self.on_insert(seq, keys, values, quant)
        if nbytes > self.max_bytes:
            return False
        self._entries[self._next_id] = _Entry(seq, keys, values, nbytes, quant)
        self._next_id += 1
        self.nbytes += nbytes
        while self.nbytes > self.max_bytes and self._entries:
            self._drop(next(iter(self._entries)))
            self.evictions += 1
        return True

    def _drop(self, entry_id: int) -> None:
        entry = self._entries.pop(entry_id)
        self.nbytes -= entry.nbytes
