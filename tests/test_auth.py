"""API keys against real `afm serve` processes: 401 without or with a wrong key on every route
but `/health`, 200 with one, through the openai SDK, the anthropic SDK, the generated Python
client and plain HTTP; CORS preflights and the browser pages stay open."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from tests.conftest import ROOT, LiveServer
from tests.contract_support import load_spec

sys.path.insert(0, str(ROOT / "clients" / "python"))

from afm_client import AuthenticatedClient, Client  # noqa: E402
from afm_client.api.models import list_models  # noqa: E402
from afm_client.api.system import get_health  # noqa: E402
from afm_client.models import ErrorResponse, ModelList  # noqa: E402

KEYS = ("sk-first-key", "second key")
METHODS = ("get", "post", "delete")


@pytest.fixture(scope="module")
def keyed(live_server: Callable[..., LiveServer]) -> LiveServer:
    return live_server("--api-key", KEYS[0], "--api-key", KEYS[1])


def _operations() -> list[tuple[str, str]]:
    """(METHOD, concrete path) for every operation of the contract."""
    out = []
    for template, item in load_spec()["paths"].items():
        path = re.sub(r"\{\w+\}", "x", template)
        out += [(method.upper(), path) for method in METHODS if method in item]
    return out


def test_every_route_but_health_refuses_without_a_key(keyed: LiveServer) -> None:
    operations = _operations()
    assert len(operations) > 25
    for method, path in operations:
        for headers in ({}, {"Authorization": "Bearer wrong"}, {"x-api-key": "wrong"},
                        {"Authorization": f"Basic {KEYS[0]}"}):
            r = httpx.request(method, keyed.url + path, headers=headers, json={})
            if path == "/health":
                assert r.status_code == 200, (method, path, r.text)
                continue
            assert r.status_code == 401, (method, path, headers, r.status_code, r.text)
            assert r.headers["www-authenticate"] == "Bearer"
            body = r.json()
            if path.startswith("/v1/messages"):  # Anthropic's envelope on its routes
                assert body["type"] == "error"
                assert body["error"]["type"] == "authentication_error"
                assert body["request_id"] == r.headers["request-id"]
            else:
                assert body["error"]["type"] == "authentication_error"
                assert body["error"]["code"] == "invalid_api_key"
                assert body["error"]["request_id"] == r.headers["x-request-id"]


def test_either_key_in_either_header_is_accepted(keyed: LiveServer) -> None:
    for headers in ({"Authorization": f"Bearer {KEYS[0]}"}, {"authorization": f"bearer {KEYS[1]}"},
                    {"x-api-key": KEYS[0]}, {"X-Api-Key": KEYS[1]}):
        r = httpx.get(keyed.url + "/v1/models", headers=headers)
        assert r.status_code == 200, (headers, r.text)
    # clients that send a placeholder bearer token and the key in x-api-key are let in
    r = httpx.get(keyed.url + "/v1/models",
                  headers={"Authorization": "Bearer placeholder", "x-api-key": KEYS[0]})
    assert r.status_code == 200


def test_openai_sdk(keyed: LiveServer) -> None:
    import openai

    wrong = openai.OpenAI(base_url=keyed.url + "/v1", api_key="wrong", max_retries=0)
    with pytest.raises(openai.AuthenticationError) as info:
        wrong.chat.completions.create(model="x", max_tokens=4,
                                      messages=[{"role": "user", "content": "Hi"}])
    assert info.value.status_code == 401
    assert info.value.code == "invalid_api_key"
    assert info.value.request_id
    right = openai.OpenAI(base_url=keyed.url + "/v1", api_key=KEYS[1], max_retries=0)
    reply = right.chat.completions.create(model="x", max_tokens=4, seed=1,
                                          messages=[{"role": "user", "content": "Hi"}])
    assert reply.usage is not None and reply.usage.completion_tokens > 0
    assert [m.id for m in right.models.list()]


def test_anthropic_sdk(keyed: LiveServer) -> None:
    import anthropic

    wrong = anthropic.Anthropic(base_url=keyed.url, api_key="wrong", max_retries=0)
    with pytest.raises(anthropic.AuthenticationError) as info:
        wrong.messages.create(model="x", max_tokens=4,
                              messages=[{"role": "user", "content": "Hi"}])
    assert info.value.status_code == 401
    right = anthropic.Anthropic(base_url=keyed.url, api_key=KEYS[0], max_retries=0)
    reply = right.messages.create(model="x", max_tokens=4,
                                  messages=[{"role": "user", "content": "Hi"}])
    assert reply.usage.output_tokens > 0


def test_generated_client(keyed: LiveServer) -> None:
    with Client(base_url=keyed.url) as anonymous:
        refused = list_models.sync_detailed(client=anonymous)
        assert get_health.sync_detailed(client=anonymous).status_code == 200
    assert refused.status_code == 401
    assert isinstance(refused.parsed, ErrorResponse)
    assert refused.parsed.error.code == "invalid_api_key"
    with AuthenticatedClient(base_url=keyed.url, token=KEYS[0]) as client:
        listed = list_models.sync(client=client)
    assert isinstance(listed, ModelList) and listed.data


def test_browser_pages_and_preflight_need_no_key(keyed: LiveServer) -> None:
    for path in ("/", "/docs", "/openapi.json", "/health"):
        assert httpx.get(keyed.url + path).status_code == 200, path
    preflight = httpx.options(keyed.url + "/v1/chat/completions", headers={
        "Origin": "http://localhost:3000", "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization, content-type"})
    assert preflight.status_code == 204
    assert "Authorization" in preflight.headers["access-control-allow-headers"]
    # a 401 carries CORS headers, so a browser page can read it and ask for the key
    refused = httpx.get(keyed.url + "/v1/models", headers={"Origin": "http://localhost:3000"})
    assert refused.status_code == 401
    assert refused.headers["access-control-allow-origin"] == "*"


def test_key_from_environment(tmp_path: Path, tiny_model: Path,
                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AFM_API_KEY", "env-key-1,env-key-2")
    server = LiveServer(["--model", str(tiny_model)], tmp_path / "data", tmp_path / "log")
    server.start()
    try:
        assert httpx.get(server.url + "/v1/models").status_code == 401
        for key in ("env-key-1", "env-key-2"):
            ok = httpx.get(server.url + "/v1/models", headers={"Authorization": f"Bearer {key}"})
            assert ok.status_code == 200
    finally:
        server.stop()


def test_no_key_configured_accepts_any_authorization(server: LiveServer) -> None:
    r = httpx.get(server.url + "/v1/models", headers={"Authorization": "Bearer anything"})
    assert r.status_code == 200
