"""engine.kv_quant: the batched quantized KV cache holds, row for row, what each sequence's own
QuantizedKVCache holds, through merge, decode updates, extend (a request joins) and filter (one
leaves); its mask hides the left padding."""

from __future__ import annotations

import mlx.core as mx
from mlx_lm.models.cache import QuantizedKVCache

from engine.kv_quant import BatchQuantizedKVCache

H, D = 2, 64


def single(n: int, seed: int) -> tuple[QuantizedKVCache, list[mx.array], list[mx.array]]:
    """A batch-1 quantized cache filled with ``n`` random positions (and the float inputs)."""
    c = QuantizedKVCache(group_size=64, bits=8)
    k = mx.random.normal((1, H, n, D), key=mx.random.key(seed))
    v = mx.random.normal((1, H, n, D), key=mx.random.key(seed + 100))
    c.update_and_fetch(k, v)
    return c, [k], [v]


def rows_of(batch: BatchQuantizedKVCache) -> list[tuple[list[mx.array], list[mx.array]]]:
    """Each row's filled positions (left padding removed) as quantized triples."""
    keys, values = batch.keys_and_values()
    pads = batch.left_padding.tolist()
    return [([x[i : i + 1, :, p:] for x in keys], [x[i : i + 1, :, p:] for x in values])
            for i, p in enumerate(pads)]


def same(row: tuple[list[mx.array], list[mx.array]], c: QuantizedKVCache) -> bool:
    keys, values = c.keys_and_values()
    return all(mx.array_equal(a, b) for a, b in zip([*row[0], *row[1]], [*keys, *values],
                                                      strict=True))


def test_merge_update_extend_filter_keep_each_row() -> None:
    a, _, _ = single(5, 1)
    b, _, _ = single(9, 2)
    batch = BatchQuantizedKVCache.merge([a, b])
    assert batch.left_padding.tolist() == [4, 0] and batch.offset.tolist() == [5, 9]
    # one decode step: both rows get a position, and so does each reference cache
    k = mx.random.normal((2, H, 1, D), key=mx.random.key(7))
    v = mx.random.normal((2, H, 1, D), key=mx.random.key(8))
    batch.update_and_fetch(k, v)
    a.update_and_fetch(k[:1], v[:1])
    b.update_and_fetch(k[1:], v[1:])
    c, _, _ = single(300, 3)  # longer than the batch (and past one 256-position step)
    batch.extend(BatchQuantizedKVCache.merge([c]))
    assert batch.offset.tolist() == [6, 10, 300]
    assert all(same(r, ref) for r, ref in zip(rows_of(batch), [a, b, c], strict=True))
    mask = batch.make_mask(1)  # the next step's query against 300 cached positions and itself
    pad = batch.left_padding.tolist()[0]
    assert pad == 300 - 6 and mask.shape[-1] == 301
    assert not mask[0, 0, 0, pad - 1].item() and mask[0, 0, 0, pad].item()
    batch.filter([0, 1])  # the long one finishes: the padding shrinks back
    assert batch.offset.tolist() == [6, 10] and batch.left_padding.tolist() == [4, 0]
    assert all(same(r, ref) for r, ref in zip(rows_of(batch), [a, b], strict=True))
    back = batch.extract(0)
    assert back.offset == 6 and same(([*back.keys], [*back.values]), a)
    assert batch.nbytes < 2 * 2 * H * batch.keys[0].shape[2] * D * 4  # below float32's
