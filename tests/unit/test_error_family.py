"""The error family (OpenAI's or Anthropic's envelope) is decided once per request, from its
route (afm.errors.error_family), and every layer that answers an error reads that decision: the
correlation headers, the middleware refusals, the envelope itself. Pure ASGI, no server."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from afm.errors import FAMILY_KEY, error_family, error_reply, route_family
from afm.middleware import BodyLimitMiddleware, CorrelationMiddleware
from afm.settings import Settings


@pytest.mark.parametrize(("path", "family"), [
    ("/v1/messages", "anthropic"), ("/v1/messages/", "anthropic"),
    ("/v1/messages/count_tokens", "anthropic"), ("/v1/messagesx", "openai"),
    ("/v1/chat/completions", "openai"), ("/v1/responses", "openai"), ("/health", "openai"),
])
def test_route_family(path: str, family: str) -> None:
    assert route_family(path) == family


def test_decided_once_and_recorded_in_the_scope() -> None:
    scope: dict[str, Any] = {"type": "http", "path": "/v1/messages"}
    assert error_family(scope) == "anthropic"
    assert scope["state"][FAMILY_KEY] == "anthropic"
    scope["path"] = "/docs/"  # a later layer rewriting the path does not change the decision
    assert error_family(scope) == "anthropic"


def test_envelopes() -> None:
    status, body = error_reply("openai", 400, "bad", "invalid_request_error", param="x")
    assert status == 400 and body["error"]["param"] == "x" and body["error"]["type"] == (
        "invalid_request_error")
    status, body = error_reply("anthropic", 404, "gone", "not_found_error")
    assert status == 404 and body["type"] == "error"
    assert body["error"] == {"type": "not_found_error", "message": "gone"}
    assert error_reply("anthropic", 503, "busy", "server_busy", code="server_busy")[0] == 529
    assert error_reply("anthropic", 503, "stop", "server_busy", code="shutting_down")[0] == 503


async def _post(app: Any, path: str, body: bytes) -> tuple[int, dict[str, str], dict[str, Any]]:
    sent: list[dict[str, Any]] = []
    chunks = [{"type": "http.request", "body": body, "more_body": False}]

    async def receive() -> dict[str, Any]:
        return chunks.pop(0) if chunks else {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {"type": "http", "method": "POST", "path": path, "headers": []}
    await app(scope, receive, send)
    headers = {k.decode(): v.decode() for k, v in sent[0]["headers"]}
    return sent[0]["status"], headers, json.loads(sent[1]["body"])


@pytest.mark.parametrize("path", ["/v1/messages", "/v1/chat/completions"])
def test_a_middleware_refusal_uses_the_request_family(path: str) -> None:
    async def never(scope: Any, receive: Any, send: Any) -> None:
        raise AssertionError("the body limit refuses first")

    app = CorrelationMiddleware(BodyLimitMiddleware(never, Settings(max_body_bytes=8)))
    status, headers, body = asyncio.run(_post(app, path, b"x" * 64))
    assert status == 413
    if path == "/v1/messages":
        assert body["type"] == "error" and body["error"]["type"] == "request_too_large"
        assert body["request_id"] == headers["request-id"] == headers["x-request-id"]
    else:
        assert body["error"]["code"] == "payload_too_large"
        assert body["error"]["request_id"] == headers["x-request-id"]
        assert "request-id" not in headers
