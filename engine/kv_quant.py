"""Quantized KV cache for the decode batch (``--kv-bits 4|8``).

mlx-lm has a single-sequence :class:`~mlx_lm.models.cache.QuantizedKVCache` (keys and values
stored as ``mx.quantize`` triples: packed uint32 codes, scales, biases, one group of
``group_size`` values along the head dimension) and attention that reads it
(``quantized_scaled_dot_product_attention``, chosen by the cache's ``bits`` attribute), but no
batched form. :class:`BatchQuantizedKVCache` is ``BatchKVCache``'s left-padded layout over those
triples, with the operations the model runner needs: update, mask (inherited), merge of prefilled
single-sequence caches, filter (finished rows leave) and extend (a request joins).

A sequence is prefilled alone into a ``QuantizedKVCache`` (quantized from its first token) and
then joins the batch; grouped prefill and the prefix cache need plain caches and are off under
``--kv-bits`` (see :func:`engine.model_runner.ModelRunner`).
"""

from __future__ import annotations

from typing import Any

import mlx.core as mx
from mlx_lm.models.cache import BatchKVCache, KVCache, QuantizedKVCache

GROUP_SIZE = 64
Triple = tuple[mx.array, mx.array, mx.array]


def make_quantized_cache(model: Any, plain: list[Any], bits: int) -> list[QuantizedKVCache]:
    """One ``QuantizedKVCache`` per layer for a model whose caches are all plain ``KVCache``
    (ValueError otherwise, or when a head dimension is not a multiple of the group size)."""
    if not plain or not all(type(c) is KVCache for c in plain):
        raise ValueError("--kv-bits needs a model whose layers all use a plain KV cache")
    args = getattr(model, "args", None)
    head_dim = getattr(args, "head_dim", None) or (
        getattr(args, "hidden_size", 0) // max(1, getattr(args, "num_attention_heads", 1)))
    if head_dim and head_dim % GROUP_SIZE:
        raise ValueError(f"--kv-bits needs a head dimension that is a multiple of {GROUP_SIZE} "
                         f"(this model's is {head_dim})")
    return [QuantizedKVCache(group_size=GROUP_SIZE, bits=bits) for _ in plain]


def _alloc(like: Triple, batch: int, size: int) -> Triple:
    return tuple(mx.zeros((batch, x.shape[1], size, x.shape[3]), dtype=x.dtype)
                 for x in like)  # type: ignore[return-value]


class BatchQuantizedKVCache(BatchKVCache):
    """``BatchKVCache`` whose keys and values are quantized triples."""

    def __init__(self, left_padding: list[int], group_size: int = GROUP_SIZE,
                 bits: int = 8) -> None:
        super().__init__(left_padding)
        self.group_size = group_size
        self.bits = bits

    def update_and_fetch(self, keys: mx.array, values: mx.array) -> tuple[Triple, Triple]:
        prev, n = self._idx, keys.shape[2]
        qk = mx.quantize(keys, group_size=self.group_size, bits=self.bits)
        qv = mx.quantize(values, group_size=self.group_size, bits=self.bits)
        if self.keys is None or prev + n > self.keys[0].shape[2]:
            grow = (self.step + n - 1) // self.step * self.step
            new_k, new_v = _alloc(qk, keys.shape[0], grow), _alloc(qv, keys.shape[0], grow)
            if self.keys is None:
                self.keys, self.values = new_k, new_v
            else:
                self.keys = tuple(mx.concatenate([x[..., :prev, :], z], axis=2)
                                  for x, z in zip(self.keys, new_k, strict=True))
                self.values = tuple(mx.concatenate([x[..., :prev, :], z], axis=2)
                                    for x, z in zip(self.values, new_v, strict=True))
        self.offset = self.offset + n
        self._idx += n
        for i in range(3):
            self.keys[i][..., prev : self._idx, :] = qk[i]
            self.values[i][..., prev : self._idx, :] = qv[i]
        return self.keys_and_values()

    def keys_and_values(self) -> tuple[Triple, Triple]:
        i = self._idx
        return (tuple(x[..., :i, :] for x in self.keys),  # type: ignore[return-value]
                tuple(x[..., :i, :] for x in self.values))

    @classmethod
    def merge(cls, caches: list[QuantizedKVCache]) -> BatchQuantizedKVCache:  # type: ignore[override]
        """Left-pad single-sequence quantized caches into one batch."""
        lengths = [c.offset for c in caches]
        longest = max(lengths)
        first = next(c for c in caches if c.keys is not None)
        out = cls([longest - n for n in lengths], first.group_size, first.bits)
        keys, values = _alloc(first.keys, len(caches), longest), _alloc(first.values,
                                                                        len(caches), longest)
        for row, c in enumerate(caches):
            pad, n = longest - c.offset, c.offset
            for i in range(3):
                keys[i][row : row + 1, :, pad:] = c.keys[i][..., :n, :]
                values[i][row : row + 1, :, pad:] = c.values[i][..., :n, :]
        out.keys, out.values = keys, values
        out.offset = out.offset + longest
        out._idx = longest
        return out

    def filter(self, batch_indices: list[int]) -> None:
        idx = mx.array(batch_indices)
        if self.keys is not None:
            self.keys = tuple(x[idx] for x in self.keys)
            self.values = tuple(x[idx] for x in self.values)
        self.offset = self.offset[idx]
        self.left_padding = self.left_padding[idx]
        shift = min(self.left_padding.tolist())
        if shift > 0:
            if self.keys is not None:
                self.keys = tuple(x[..., shift:, :] for x in self.keys)
                self.values = tuple(x[..., shift:, :] for x in self.values)
            self._idx -= shift
            self.left_padding = self.left_padding - shift

    def extend(self, other: BatchQuantizedKVCache) -> None:  # type: ignore[override]
        """Append ``other``'s rows, both right-aligned at the longer filled length."""
        i1, i2 = self._idx, other._idx
        idx = max(i1, i2)
        b1, b2 = self.offset.shape[0], other.offset.shape[0]
        size = max(self.keys[0].shape[2], other.keys[0].shape[2], idx)
        keys, values = _alloc(self.keys, b1 + b2, size), _alloc(self.values, b1 + b2, size)
        for i in range(3):
            keys[i][:b1, :, idx - i1 : idx] = self.keys[i][..., :i1, :]
            keys[i][b1:, :, idx - i2 : idx] = other.keys[i][..., :i2, :]
            values[i][:b1, :, idx - i1 : idx] = self.values[i][..., :i1, :]
            values[i][b1:, :, idx - i2 : idx] = other.values[i][..., :i2, :]
        self.keys, self.values = keys, values
        self.offset = mx.concatenate([self.offset, other.offset])
        self.left_padding = mx.concatenate(
            [self.left_padding + (idx - i1), other.left_padding + (idx - i2)])
        self._idx = idx

    def extract(self, idx: int) -> QuantizedKVCache:
        pad = self.left_padding.tolist()[idx]
        c = QuantizedKVCache(self.group_size, self.bits)
        c.keys = tuple(mx.contiguous(x[idx : idx + 1, :, pad : self._idx]) for x in self.keys)
        c.values = tuple(mx.contiguous(x[idx : idx + 1, :, pad : self._idx])
                         for x in self.values)
        c.offset = self._idx - pad
        return c

    @property
    def state(self) -> Any:
        return self.keys, self.values, self.offset, self.left_padding, self._idx

    @state.setter
    def state(self, v: Any) -> None:
        self.keys, self.values, self.offset, self.left_padding, self._idx = v

    @property
    def nbytes(self) -> int:
        if self.keys is None:
            return 0
        return sum(x.nbytes for x in (*self.keys, *self.values))
