"""A model's own generation defaults, as its files state them (read only, nothing loaded).

Two places carry them, the ones peers read:

- ``generation_config.json`` in an MLX or Hugging Face folder (what vLLM applies as the
  default sampling parameters): ``temperature``, ``top_p``, ``top_k``, ``min_p``,
  ``repetition_penalty``. Like vLLM, only keys the file sets count; ``do_sample`` is not read
  (a file that sets only token ids states no sampling defaults).
- GGUF metadata ``general.sampling.*`` (what llama.cpp reads, written by its converter from
  the same ``generation_config.json``): ``temp``, ``top_p``, ``top_k``, ``min_p``,
  ``penalty_repeat``. The others (``sequence``, ``xtc_*``, ``mirostat*``, ``penalty_last_n``)
  have no counterpart here and are reported as ignored.

Values are guarded: a value of the wrong type or outside the range a request may send
(temperature 0-2, top_p in (0, 1], top_k >= 0, min_p 0-1, repetition_penalty > 0) is dropped
with a warning, and the next source in line applies instead.
"""

from __future__ import annotations

import json
import logging
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

log = logging.getLogger("afm")

FIELDS = ("temperature", "top_p", "top_k", "min_p", "repetition_penalty")
"""The sampling fields a model may state defaults for."""

GGUF_KEYS = {
    "general.sampling.temp": "temperature",  # gguf.Keys.General.SAMPLING_TEMP, ...
    "general.sampling.top_p": "top_p",
    "general.sampling.top_k": "top_k",
    "general.sampling.min_p": "min_p",
    "general.sampling.penalty_repeat": "repetition_penalty",
}
"""GGUF metadata key -> sampling field (llama.cpp's LLM_KV_GENERAL_SAMPLING_* names)."""

GGUF_PREFIX = "general.sampling."

GENERATION_CONFIG = "generation_config.json"


@dataclass(frozen=True)
class ModelDefaults:
    """What one source states: field -> value, where it was read, and what was set aside."""

    values: dict[str, float | int]
    source: str
    """``generation_config.json``, ``gguf`` or ``table`` (the project's own table)."""
    detail: str = ""
    """Which file (or table entry) it came from, for the load log."""
    ignored: tuple[str, ...] = field(default=())
    """Keys present but not applied (unknown here, or out of range)."""


def guard(name: str, value: Any) -> float | int | None:
    """``value`` as the type of sampling field ``name`` when it lies in the range a request
    may send; None otherwise."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if not math.isfinite(value):
        return None
    if name == "top_k":
        if value < 0 or value != int(value):
            return None
        return int(value)
    value = float(value)
    ok = {"temperature": 0 <= value <= 2, "top_p": 0 < value <= 1, "min_p": 0 <= value <= 1,
          "repetition_penalty": 0 < value <= 10}.get(name, False)
    return value if ok else None


def _guarded(raw: dict[str, Any], where: str) -> tuple[dict[str, float | int], list[str]]:
    values: dict[str, float | int] = {}
    ignored: list[str] = []
    for name, value in raw.items():
        checked = guard(name, value)
        if checked is None:
            log.warning("%s: %s=%r is outside what a request may send; ignored", where, name,
                        value)
            ignored.append(name)
        else:
            values[name] = checked
    return values, ignored


def from_generation_config(folder: str | Path) -> ModelDefaults | None:
    """The sampling defaults of a model folder's ``generation_config.json`` (None: no such
    file, or it sets none)."""
    path = Path(folder) / GENERATION_CONFIG
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        log.warning("%s is not readable JSON (%s); its defaults are not applied", path, exc)
        return None
    if not isinstance(data, dict):
        return None
    values, ignored = _guarded({k: data[k] for k in FIELDS if k in data}, str(path))
    if not values:
        return None
    return ModelDefaults(values, "generation_config.json", str(path), tuple(ignored))


def gguf_sampling_metadata(path: str | Path) -> dict[str, Any]:
    """Every ``general.sampling.*`` key of a GGUF file and its value.

    Only the header's key-value section is walked (arrays skipped by their lengths, nothing
    decoded but the sampling keys): ``gguf.GGUFReader`` decodes every field, the tokenizer's
    vocabulary and merges included, which takes tens of seconds for a 150k-token vocabulary."""
    import mmap
    import struct

    from gguf import GGUF_MAGIC, GGUFValueType

    sizes = {GGUFValueType.UINT8: 1, GGUFValueType.INT8: 1, GGUFValueType.BOOL: 1,
             GGUFValueType.UINT16: 2, GGUFValueType.INT16: 2, GGUFValueType.UINT32: 4,
             GGUFValueType.INT32: 4, GGUFValueType.FLOAT32: 4, GGUFValueType.UINT64: 8,
             GGUFValueType.INT64: 8, GGUFValueType.FLOAT64: 8}
    formats = {GGUFValueType.UINT8: "<B", GGUFValueType.INT8: "<b", GGUFValueType.BOOL: "<?",
               GGUFValueType.UINT16: "<H", GGUFValueType.INT16: "<h",
               GGUFValueType.UINT32: "<I", GGUFValueType.INT32: "<i",
               GGUFValueType.FLOAT32: "<f", GGUFValueType.UINT64: "<Q",
               GGUFValueType.INT64: "<q", GGUFValueType.FLOAT64: "<d"}
    out: dict[str, Any] = {}
    with open(path, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as buf:
        magic, version = struct.unpack_from("<II", buf, 0)
        if magic != GGUF_MAGIC or version < 2:
            raise ValueError("not a GGUF file of version 2 or later")
        _, kv_count = struct.unpack_from("<QQ", buf, 8)
        pos = 24

        def string(at: int) -> tuple[str, int]:
            (n,) = struct.unpack_from("<Q", buf, at)
            return bytes(buf[at + 8:at + 8 + n]).decode("utf-8", "replace"), at + 8 + n

        for _ in range(kv_count):
            key, pos = string(pos)
            (kind,) = struct.unpack_from("<I", buf, pos)
            pos += 4
            kind = GGUFValueType(kind)
            wanted = key.startswith(GGUF_PREFIX)
            if kind == GGUFValueType.STRING:
                value, pos = string(pos)
            elif kind == GGUFValueType.ARRAY:
                item, n = struct.unpack_from("<IQ", buf, pos)
                pos += 12
                item = GGUFValueType(item)
                if item == GGUFValueType.STRING:
                    for _ in range(n):
                        (length,) = struct.unpack_from("<Q", buf, pos)
                        pos += 8 + length
                elif item in sizes:
                    pos += sizes[item] * n
                else:
                    raise ValueError(f"{key}: nested arrays are not read here")
                value = None
            else:
                (value,) = struct.unpack_from(formats[kind], buf, pos)
                pos += sizes[kind]
            if wanted:
                out[key] = value
    return out


def from_gguf(path: str | Path) -> ModelDefaults | None:
    """The sampling defaults in a GGUF file's ``general.sampling.*`` metadata (None: none)."""
    try:
        meta = gguf_sampling_metadata(path)
    except Exception as exc:  # noqa: BLE001 - an unreadable file fails at load, not here
        log.warning("%s: GGUF metadata not readable for sampling defaults (%s)",
                    Path(path).name, exc)
        return None
    raw = {GGUF_KEYS[k]: v for k, v in meta.items() if k in GGUF_KEYS}
    values, ignored = _guarded(raw, Path(path).name)
    ignored += [k for k in meta if k not in GGUF_KEYS]
    if not values:
        if ignored:
            log.info("%s: GGUF sampling keys without a counterpart here, ignored: %s",
                     Path(path).name, ", ".join(sorted(ignored)))
        return None
    return ModelDefaults(values, "gguf", f"{Path(path).name} general.sampling.*",
                         tuple(ignored))


def read_model_defaults(source: str | Path) -> ModelDefaults | None:
    """The defaults a model states: a ``.gguf`` file's metadata, or a folder's
    ``generation_config.json`` (a folder holding one ``.gguf`` file and no ``config.json``:
    that file's). None when it states none or the source is not local (a hub id not yet
    downloaded)."""
    path = Path(source).expanduser()
    if path.is_file() and path.suffix.lower() == ".gguf":
        return from_gguf(path)
    if path.is_dir():
        if not (path / "config.json").is_file():
            found = sorted(p for p in path.glob("*.gguf") if p.is_file())
            return from_gguf(found[0]) if len(found) == 1 else None
        return from_generation_config(path)
    return None
