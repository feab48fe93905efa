"""engine.prompt_store: the on-disk prompt cache round-trips KV state, never uses a damaged file,
stays within its bound (least recently used out first) and keeps models apart."""

from __future__ import annotations

import logging
from pathlib import Path

import mlx.core as mx
import numpy as np
import pytest

from engine.prompt_store import PromptStore, model_identity
from tests.real_weights import real_model

LAYERS, HEADS, DIM = 2, 2, 32


def kv(n: int, seed: int) -> tuple[list[mx.array], list[mx.array]]:
    key = mx.random.key(seed)
    keys = [mx.random.normal((1, HEADS, n, DIM), key=mx.random.split(key, 4)[i])
            for i in range(LAYERS)]
    values = [mx.random.normal((1, HEADS, n, DIM), key=mx.random.split(key, 4)[2 + i])
              for i in range(LAYERS)]
    mx.eval(keys, values)
    return keys, values


def save(store: PromptStore, tokens: list[int], seed: int) -> tuple[list, list]:
    keys, values = kv(len(tokens), seed)
    store.save(np.array(tokens), keys, values)
    assert store.flush(10)
    return keys, values


@pytest.mark.parametrize("bits", [None, 4], ids=["plain", "quantized"])
def test_round_trip_across_instances(tmp_path: Path, bits: int | None) -> None:
    store = PromptStore(tmp_path, "m1", 1 << 20, min_tokens=1)
    tokens = list(range(100, 140))
    keys, values = kv(len(tokens), seed=1)
    quant = None
    if bits:  # quantized triples along the head dimension (group size 32 here)
        keys = [mx.quantize(k, group_size=32, bits=bits) for k in keys]
        values = [mx.quantize(v, group_size=32, bits=bits) for v in values]
        mx.eval(keys, values)
        quant = (32, bits)
    store.save(np.array(tokens), keys, values, quant)
    store.close()
    again = PromptStore(tmp_path, "m1", 1 << 20, min_tokens=1)
    assert len(again) == 1
    n, cache = again.lookup([*tokens[:30], 7, 8, 9], limit=32)
    assert n == 30 and cache is not None
    for c, k, v in zip(cache, keys, values, strict=True):
        assert c.offset == 30 and getattr(c, "bits", None) == bits
        for got, want in ((c.keys, k), (c.values, v)):
            pairs = zip(got, want, strict=True) if bits else [(got, want)]
            assert all(mx.array_equal(g, w[..., :30, :]) for g, w in pairs)
    assert again.lookup([1, 2, 3], limit=2) == (0, None)
    # another model's folder sees nothing of it
    assert len(PromptStore(tmp_path, "m2", 1 << 20, min_tokens=1)) == 0
    again.close()


@pytest.mark.parametrize("damage", ["truncate", "flip", "garbage"])
def test_damaged_entry_is_logged_and_ignored(tmp_path: Path, damage: str,
                                             caplog: pytest.LogCaptureFixture) -> None:
    store = PromptStore(tmp_path, "m1", 1 << 20, min_tokens=1)
    tokens = list(range(50))
    save(store, tokens, seed=2)
    store.close()
    (path,) = (tmp_path / "m1").glob("*.safetensors")
    data = bytearray(path.read_bytes())
    if damage == "truncate":
        data = data[: len(data) - 100]
    elif damage == "flip":
        data[-5] ^= 0xFF  # inside the last value tensor
    else:
        data = bytearray(b"not a safetensors file")
    path.write_bytes(bytes(data))
    (tmp_path / "m1" / ".x.safetensors.123.tmp.safetensors").write_bytes(b"half")  # a crash
    with caplog.at_level(logging.WARNING, logger="engine.prompt_store"):
        again = PromptStore(tmp_path, "m1", 1 << 20, min_tokens=1)
        assert again.lookup(tokens, limit=49) == (0, None)
    assert "prompt cache: ignoring" in caplog.text
    assert not path.exists() and len(again) == 0  # deleted, not tried again
    assert not list((tmp_path / "m1").glob("*.tmp*"))
    again.close()


def test_bound_evicts_least_recently_used(tmp_path: Path) -> None:
    probe = PromptStore(tmp_path / "probe", "m", 1 << 30, min_tokens=1)
    save(probe, list(range(64)), seed=0)
    size = probe.nbytes
    probe.close()
    store = PromptStore(tmp_path, "m", int(size * 2.5), min_tokens=1)
    a, b, c = ([i] + list(range(1000, 1063)) for i in (1, 2, 3))
    save(store, a, 1)
    save(store, b, 2)
    assert store.lookup(a, limit=63)[0] == 63  # a is now more recent than b
    save(store, c, 3)
    assert len(store) == 2 and store.evictions == 1
    assert store.best(b) == 0 and store.best(a) == 64 and store.best(c) == 64
    assert store.nbytes <= store.max_bytes
    # an entry extended by a newer one is dropped (the newer one serves its lookups)
    save(store, [*a, 5, 6, 7], 4)
    assert len(store) == 2 and store.best(a) == 64
    store.close()


def test_metrics_count_disk_hits_bytes_and_the_folders_size(tmp_path: Path) -> None:
    """/metrics' afm:prompt_cache_disk_* families move by what the store did: a write (its
    bytes), a hit (its tokens and the entry's bytes), a miss, an eviction, and the folders of the
    open stores as gauges (a closed store leaves them)."""
    from engine.metrics import REGISTRY

    def value(name: str) -> float:
        return REGISTRY.get_sample_value(f"afm:prompt_cache_disk_{name}") or 0.0

    names = ("hits_total", "misses_total", "hit_tokens_total", "read_bytes_total",
             "writes_total", "written_bytes_total", "evictions_total", "bytes", "entries")
    before = {n: value(n) for n in names}

    def moved() -> dict[str, float]:
        return {n: value(n) - before[n] for n in names}

    store = PromptStore(tmp_path, "m", 1 << 30, min_tokens=1)
    tokens = list(range(200, 264))
    save(store, tokens, seed=1)
    size = store.nbytes
    assert moved() == {**dict.fromkeys(names, 0.0), "writes_total": 1,
                       "written_bytes_total": size, "bytes": size, "entries": 1}
    assert store.lookup([*tokens[:40], 1, 2], limit=41)[0] == 40
    assert store.lookup([9, 9, 9], limit=2) == (0, None)
    got = moved()
    assert (got["hits_total"], got["hit_tokens_total"], got["read_bytes_total"],
            got["misses_total"]) == (1, 40, size, 1)
    store.max_bytes = size  # a second entry pushes the first out
    save(store, list(range(300, 364)), seed=2)
    got = moved()
    assert (got["evictions_total"], got["entries"], got["bytes"]) == (1, 1, size)
    store.close()
    assert (moved()["bytes"], moved()["entries"]) == (0, 0)


def test_model_identity_tells_models_apart() -> None:
    from engine.gguf_load import cached_folder

    smol, qwen = real_model("smollm2"), real_model("qwen-0.5b")
    a, b = str(cached_folder(smol)), str(cached_folder(qwen))
    assert model_identity(a) == model_identity(a)
    assert model_identity(a) != model_identity(b)
    assert model_identity(a, "kv_bits=8") != model_identity(a)
