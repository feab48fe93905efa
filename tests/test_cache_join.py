"""engine.cache_join.extend leaves a decode batch's KV cache exactly as mlx-lm's
``BatchKVCache.extend`` does (same keys, values, offsets, left padding, index), with one copy."""

from __future__ import annotations

import mlx.core as mx
import pytest
from mlx_lm.models.cache import BatchKVCache

from engine import cache_join


def _filled(pads: list[int], length: int, seed: int, heads: int = 2, dim: int = 8) -> BatchKVCache:
    cache = BatchKVCache(pads)
    if length:
        shape = (len(pads), heads, length, dim)
        cache.update_and_fetch(mx.random.normal(shape, key=mx.random.key(seed)),
                               mx.random.normal(shape, key=mx.random.key(seed + 1)))
        mx.eval(cache.state)
    return cache


def _same(a: BatchKVCache, b: BatchKVCache) -> None:
    for x, y in zip(a.state, b.state, strict=True):
        if isinstance(x, mx.array):
            assert x.shape == y.shape and x.dtype == y.dtype
            assert mx.array_equal(x, y).item()
        else:
            assert x == y


@pytest.mark.parametrize("pads1,len1,pads2,len2", [
    ([0, 2, 1], 30, [3, 0], 12),  # the batch is further along
    ([0], 5, [1, 0, 4], 40),  # the newcomers are further along
    ([0] * 13, 31, [0, 1, 2], 31),  # same index
    ([2], 300, [0, 0], 7),  # a buffer past one 256-step
])
def test_extend_equals_mlx_lm(pads1: list[int], len1: int, pads2: list[int], len2: int) -> None:
    ref, ours = _filled(pads1, len1, 1), _filled(pads1, len1, 1)
    ref.extend(_filled(pads2, len2, 7))
    cache_join.extend(ours, _filled(pads2, len2, 7))
    _same(ref, ours)
    step = (len(pads1) + len(pads2), 2, 1, 8)  # and the next decode step sees the same cache
    k = mx.random.normal(step, key=mx.random.key(3))
    v = mx.random.normal(step, key=mx.random.key(4))
    got_ref, got_ours = ref.update_and_fetch(k, v), ours.update_and_fetch(k, v)
    assert all(mx.array_equal(a, b).item() for a, b in zip(got_ref, got_ours, strict=True))
    _same(ref, ours)


def test_empty_or_right_padded_caches_use_mlx_lm() -> None:
    ref, ours = _filled([0, 1], 6, 5), _filled([0, 1], 6, 5)
    ref.extend(BatchKVCache([2]))
    cache_join.extend(ours, BatchKVCache([2]))
    _same(ref, ours)
