"""HTTP behaviour every route shares, against a real `afm serve`: correlation ids, the error
envelope for every failure class, body limits, CORS preflights, the served contract and docs."""

from __future__ import annotations

import re

import httpx
import pytest

from tests.conftest import LiveServer

MINTED = re.compile(r"^req_[0-9a-f]{12}$")


def assert_envelope(r: httpx.Response, status: int, type_: str) -> dict:
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith("application/json")
    err = r.json()["error"]
    assert err["type"] == type_
    assert isinstance(err["message"], str) and err["message"]
    assert err["request_id"] == r.headers["x-request-id"] == r.headers["openai-request-id"]
    assert "Traceback" not in r.text
    return err


def test_health_and_models(server: LiveServer) -> None:
    h = httpx.get(server.url + "/health").json()
    assert h["status"] == "healthy" and h["backend"] == {"name": "mlx", "available": True,
                                                           "detail": None}
    assert h["sharding"] is None  # one process: no group (the contract's choice)
    models = httpx.get(server.url + "/v1/models").json()
    ids = [m["id"] for m in models["data"]]
    assert ids[0] == h["model"]
    assert "sentence-transformers/all-MiniLM-L6-v2" in ids
    one = httpx.get(server.url + "/v1/models/sentence-transformers/all-MiniLM-L6-v2")
    assert one.status_code == 200 and one.json()["type"] == "embedding"
    assert_envelope(httpx.get(server.url + "/v1/models/nope"), 404, "not_found_error")


def test_request_id_minted_and_honoured(server: LiveServer) -> None:
    r = httpx.get(server.url + "/health")
    assert MINTED.match(r.headers["x-request-id"])
    assert r.headers["openai-request-id"] == r.headers["x-request-id"]
    r = httpx.get(server.url + "/health", headers={"X-Request-ID": "job-7"})
    assert r.headers["x-request-id"] == r.headers["openai-request-id"] == "job-7"
    r = httpx.get(server.url + "/health", headers={"X-Request-ID": "", "OpenAI-Request-ID": "o-1"})
    assert r.headers["x-request-id"] == "o-1"


def test_unknown_path_and_wrong_method(server: LiveServer) -> None:
    assert_envelope(httpx.get(server.url + "/v1/nope"), 404, "not_found_error")
    r = httpx.delete(server.url + "/v1/models")
    assert_envelope(r, 405, "method_not_allowed")
    assert "GET" in r.headers["allow"]


@pytest.mark.parametrize("content, ctype, status", [
    (b"{not json", "application/json", 400),
    (b'{"messages": [{"role": "user", "content": "\xff\xfe"}]}', "application/json", 400),
    (b"messages=hi", "text/plain", 415),
    (b'{"messages": []}', "application/json", 400),
    (b'{"messages": [{"role": "robot", "content": "x"}]}', "application/json", 400),
    (b'{"messages": [{"role": "user", "content": "x"}], "temperature": 9}', "application/json",
     400),
])
def test_malformed_requests(server: LiveServer, content: bytes, ctype: str, status: int) -> None:
    r = httpx.post(server.url + "/v1/chat/completions", content=content,
                   headers={"content-type": ctype, "x-request-id": "bad-1"})
    err = assert_envelope(r, status, "invalid_request_error")
    assert err["request_id"] == "bad-1"


def test_body_limits_per_route(server: LiveServer) -> None:
    big = b'{"input": "' + b"a" * (1024 * 1024 + 10) + b'"}'
    assert_envelope(httpx.post(server.url + "/v1/embeddings", content=big,
                               headers={"content-type": "application/json"}),
                    413, "payload_too_large")
    # the same size is fine for tokenize (8 MB limit) - it reaches the handler
    ok = httpx.post(server.url + "/v1/tokenize", content=big.replace(b"input", b"text"),
                    headers={"content-type": "application/json"}, timeout=60)
    assert ok.status_code == 200, ok.text


def test_body_limit_without_content_length(server: LiveServer) -> None:
    def chunks():
        for _ in range(40):
            yield b" " * 32768
        yield b'{"input": "x"}'

    r = httpx.post(server.url + "/v1/embeddings", content=chunks(),
                   headers={"content-type": "application/json"})
    assert_envelope(r, 413, "payload_too_large")


@pytest.mark.parametrize("body", [b"\x00\x01", b"[]", b"null", b'{"messages": null}',
                                  b"1e999999"])
def test_bad_bodies_are_400_and_server_survives(server: LiveServer, body: bytes) -> None:
    r = httpx.post(server.url + "/v1/chat/completions", content=body,
                   headers={"content-type": "application/json", "x-request-id": "bad-body"})
    err = assert_envelope(r, 400, "invalid_request_error")
    assert err["request_id"] == "bad-body"
    assert httpx.get(server.url + "/health").status_code == 200


@pytest.mark.parametrize("path, must_have, must_not", [
    ("/v1/chat/completions", {"content-type", "authorization", "x-afm-profile"},
     {"x-request-id"}),
    ("/v1/chat/completions/abc/cancel", {"content-type", "x-request-id", "openai-request-id"},
     set()),
    ("/v1/tokenize", {"content-type", "x-request-id", "openai-request-id"}, set()),
])
def test_cors_preflight_per_route(server: LiveServer, path: str, must_have: set[str],
                                  must_not: set[str]) -> None:
    r = httpx.options(server.url + path, headers={
        "Origin": "http://localhost:3000", "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "x-custom"})
    assert r.status_code == 204
    allowed = {h.strip().lower() for h in r.headers["access-control-allow-headers"].split(",")}
    assert must_have <= allowed and not (must_not & allowed)
    assert r.headers["access-control-allow-origin"] == "*"


def test_cors_embeddings_reflects_requested_headers(server: LiveServer) -> None:
    r = httpx.options(server.url + "/v1/embeddings", headers={
        "Origin": "http://x", "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "x-stainless-os, content-type"})
    assert r.headers["access-control-allow-headers"] == "x-stainless-os, content-type"


def test_contract_and_docs_served(server: LiveServer) -> None:
    spec = httpx.get(server.url + "/openapi.json").json()
    assert spec["openapi"] == "3.0.3"
    assert "/v1/chat/completions" in spec["paths"]
    docs = httpx.get(server.url + "/docs/", follow_redirects=True)
    assert docs.status_code == 200 and "swagger-ui" in docs.text
    assert "cdn" not in docs.text.lower()
    asset = re.search(r'src="([^"]*swagger-ui-bundle\.js)"', docs.text)
    assert asset, docs.text[:500]
    js = httpx.get(server.url + "/docs/" + asset.group(1).lstrip("./"))
    assert js.status_code == 200 and len(js.content) > 100_000


def test_unavailable_platform_routes(server: LiveServer) -> None:
    # speech runs on every platform now: its 503 without models is in tests/test_speech.py
    r = httpx.post(server.url + "/v1/vision/ocr", json={"image": "aGVsbG8="})
    assert_envelope(r, 503, "vision_unavailable")
    r = httpx.post(server.url + "/v1/vision/ocr", json={"image": "%%%"})
    assert_envelope(r, 400, "invalid_request_error")
    r = httpx.post(server.url + "/v1/audio/speech", json={"voice": "x"})
    assert_envelope(r, 400, "invalid_request_error")
