"""The MLX embeddings engine against sentence-transformers (PyTorch) on the builtin model."""

from __future__ import annotations

import json
import math
import os
import threading
from pathlib import Path

import mlx.core as mx
import mlx.nn as nn
import numpy as np
import pytest

from engine.bert import erf_rational, gelu_rational
from engine.embeddings import (
    BUILTIN_MODEL_ID,
    MAX_BATCH_ROWS,
    MAX_BATCH_TOKENS,
    EmbeddingLoadError,
    EmbeddingModel,
    builtin_model_path,
    plan_buckets,
)

os.environ.setdefault("HF_HUB_OFFLINE", "1")

LONG = " ".join(f"Sentence number {i} talks about embeddings and vector search." for i in range(40))
MIXED = [
    "Hello world",
    "A short one.",
    LONG,  # well beyond 256 tokens: truncated
    "Привет, как дела? Это предложение на русском языке.",
    "日本語の文章をベクトルに変換します。",
    "مرحبا بالعالم",
    "Ich liebe Pizza 🍕🔥 und Kaffee ☕",
    "def square(x: int) -> int:\n    return x ** 2  # fast path",
    "SELECT id, name FROM users WHERE age > 30 ORDER BY name;",
]


@pytest.fixture(scope="module")
def model() -> EmbeddingModel:
    return EmbeddingModel.load("all-MiniLM-L6-v2")


@pytest.fixture(scope="module")
def st_model():
    sentence_transformers = pytest.importorskip("sentence_transformers")
    return sentence_transformers.SentenceTransformer(str(builtin_model_path()), device="cpu")


@pytest.fixture(scope="module")
def mixed(model: EmbeddingModel):
    return model.embed(MIXED)


def _cos(a: np.ndarray, b: np.ndarray) -> float:
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def test_metadata(model: EmbeddingModel) -> None:
    assert model.id == BUILTIN_MODEL_ID
    assert model.dimensions == 384
    assert model.max_tokens == 256
    assert model.normalize


def test_agrees_with_sentence_transformers(mixed, st_model) -> None:
    ref = st_model.encode(MIXED, convert_to_numpy=True)
    assert len(mixed.vectors) == len(MIXED)
    for text, vec, want in zip(MIXED, mixed.vectors, ref, strict=True):
        assert vec.dtype == np.float32 and vec.shape == (384,)
        assert _cos(vec, want) >= 0.999, text
        assert np.linalg.norm(vec) == pytest.approx(1.0, abs=1e-5)


def test_token_count_and_truncation(model: EmbeddingModel, mixed, st_model) -> None:
    lengths = [len(st_model.tokenizer(t)["input_ids"]) for t in MIXED]
    assert lengths[2] > 256
    assert mixed.prompt_tokens == sum(min(n, 256) for n in lengths)
    assert mixed.truncated
    short = model.embed(MIXED[:2])
    assert not short.truncated
    assert short.prompt_tokens == sum(lengths[:2])


def test_batch_matches_single(model: EmbeddingModel, mixed) -> None:
    for i in (0, 3, 6, 7):
        single = model.embed([MIXED[i]]).vectors[0]
        np.testing.assert_allclose(single, mixed.vectors[i], atol=1e-5)


def test_dimensions_truncate_and_renormalise(model: EmbeddingModel, mixed) -> None:
    short = model.embed(MIXED[:2], dimensions=64)
    for vec, full in zip(short.vectors, mixed.vectors[:2], strict=True):
        assert vec.shape == (64,)
        assert np.linalg.norm(vec) == pytest.approx(1.0, abs=1e-5)
        np.testing.assert_allclose(vec, full[:64] / np.linalg.norm(full[:64]), atol=1e-5)
    assert model.embed(["x"], dimensions=1).vectors[0].tolist() in ([1.0], [-1.0])


def test_token_ids_equal_text(model: EmbeddingModel, mixed, st_model) -> None:
    tok = st_model.tokenizer
    with_specials = [tok(t)["input_ids"] for t in MIXED[:2]]
    bare = [tok(t, add_special_tokens=False)["input_ids"] for t in MIXED[:2]]
    for ids in (with_specials, bare):
        res = model.embed(ids)
        assert not res.truncated
        assert res.prompt_tokens == sum(len(x) for x in with_specials)
        for vec, want in zip(res.vectors, mixed.vectors[:2], strict=True):
            np.testing.assert_allclose(vec, want, atol=1e-5)
    long_ids = tok(LONG, add_special_tokens=False)["input_ids"]
    res = model.embed([long_ids])
    assert res.truncated and res.prompt_tokens == 256
    np.testing.assert_allclose(res.vectors[0], mixed.vectors[2], atol=1e-5)


@pytest.mark.parametrize(
    ("inputs", "dimensions"),
    [
        ([], None),
        ([""], None),
        (["ok", "   \n\t"], None),
        ([[]], None),
        ([[101, -1, 102]], None),
        ([[30522]], None),
        ([[1.5]], None),
        (["text", [101, 102]], None),
        (["text"], 0),
        (["text"], 385),
    ],
)
def test_invalid_input(model: EmbeddingModel, inputs, dimensions) -> None:
    with pytest.raises(ValueError):
        model.embed(inputs, dimensions=dimensions)


def test_embed_from_worker_threads(model: EmbeddingModel, mixed) -> None:
    results: dict[int, np.ndarray] = {}

    def work(i: int) -> None:
        results[i] = model.embed([MIXED[i]]).vectors[0]

    threads = [threading.Thread(target=work, args=(i,)) for i in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i in (0, 1):
        np.testing.assert_allclose(results[i], mixed.vectors[i], atol=1e-5)


def test_plan_buckets() -> None:
    lengths = [5, 300, 12, 7, 256, 40, 9, 41] + [10] * 100
    buckets = plan_buckets(lengths)
    assert sorted(i for b in buckets for i in b) == list(range(len(lengths)))
    for b in buckets:
        longest = lengths[b[0]]
        assert all(lengths[i] <= longest for i in b)
        assert len(b) == 1 or len(b) * longest <= MAX_BATCH_TOKENS
        assert len(b) <= MAX_BATCH_ROWS
        assert longest - min(lengths[i] for i in b) <= max(16, longest // 4)


def test_load_local_folder() -> None:
    m = EmbeddingModel.load(str(builtin_model_path()))
    assert m.id == BUILTIN_MODEL_ID and m.dimensions == 384


def test_load_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(EmbeddingLoadError):
        EmbeddingModel.load(str(tmp_path / "missing"))
    with pytest.raises(EmbeddingLoadError):  # empty folder
        EmbeddingModel.load(str(tmp_path))

    src = builtin_model_path()
    for name in ("config.json", "tokenizer.json", "model.safetensors"):
        (tmp_path / name).symlink_to(src / name)
    dense = [
        {"idx": 0, "name": "0", "path": "2_Dense", "type": "sentence_transformers.models.Dense"}
    ]
    (tmp_path / "modules.json").write_text(json.dumps(dense))
    with pytest.raises(EmbeddingLoadError, match="Dense"):
        EmbeddingModel.load(str(tmp_path))

    hub = pytest.importorskip("huggingface_hub")
    monkeypatch.setattr(hub.constants, "HF_HUB_OFFLINE", True)
    with pytest.raises(EmbeddingLoadError):
        EmbeddingModel.load("afm-test/no-such-embedding-model")


def test_plain_bert_folder_defaults(tmp_path: Path, model: EmbeddingModel, mixed) -> None:
    """Without sentence-transformers files: mean pooling, no normalisation, 512 window."""
    src = builtin_model_path()
    for name in ("config.json", "tokenizer.json", "model.safetensors"):
        (tmp_path / name).symlink_to(src / name)
    plain = EmbeddingModel.load(str(tmp_path))
    assert plain.id == str(tmp_path) and not plain.normalize and plain.max_tokens == 512
    vec = plain.embed([MIXED[0]]).vectors[0]
    assert np.linalg.norm(vec) != pytest.approx(1.0, abs=1e-3)
    np.testing.assert_allclose(vec / np.linalg.norm(vec), mixed.vectors[0], atol=1e-5)


def test_rational_gelu_matches_exact() -> None:
    xs = np.linspace(-8, 8, 4001, dtype=np.float32)
    want = np.array([math.erf(float(v)) for v in xs])
    assert np.abs(np.array(erf_rational(mx.array(xs))) - want).max() < 1e-6
    got = np.array(gelu_rational(mx.array(xs)))
    np.testing.assert_allclose(got, np.array(nn.gelu(mx.array(xs))), atol=3e-6)
