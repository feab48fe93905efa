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
from mlx_lm.models.cache import KVCache


@dataclass
class _Entry:
    tokens: np.ndarray
    keys: list[mx.array]  # per layer [1, H, n, D]
    values: list[mx.array]
    nbytes: int


def supports_prefix_cache(cache: list[Any]) -> bool:
    """Only plain (trimmable, full-attention) KV caches can be cut at any prefix."""
    return bool(cache) and all(type(c) is KVCache for c in cache)


def _common_prefix(a: np.ndarray, b: np.ndarray) -> int:
    m = min(a.shape[0], b.shape[0])
    if m == 0:
        return 0
    diff = np.flatnonzero(a[:m] != b[:m])
    return int(diff[0]) if diff.size else m


class PrefixCache:
    """LRU store of KV caches keyed by token sequences."""

    def __init__(self, max_bytes: int,
                 on_insert: Callable[[np.ndarray, list[mx.array], list[mx.array]], None]
                 | None = None) -> None:
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

    def lookup(self, tokens: list[int], limit: int) -> tuple[int, list[KVCache] | None]:
        """Reuse up to ``limit`` leading tokens: (count, fresh caches) or (0, None)."""
        self.query_tokens += len(tokens)
        if not self._entries or limit <= 0:
            return 0, None
        query = np.asarray(tokens, dtype=np.int64)
        best_id, best_len = -1, 0
        for entry_id, entry in self._entries.items():
            n = _common_prefix(entry.tokens, query)
            if n > best_len:
                best_id, best_len = entry_id, n
        n = min(best_len, limit)
        if n <= 0:
            return 0, None
        entry = self._entries[best_id]
        self._entries.move_to_end(best_id)
        caches = []
        for k, v in zip(entry.keys, entry.values, strict=True):
            c = KVCache()
            c.keys, c.values, c.offset = k[..., :n, :], v[..., :n, :], n
            caches.append(c)
        self.hit_tokens += n
        return n, caches

    def insert(self, tokens: list[int], cache: list[KVCache]) -> bool:
        """Store the KV state of ``tokens`` (``cache`` must hold exactly those positions)."""
        n = len(tokens)
        if n == 0 or any(c.offset != n for c in cache):
            return False
        seq = np.asarray(tokens, dtype=np.int64)
        for entry_id, entry in list(self._entries.items()):
            common = _common_prefix(entry.tokens, seq)
            if common == n:  # already covered by an entry at least as long
                self._entries.move_to_end(entry_id)
                return False
            if common == entry.tokens.shape[0]:  # the old entry is a prefix of the new one
                self._drop(entry_id)
        keys = [mx.contiguous(c.keys[..., :n, :]) for c in cache]
        values = [mx.contiguous(c.values[..., :n, :]) for c in cache]
        mx.eval(keys, values)
        nbytes = sum(k.nbytes + v.nbytes for k, v in zip(keys, values, strict=True))
        if self.on_insert is not None:
            self.on_insert(seq, keys, values)
        if nbytes > self.max_bytes:
            return False
        self._entries[self._next_id] = _Entry(seq, keys, values, nbytes)
        self._next_id += 1
        self.nbytes += nbytes
        while self.nbytes > self.max_bytes and self._entries:
            self._drop(next(iter(self._entries)))
            self.evictions += 1
        return True

    def _drop(self, entry_id: int) -> None:
        entry = self._entries.pop(entry_id)
        self.nbytes -= entry.nbytes
