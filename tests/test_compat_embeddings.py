"""/v1/embeddings end to end: a real `afm serve`, the official openai SDK, and
sentence-transformers (PyTorch) on the same model folder as the reference."""

from __future__ import annotations

import base64
import time
from collections.abc import Callable
from typing import Any

import httpx
import numpy as np
import pytest

from engine.embeddings import builtin_model_path
from tests.conftest import LiveServer
from tests.test_api_http import assert_envelope

BUILTIN = "sentence-transformers/all-MiniLM-L6-v2"
LONG = " ".join(f"Paragraph {i} explains how a local server turns text into vectors."
                for i in range(40))
MIXED = [
    "Hello world",
    "A short one.",
    LONG,  # > 256 tokens: cut to the window
    "Привет, как дела? Это предложение на русском языке.",
    "日本語の文章をベクトルに変換します。",
    "مرحبا بالعالم",
    "Ich liebe Pizza 🍕🔥 und Kaffee ☕",
    "🙂🙃😉",
    "def square(x: int) -> int:\n    return x ** 2  # fast path",
]
EXTRA_NAME = "minilm-copy"


def _cos(a: np.ndarray, b: np.ndarray) -> float:
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


@pytest.fixture(scope="module")
def st_model() -> Any:
    st = pytest.importorskip("sentence_transformers")
    return st.SentenceTransformer(str(builtin_model_path()), device="cpu")


@pytest.fixture(scope="module")
def reference(st_model: Any) -> np.ndarray:
    return st_model.encode(MIXED, convert_to_numpy=True, normalize_embeddings=False)


@pytest.fixture(scope="module")
def emb_server(live_server: Callable[..., LiveServer],
               tmp_path_factory: pytest.TempPathFactory) -> LiveServer:
    """A server with two extra embedding models: a symlinked copy of the builtin folder and
    one that cannot load."""
    link = tmp_path_factory.mktemp("emb") / EXTRA_NAME
    link.symlink_to(builtin_model_path(), target_is_directory=True)
    return live_server("--concurrent", "2", "--embedding-model", str(link),
                       "--embedding-model", "/nonexistent/embedder")


def _post(server: LiveServer, body: dict[str, Any]) -> httpx.Response:
    return httpx.post(server.url + "/v1/embeddings", json=body, timeout=120)


def _floats(server: LiveServer, inputs: Any, **kw: Any) -> np.ndarray:
    r = _post(server, {"input": inputs, "encoding_format": "float", **kw})
    assert r.status_code == 200, r.text
    return np.array([d["embedding"] for d in r.json()["data"]], dtype=np.float32)


def test_sdk_default_agrees_with_sentence_transformers(emb_server: LiveServer,
                                                       reference: np.ndarray) -> None:
    # Without encoding_format the SDK asks for base64 and decodes it itself.
    raw = emb_server.openai().embeddings.with_raw_response.create(model=BUILTIN, input=MIXED)
    assert raw.headers.get("x-embedding-truncated") == "true"
    res = raw.parse()
    assert res.model == BUILTIN and res.object == "list"
    assert [d.index for d in res.data] == list(range(len(MIXED)))
    for text, d, want in zip(MIXED, res.data, reference, strict=True):
        vec = np.asarray(d.embedding, dtype=np.float32)
        assert vec.shape == (384,)
        assert _cos(vec, want) >= 0.999, text
        assert np.linalg.norm(vec) == pytest.approx(1.0, abs=1e-4)


def test_float_and_base64_agree(emb_server: LiveServer, reference: np.ndarray) -> None:
    client = emb_server.openai()
    floats = client.embeddings.create(model=BUILTIN, input=MIXED, encoding_format="float")
    b64 = client.embeddings.create(model=BUILTIN, input=MIXED, encoding_format="base64")
    for f, b, want in zip(floats.data, b64.data, reference, strict=True):
        assert isinstance(f.embedding, list) and isinstance(f.embedding[0], float)
        # An explicit base64 request is handed back undecoded: little-endian float32.
        assert isinstance(b.embedding, str)
        vec = np.frombuffer(base64.b64decode(b.embedding), dtype="<f4")
        np.testing.assert_allclose(vec, np.asarray(f.embedding, dtype=np.float32), atol=1e-6)
        assert _cos(vec, want) >= 0.999


def test_truncation_header_and_usage(emb_server: LiveServer, st_model: Any) -> None:
    short = _post(emb_server, {"input": MIXED[:2]})
    assert short.status_code == 200 and "x-embedding-truncated" not in short.headers
    lengths = [len(st_model.tokenizer(t)["input_ids"]) for t in MIXED[:2]]
    assert short.json()["usage"] == {"prompt_tokens": sum(lengths), "total_tokens": sum(lengths)}
    long = _post(emb_server, {"input": LONG})
    assert long.headers["x-embedding-truncated"] == "true"
    assert long.json()["usage"]["prompt_tokens"] == 256


def test_dimensions_truncate_then_renormalise(emb_server: LiveServer) -> None:
    full = _floats(emb_server, MIXED[:3])
    res = emb_server.openai().embeddings.create(model=BUILTIN, input=MIXED[:3], dimensions=64)
    for d, f in zip(res.data, full, strict=True):
        vec = np.asarray(d.embedding, dtype=np.float32)
        assert vec.shape == (64,)
        assert np.linalg.norm(vec) == pytest.approx(1.0, abs=1e-4)
        np.testing.assert_allclose(vec, f[:64] / np.linalg.norm(f[:64]), atol=1e-5)
    err = assert_envelope(_post(emb_server, {"input": "x", "dimensions": 385}), 400,
                          "invalid_request_error")
    assert "384" in err["message"]


def test_token_id_inputs(emb_server: LiveServer, st_model: Any) -> None:
    tok = st_model.tokenizer
    texts = MIXED[:2] + MIXED[3:4]
    by_text = _floats(emb_server, texts)
    ids = [tok(t, add_special_tokens=False)["input_ids"] for t in texts]
    one = _floats(emb_server, ids[0])  # a flat list of token ids is one input
    assert one.shape == (1, 384)
    np.testing.assert_allclose(one[0], by_text[0], atol=1e-5)
    many = emb_server.openai().embeddings.create(model=BUILTIN, input=ids,
                                                 encoding_format="float")
    got = np.array([d.embedding for d in many.data], dtype=np.float32)
    np.testing.assert_allclose(got, by_text, atol=1e-5)
    with_specials = _floats(emb_server, [tok(t)["input_ids"] for t in texts])
    np.testing.assert_allclose(with_specials, by_text, atol=1e-5)


@pytest.mark.parametrize("body", [
    {"input": ""},
    {"input": "   \n\t"},
    {"input": []},
    {"input": ["fine", ""]},
    {"input": ["fine", "  "]},
    {"input": [[]]},
    {"input": [[101, 7592], []]},
    {"input": [101, 30522]},  # outside the vocabulary
    {"input": [[101, -1]]},
    {"input": ["text", [101]]},
    {"input": 42},
    {"input": "x", "encoding_format": "int8"},
    {"input": "x", "dimensions": 0},
    {},
])
def test_invalid_inputs_get_400(emb_server: LiveServer, body: dict[str, Any]) -> None:
    assert_envelope(_post(emb_server, body), 400, "invalid_request_error")


def test_unknown_model_404(emb_server: LiveServer) -> None:
    err = assert_envelope(_post(emb_server, {"input": "x", "model": "text-embedding-3-small"}),
                          404, "not_found_error")
    assert "text-embedding-3-small" in err["message"]
    import openai

    with pytest.raises(openai.NotFoundError):
        emb_server.openai().embeddings.create(model="nope", input="x")


def test_alias_resolves_to_builtin(emb_server: LiveServer) -> None:
    r = _post(emb_server, {"input": "x", "model": "all-MiniLM-L6-v2"})
    assert r.status_code == 200 and r.json()["model"] == BUILTIN
    assert _post(emb_server, {"input": "x"}).json()["model"] == BUILTIN  # model is optional


def test_extra_embedding_model_listed_and_served(emb_server: LiveServer) -> None:
    models = httpx.get(emb_server.url + "/v1/models").json()["data"]
    assert models[0]["type"] == "chat"
    embedding = [m for m in models if m["type"] == "embedding"]
    ids = [m["id"] for m in embedding]
    assert ids[0] == BUILTIN and EXTRA_NAME in ids
    assert all(m["type"] == "embedding" for m in models[1:])
    one = httpx.get(emb_server.url + f"/v1/models/{EXTRA_NAME}")
    assert one.status_code == 200 and one.json()["type"] == "embedding"
    res = emb_server.openai().embeddings.create(model=EXTRA_NAME, input=MIXED[:2],
                                                encoding_format="float")
    assert res.model == EXTRA_NAME
    link = next(a for a in emb_server.args if a.endswith(EXTRA_NAME))
    by_path = _post(emb_server, {"input": "x", "model": link})  # the path as given: an alias
    assert by_path.status_code == 200 and by_path.json()["model"] == EXTRA_NAME
    np.testing.assert_allclose(np.array([d.embedding for d in res.data], dtype=np.float32),
                               _floats(emb_server, MIXED[:2]), atol=1e-5)


def test_model_that_cannot_load_is_503(emb_server: LiveServer) -> None:
    for _ in range(2):  # a failed load is retried, and fails the same way, not with a 500
        err = assert_envelope(_post(emb_server, {"input": "x", "model": "/nonexistent/embedder"}),
                              503, "embedding_error")
        assert err["code"] == "embedding_error" and "/nonexistent/embedder" in err["message"]
    assert _post(emb_server, {"input": "still fine"}).status_code == 200


def test_body_limit_1mb(emb_server: LiveServer) -> None:
    text = "word " * (1024 * 1024 // 5 + 10)
    r = httpx.post(emb_server.url + "/v1/embeddings", json={"input": text}, timeout=60)
    err = assert_envelope(r, 413, "payload_too_large")
    assert err["code"] == "payload_too_large"
    ok = _post(emb_server, {"input": "word " * 150_000})  # ~750 kB: under the limit
    assert ok.status_code == 200 and ok.headers["x-embedding-truncated"] == "true"


def test_concurrent_requests_keep_their_ids(emb_server: LiveServer) -> None:
    import concurrent.futures as cf

    texts = MIXED[:6]
    alone = _floats(emb_server, texts)

    def one(i: int) -> tuple[str, list[float]]:
        r = httpx.post(emb_server.url + "/v1/embeddings", timeout=120,
                       json={"input": texts[i], "encoding_format": "float"},
                       headers={"X-Request-ID": f"emb-{i}"})
        assert r.status_code == 200, r.text
        return r.headers["x-request-id"], r.json()["data"][0]["embedding"]

    with cf.ThreadPoolExecutor(4) as pool:
        results = list(pool.map(one, range(len(texts))))
    for i, (rid, vec) in enumerate(results):
        assert rid == f"emb-{i}"
        np.testing.assert_allclose(np.asarray(vec, dtype=np.float32), alone[i], atol=1e-5)


def test_models_list_and_retrieve(emb_server: LiveServer) -> None:
    sdk = emb_server.openai()
    listed = sdk.models.list()
    data = [m.model_dump() for m in listed.data]
    chat, *embedding = data
    assert chat["object"] == "model" and chat["owned_by"] == "afm"
    assert isinstance(chat["created"], int) and 0 < chat["created"] <= time.time() + 5
    assert chat["max_context_length"] == 4096 and chat["type"] == "chat"
    assert [m["id"] for m in embedding] == [BUILTIN, EXTRA_NAME, "/nonexistent/embedder"]
    assert all(m["type"] == "embedding" and m["object"] == "model" for m in embedding)
    for model_id in (chat["id"], BUILTIN, EXTRA_NAME, "/nonexistent/embedder"):
        assert sdk.models.retrieve(model_id).id == model_id  # ids with "/" included
    for path in (BUILTIN, "sentence-transformers%2Fall-MiniLM-L6-v2", "all-MiniLM-L6-v2"):
        r = httpx.get(emb_server.url + "/v1/models/" + path)
        assert r.status_code == 200 and r.json()["id"] == BUILTIN, path
    for missing in ("gpt-4o", "sentence-transformers/other", "sentence-transformers"):
        err = assert_envelope(httpx.get(emb_server.url + "/v1/models/" + missing), 404,
                              "not_found_error")
        assert err["code"] == "model_not_found"
    import openai

    with pytest.raises(openai.NotFoundError):
        sdk.models.retrieve("gpt-4o")
