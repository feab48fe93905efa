"""`--backend foundation` on a host without Apple Foundation Models (this Linux host): the
server still starts and says why it cannot generate; generation answers 503
`backend_unavailable`, token endpoints 422 `tokenize_unsupported` (the documented envelope),
embeddings keep working, and Apple-only routes (and speech, with --no-speech) validate before
answering 503."""

from __future__ import annotations

import platform
from collections.abc import Callable
from typing import Any

import httpx
import openai
import pytest

from tests.conftest import LiveServer
from tests.test_api_http import assert_envelope

pytestmark = pytest.mark.skipif(platform.system() == "Darwin",
                                reason="on macOS the foundation backend may really exist")

TOKENIZE_MESSAGE = ("tokenize endpoints require an MLX model — Foundation backend has no public "
                    "tokenizer")
MESSAGES = [{"role": "user", "content": "Hello"}]


@pytest.fixture(scope="module")
def fm(live_server: Callable[..., LiveServer]) -> LiveServer:
    return live_server("--backend", "foundation", "--no-speech")  # speech is its own backend


def post(server: LiveServer, path: str, body: dict[str, Any], **kw: Any) -> httpx.Response:
    return httpx.post(server.url + path, json=body, timeout=60, **kw)


def test_starts_and_health_says_unavailable(fm: LiveServer) -> None:
    h = httpx.get(fm.url + "/health").json()
    assert h["status"] == "healthy"
    assert h["backend"]["name"] == "foundation" and h["backend"]["available"] is False
    assert platform.system() in h["backend"]["detail"]
    assert h["model"] is None


def test_models_lists_embeddings_only(fm: LiveServer) -> None:
    data = httpx.get(fm.url + "/v1/models").json()["data"]
    assert [m["type"] for m in data] == ["embedding"]
    assert data[0]["id"] == "sentence-transformers/all-MiniLM-L6-v2"


@pytest.mark.parametrize("path, body", [
    ("/v1/chat/completions", {"messages": MESSAGES}),
    ("/v1/chat/completions", {"messages": MESSAGES, "stream": True}),
    ("/v1/completions", {"prompt": "Once upon a time", "max_tokens": 4}),
    ("/v1/completions", {"prompt": [1, 2, 3], "stream": True}),
])
def test_generation_is_503_backend_unavailable(fm: LiveServer, path: str,
                                               body: dict[str, Any]) -> None:
    r = post(fm, path, body, headers={"X-Request-ID": "fm-1"})
    err = assert_envelope(r, 503, "backend_unavailable")
    assert err["code"] == "backend_unavailable" and err["request_id"] == "fm-1"
    assert "foundation" in err["message"] and "macOS" in err["message"]
    assert "retry-after" not in r.headers  # a missing capability, not capacity pressure


def test_generation_validates_first(fm: LiveServer) -> None:
    assert_envelope(post(fm, "/v1/chat/completions", {"messages": []}), 400,
                    "invalid_request_error")
    assert_envelope(post(fm, "/v1/completions", {"prompt": "x", "temperature": 9}), 400,
                    "invalid_request_error")


def test_sdk_sees_503(fm: LiveServer) -> None:
    with pytest.raises(openai.InternalServerError) as info:
        fm.openai().chat.completions.create(model="foundation", messages=MESSAGES)
    assert info.value.status_code == 503
    assert info.value.body["type"] == "backend_unavailable"


@pytest.mark.parametrize("path, body", [
    ("/v1/tokenize", {"text": "Hello"}),
    ("/v1/tokenize", {"messages": MESSAGES}),
    ("/v1/detokenize", {"tokens": [1, 2, 3]}),
    ("/v1/count_tokens", {"messages": MESSAGES}),
    ("/v1/count_tokens", {"system": "Be brief.", "messages": MESSAGES}),
])
def test_token_endpoints_422_as_documented(fm: LiveServer, path: str,
                                           body: dict[str, Any]) -> None:
    r = post(fm, path, body, headers={"X-Request-ID": "fm-tok"})
    assert r.status_code == 422
    assert r.json() == {"error": {"message": TOKENIZE_MESSAGE, "type": "tokenize_unsupported",
                                  "code": "tokenize_unsupported", "param": None,
                                  "request_id": "fm-tok"}}
    assert r.headers["x-request-id"] == r.headers["openai-request-id"] == "fm-tok"


def test_embeddings_still_work(fm: LiveServer) -> None:
    res = fm.openai().embeddings.create(model="sentence-transformers/all-MiniLM-L6-v2",
                                        input=["local embeddings", "без генерации"])
    assert len(res.data) == 2 and len(res.data[0].embedding) == 384
    assert_envelope(post(fm, "/v1/embeddings", {"input": "x", "model": "nope"}), 404,
                    "not_found_error")


def test_speech_validates_then_503(fm: LiveServer) -> None:
    for body in ({}, {"input": ""}, {"input": "   "}, {"input": "hi", "speed": 9},
                 {"input": "hi", "response_format": "ogg"}):
        assert_envelope(post(fm, "/v1/audio/speech", body), 400, "invalid_request_error")
    err = assert_envelope(post(fm, "/v1/audio/speech", {"input": "Hello there."}), 503,
                          "speech_unavailable")
    assert err["code"] == "speech_unavailable"
    assert_envelope(httpx.get(fm.url + "/v1/audio/voices"), 503, "speech_unavailable")


def test_transcription_validates_then_503(fm: LiveServer) -> None:
    url = fm.url + "/v1/audio/transcriptions"
    no_file = httpx.post(url, files={"model": (None, "apple-speech")})  # multipart, no file
    assert_envelope(no_file, 400, "invalid_request_error")
    assert_envelope(httpx.post(url, files={"file": ("a.wav", b"")}), 400,
                    "invalid_request_error")
    assert_envelope(httpx.post(url, files={"file": ("a.wav", b"RIFF0000WAVE")},
                               data={"response_format": "docx"}), 400, "invalid_request_error")
    err = assert_envelope(httpx.post(url, files={"file": ("a.wav", b"RIFF0000WAVE")},
                                     data={"language": "en-US"}), 503, "speech_unavailable")
    assert err["code"] == "speech_unavailable"


def test_ocr_validates_then_503(fm: LiveServer) -> None:
    for body in ({}, {"image": ""}, {"image": "%%%"}, {"image": "data:image/png;base64,@@"},
                 {"image": "aGVsbG8=", "mode": "poster"}):
        assert_envelope(post(fm, "/v1/vision/ocr", body), 400, "invalid_request_error")
    for body in ({"image": "aGVsbG8="}, {"image": "data:image/png;base64,iVBORw0KGgo="},
                 {"image": "aGVsbG8=", "mode": "table"}):
        err = assert_envelope(post(fm, "/v1/vision/ocr", body), 503, "vision_unavailable")
        assert err["code"] == "vision_unavailable"
