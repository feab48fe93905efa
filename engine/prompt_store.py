"""Persistent prompt cache: KV states of token sequences on disk, so a restarted server resumes a
session without prefilling it again (``--prompt-cache-dir``).

One folder per model identity (:func:`model_identity`: a hash of the model's config, tokenizer
and weight files and of what changes its KV numbers), one ``.safetensors`` file per entry,
written with mlx-lm's ``save_prompt_cache``. Each file's metadata holds the token sequence, the
model identity and a digest of the KV arrays; a file that does not load, belongs to another model
or does not match its digest is logged, deleted and treated as a miss. Writes run on a background
thread (the caller hands over evaluated arrays and returns at once) into a temporary file that is
renamed into place, so a crash leaves either the old state or a whole new entry, never a torn
one; temporary files left by a crash are removed at start-up. Entries that are a prefix of a newer
entry are dropped (the newer one serves the same lookups). The folder is bounded by ``max_bytes``
with least-recently-used eviction (recency is each file's mtime, so it survives restarts).
Hits, tokens and bytes loaded, writes, evictions and the folders' size are in ``/metrics``
(``afm:prompt_cache_disk_*``).
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import logging
import os
import queue
import struct
import threading
import time
import uuid
import weakref
from dataclasses import dataclass
from pathlib import Path

import mlx.core as mx
import numpy as np
from mlx_lm.models.cache import KVCache, QuantizedKVCache, load_prompt_cache, save_prompt_cache

from engine import metrics
from engine.prefix_cache import KV, common_prefix, restore

log = logging.getLogger(__name__)

FORMAT = "afm-prompt-cache-1"
MIN_TOKENS = 128  # shorter sequences are cheap to prefill and not worth a file
_SAMPLE = 1 << 20  # bytes read from each end of a weight file for the model identity
_SUFFIX = ".safetensors"


def model_identity(model_path: str, variant: str = "") -> str:
    """A short hash naming the model: its config, tokenizer and weight files (name, size and a
    sample of each end), plus ``variant`` (what else changes the KV numbers: weight dtype
    policy, KV quantization)."""
    h = hashlib.sha256(f"{FORMAT}\n{variant}\n".encode())
    folder = Path(model_path)
    if not folder.is_dir():
        h.update(model_path.encode())
        return h.hexdigest()[:16]
    for path in sorted(folder.iterdir()):
        if not path.is_file():
            continue
        name = path.name
        if name in ("config.json", "afm_gguf.json") or name.startswith("tokenizer"):
            h.update(name.encode() + b"\0" + path.read_bytes())
        elif name.endswith((".safetensors", ".gguf", ".npz")):
            size = path.stat().st_size
            h.update(f"{name}\0{size}\0".encode())
            with path.open("rb") as f:
                h.update(f.read(_SAMPLE))
                f.seek(max(0, size - _SAMPLE))
                h.update(f.read(_SAMPLE))
    return h.hexdigest()[:16]


def _flat(parts: list[KV]) -> list[mx.array]:
    return [a for x in parts for a in (x if isinstance(x, (tuple, list)) else (x,))]


def _digest(arrays: list[mx.array]) -> str:
    h = hashlib.blake2b(digest_size=16)
    for a in arrays:
        if a.dtype == mx.bfloat16:
            a = a.view(mx.uint16)
        h.update(str((a.shape, a.dtype)).encode())
        h.update(memoryview(np.ascontiguousarray(np.asarray(a))).cast("B"))
    return h.hexdigest()


def _encode_tokens(tokens: np.ndarray) -> str:
    return base64.b64encode(tokens.astype("<i4").tobytes()).decode()


def _decode_tokens(text: str) -> np.ndarray:
    return np.frombuffer(base64.b64decode(text), dtype="<i4").astype(np.int64)


def _read_header(path: Path) -> dict[str, str]:
    """The ``__metadata__`` of a safetensors file, read without loading its tensors."""
    with path.open("rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        if n > 64 << 20:
            raise ValueError("header too large")
        header = json.loads(f.read(n))
    meta = header.get("__metadata__") or {}
    return {k.split(".", 1)[-1]: v for k, v in meta.items()}


_OPEN: weakref.WeakSet[PromptStore] = weakref.WeakSet()
"""The stores of the loaded models (their folders' size and entries are gauges)."""


def _open_total(what: str) -> float:
    total = 0
    for store in list(_OPEN):
        with store._lock:
            total += store.nbytes if what == "bytes" else len(store._entries)
    return float(total)


metrics.prompt_cache_disk_bytes.set_function(lambda: _open_total("bytes"))
metrics.prompt_cache_disk_entries.set_function(lambda: _open_total("entries"))


@dataclass
class _Entry:
    tokens: np.ndarray
    path: Path
    nbytes: int
    used: float  # last use (mtime)


class PromptStore:
    """The on-disk entries of one model. ``lookup`` runs on the engine thread; ``save`` only
    queues the write for the writer thread."""

    def __init__(self, root: str | Path, identity: str, max_bytes: int,
                 min_tokens: int = MIN_TOKENS) -> None:
        self.folder = Path(root) / identity
        self.folder.mkdir(parents=True, exist_ok=True)
        self.identity = identity
        self.max_bytes = max_bytes
        self.min_tokens = min_tokens
        self._lock = threading.Lock()
        self._entries: dict[str, _Entry] = {}
        self.hits = self.misses = self.writes = self.evictions = self.discarded = 0
        self._scan()
        _OPEN.add(self)
        self._queue: queue.Queue[tuple[np.ndarray, list[KV], list[KV],
                                       tuple[int, int] | None] | None] = queue.Queue()
        self._pending = 0
        self._idle = threading.Condition(self._lock)
        self._writer = threading.Thread(target=self._write_loop, name="afm-prompt-store",
                                        daemon=True)
        self._writer.start()

    # ----------------------------------------------------------------- index

    def _scan(self) -> None:
        for path in self.folder.iterdir():
            if ".tmp" in path.name:  # a write a crash interrupted
                path.unlink(missing_ok=True)
                continue
            if not path.name.endswith(_SUFFIX):
                continue
            try:
                meta = _read_header(path)
                if meta.get("afm_model") != self.identity:
                    raise ValueError("written for another model")
                tokens = _decode_tokens(meta["afm_tokens"])
                st = path.stat()
            except Exception as exc:  # noqa: BLE001 - whatever is wrong, the entry is unusable
                self._discard(path, f"unreadable header ({type(exc).__name__}: {exc})")
                continue
            self._entries[path.name] = _Entry(tokens, path, st.st_size, st.st_mtime)
        self._evict()
        if self._entries:
            log.info("prompt cache %s: %d entries, %.1f MiB", self.folder, len(self._entries),
                     self.nbytes / 2**20)

    @property
    def nbytes(self) -> int:
        return sum(e.nbytes for e in self._entries.values())

    def __len__(self) -> int:
        return len(self._entries)

    def _discard(self, path: Path, why: str) -> None:
        log.warning("prompt cache: ignoring %s: %s", path.name, why)
        self.discarded += 1
        metrics.prompt_cache_disk_discarded.inc()
        path.unlink(missing_ok=True)

    def _evict(self) -> None:
        """Drop least-recently-used entries while the folder is over its bound (lock held)."""
        while self._entries and self.nbytes > self.max_bytes:
            name = min(self._entries, key=lambda k: self._entries[k].used)
            self._entries.pop(name).path.unlink(missing_ok=True)
            self.evictions += 1
            metrics.prompt_cache_disk_evictions.inc()

    # ----------------------------------------------------------------- lookup

    def best(self, tokens: list[int]) -> int:
        """Length of the longest prefix of ``tokens`` some entry holds (no loading)."""
        query = np.asarray(tokens, dtype=np.int64)
        with self._lock:
            return max((common_prefix(e.tokens, query) for e in self._entries.values()),
                       default=0)

    def lookup(self, tokens: list[int], limit: int, better_than: int = 0
               ) -> tuple[int, list[KVCache | QuantizedKVCache] | None]:
        """Load the entry sharing the longest prefix with ``tokens`` (at most ``limit`` tokens
        reused) when it beats ``better_than``: (count, fresh caches) or (0, None)."""
        query = np.asarray(tokens, dtype=np.int64)
        with self._lock:
            scored = [(common_prefix(e.tokens, query), e) for e in self._entries.values()]
        scored = [(min(n, limit), e) for n, e in scored if min(n, limit) > better_than]
        for n, entry in sorted(scored, key=lambda s: -s[0]):
            cache = self._load(entry)
            if cache is None:
                continue
            quant = ((cache[0].group_size, cache[0].bits)
                     if isinstance(cache[0], QuantizedKVCache) else None)
            self.hits += 1
            metrics.prompt_cache_disk_hits.inc()
            metrics.prompt_cache_disk_hit_tokens.inc(n)
            metrics.prompt_cache_disk_read_bytes.inc(entry.nbytes)
            return n, restore([c.keys for c in cache], [c.values for c in cache], n, quant)
        self.misses += 1
        metrics.prompt_cache_disk_misses.inc()
        return 0, None

    def _load(self, entry: _Entry) -> list[KVCache | QuantizedKVCache] | None:
        try:
            cache, meta = load_prompt_cache(str(entry.path), return_metadata=True)
            n = entry.tokens.shape[0]
            if meta.get("afm_model") != self.identity:
                raise ValueError("written for another model")
            kinds = {type(c) for c in cache}
            if not cache or len(kinds) != 1 or not kinds <= {KVCache, QuantizedKVCache}:
                raise ValueError(f"unexpected cache types {sorted(k.__name__ for k in kinds)}")
            arrays = _flat([x for c in cache for x in (c.keys, c.values)])
            if any(c.offset != n for c in cache) or any(a.shape[2] != n for a in arrays):
                raise ValueError("KV state does not match its token count")
            if _digest(arrays) != meta.get("afm_digest"):
                raise ValueError("digest mismatch (corrupt or truncated)")
        except Exception as exc:  # noqa: BLE001 - a bad file is a miss, never a crash
            with self._lock:
                self._entries.pop(entry.path.name, None)
            self._discard(entry.path, f"{type(exc).__name__}: {exc}")
            return None
        now = time.time()
        with self._lock:
            entry.used = now
        with contextlib.suppress(OSError):
            os.utime(entry.path, (now, now))
        return cache

    # ----------------------------------------------------------------- writes

    def save(self, tokens: np.ndarray, keys: list[KV], values: list[KV],
             quant: tuple[int, int] | None = None) -> None:
        """Queue the KV state of ``tokens`` (evaluated arrays, or quantized triples with
        ``quant`` = (group_size, bits), holding exactly those positions) for writing; returns
        at once."""
        if tokens.shape[0] < self.min_tokens:
            return
        with self._lock:
            self._pending += 1
        self._queue.put((np.asarray(tokens, dtype=np.int64), list(keys), list(values), quant))

    def _write_loop(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            batch = [item]
            while True:  # coalesce: a queued entry that extends another makes it redundant
                try:
                    more = self._queue.get_nowait()
                except queue.Empty:
                    break
                if more is None:
                    self._queue.put(None)
                    break
                batch.append(more)
            keep = [b for i, b in enumerate(batch)
                    if not any(j != i and o[0].shape[0] >= b[0].shape[0]
                               and common_prefix(o[0], b[0]) == b[0].shape[0]
                               and (o[0].shape[0] > b[0].shape[0] or j > i)
                               for j, o in enumerate(batch))]
            for tokens, keys, values, quant in keep:
                try:
                    self._write(tokens, keys, values, quant)
                except Exception:  # noqa: BLE001 - persisting is best effort
                    log.exception("prompt cache write failed")
            with self._lock:
                self._pending -= len(batch)
                self._idle.notify_all()

    def _write(self, tokens: np.ndarray, keys: list[KV], values: list[KV],
               quant: tuple[int, int] | None) -> None:
        n = tokens.shape[0]
        with self._lock:
            for e in self._entries.values():
                if e.tokens.shape[0] >= n and common_prefix(e.tokens, tokens) == n:
                    return  # already on disk
        name = hashlib.sha256(tokens.astype("<i4").tobytes()).hexdigest()[:32] + _SUFFIX
        meta = {"afm_format": FORMAT, "afm_model": self.identity,
                "afm_tokens": _encode_tokens(tokens),
                "afm_digest": _digest(_flat([x for kv in zip(keys, values, strict=True)
                                             for x in kv]))}
        caches: list[KVCache | QuantizedKVCache] = []
        for k, v in zip(keys, values, strict=True):  # no slicing: no MLX work on this thread
            c = KVCache() if quant is None else QuantizedKVCache(*quant)
            c.keys, c.values, c.offset = k, v, n
            caches.append(c)
        final = self.folder / name
        tmp = self.folder / f".{name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp{_SUFFIX}"
        try:
            save_prompt_cache(str(tmp), caches, meta)
            with tmp.open("rb") as f:
                os.fsync(f.fileno())
            os.replace(tmp, final)
        finally:
            tmp.unlink(missing_ok=True)
        size = final.stat().st_size
        with self._lock:
            for other in list(self._entries.values()):  # entries this one extends
                m = other.tokens.shape[0]
                if m < n and common_prefix(other.tokens, tokens) == m:
                    self._entries.pop(other.path.name)
                    other.path.unlink(missing_ok=True)
            self._entries[name] = _Entry(tokens, final, size, time.time())
            self.writes += 1
            metrics.prompt_cache_disk_writes.inc()
            metrics.prompt_cache_disk_written_bytes.inc(size)
            if size > self.max_bytes:
                log.warning("prompt cache: an entry of %.1f MiB exceeds --prompt-cache-size",
                            size / 2**20)
            self._evict()

    def flush(self, timeout: float = 30.0) -> bool:
        """Wait until queued writes are on disk (True) or ``timeout`` passes (False)."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while self._pending:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._idle.wait(left)
        return True

    def close(self, timeout: float = 30.0) -> None:
        """Finish queued writes (up to ``timeout`` seconds) and stop the writer."""
        self.flush(timeout)
        _OPEN.discard(self)
        self._queue.put(None)
        self._writer.join(timeout=5)
