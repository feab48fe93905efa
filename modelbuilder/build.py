"""Atomic builds and the process-safe cache of presets."""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from modelbuilder.spec import PRESETS, ModelSpec
from modelbuilder.tokenizer import tokenizer_json, train_tokenizer
from modelbuilder.tokens import SPECIAL_TOKEN_IDS, TOOL_FORMATS
from modelbuilder.weights import (
    generation_config,
    make_weights,
    model_config,
    save_weights,
    special_tokens_map,
    tokenizer_config,
)

BUILDER_VERSION = "1"
BUILD_INFO_FILE = "afm_build.json"


def spec_hash(spec: ModelSpec) -> str:
    """Short hash of the spec and builder version (names cache folders).

    Fields added after the first release enter the hash only when set, so that models built
    before they existed keep their cache folders.
    """
    fields = dataclasses.asdict(spec)
    if spec.train_tool_calls:
        from modelbuilder.tool_training import VERSION

        fields["train_tool_calls"] = VERSION
    else:
        del fields["train_tool_calls"]
    payload = json.dumps([BUILDER_VERSION, fields], sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()[:10]


def _write_json(path: Path, data: Any) -> None:
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def _write_model_files(folder: Path, spec: ModelSpec) -> None:
    tok_data = tokenizer_json(train_tokenizer(spec.vocab_size, spec.seed))
    n_tokens = len(tok_data["model"]["vocab"])
    vocab_size = max(spec.vocab_size, n_tokens)
    vocab_size = -(-vocab_size // 64) * 64  # pad the embedding to a multiple of 64
    (folder / "tokenizer.json").write_text(json.dumps(tok_data, ensure_ascii=False), "utf-8")
    _write_json(folder / "tokenizer_config.json", tokenizer_config(spec))
    _write_json(folder / "special_tokens_map.json", special_tokens_map())
    _write_json(folder / "config.json", model_config(spec, vocab_size))
    _write_json(folder / "generation_config.json", generation_config())
    save_weights(make_weights(spec, vocab_size), folder / "model.safetensors", spec.dtype)
    info = {
        "builder_version": BUILDER_VERSION,
        "spec": dataclasses.asdict(spec),
        "tokenizer_size": n_tokens,
        "special_token_ids": SPECIAL_TOKEN_IDS,
    }
    if spec.train_tool_calls:
        from modelbuilder.tool_training import train_in_subprocess

        train_in_subprocess(folder, spec.seed)
    _write_json(folder / BUILD_INFO_FILE, info)
    for path in folder.iterdir():
        path.chmod(0o644)
    folder.chmod(0o755)  # mkdtemp made it private; the cache may be shared


def _validate(spec: ModelSpec) -> None:
    if spec.tool_format not in TOOL_FORMATS:
        raise ValueError(f"unknown tool_format {spec.tool_format!r}")
    if spec.dtype not in ("float32", "float16", "bfloat16"):
        raise ValueError(f"unsupported dtype {spec.dtype!r}")
    if spec.num_heads % spec.num_kv_heads:
        raise ValueError("num_heads must be a multiple of num_kv_heads")
    if spec.train_tool_calls and spec.tool_format != "hermes":
        raise ValueError("train_tool_calls supports the hermes tool format only")
    if spec.vocab_size < 512:
        raise ValueError("vocab_size must be at least 512")


def _build_atomic(out_dir: Path, spec: ModelSpec, replace: bool) -> Path:
    """Build in a sibling temp folder, then rename into place."""
    _validate(spec)
    out_dir = Path(out_dir)
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.tmp-", dir=out_dir.parent))
    try:
        _write_model_files(tmp, spec)
        if replace and out_dir.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.old-", dir=out_dir.parent))
            os.replace(out_dir, old / "m")
            shutil.rmtree(old, ignore_errors=True)
        try:
            os.rename(tmp, out_dir)
        except OSError:
            if not (out_dir / BUILD_INFO_FILE).exists():
                raise
            # Another process finished the same build first: keep theirs.
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return out_dir


def build_model(out_dir: Path, spec: ModelSpec) -> Path:
    """Build ``spec`` into ``out_dir`` (replacing it) atomically; return the folder."""
    return _build_atomic(Path(out_dir), spec, replace=True)


def default_cache_dir() -> Path:
    """``$AFM_CACHE_DIR`` or the platform's user cache folder for "afm"."""
    env = os.environ.get("AFM_CACHE_DIR")
    if env:
        return Path(env)
    import platformdirs

    return Path(platformdirs.user_cache_dir("afm"))


@contextlib.contextmanager
def _file_lock(path: Path) -> Iterator[None]:
    """An exclusive advisory lock (POSIX); a no-op where fcntl is missing."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        yield
        return
    with open(path, "a+b") as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


def model_cache_path(name: str, cache_dir: Path | None = None) -> Path:
    """Where :func:`ensure_model` keeps preset ``name``."""
    spec = _preset(name)
    root = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    return root / "models" / f"{spec.name}-{spec_hash(spec)}"


def _preset(name: str) -> ModelSpec:
    try:
        return PRESETS[name]
    except KeyError:
        raise ValueError(f"unknown model preset {name!r}; known: {sorted(PRESETS)}") from None


def ensure_model(name: str = "default", cache_dir: Path | None = None) -> Path:
    """Path of preset ``name``, built into the cache on first use (safe across processes)."""
    target = model_cache_path(name, cache_dir)
    if (target / BUILD_INFO_FILE).exists():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with _file_lock(target.parent / f"{target.name}.lock"):
        if not (target / BUILD_INFO_FILE).exists():
            if target.exists():  # a half-written folder from a crash before rename
                shutil.rmtree(target, ignore_errors=True)
            _build_atomic(target, _preset(name), replace=False)
    return target
