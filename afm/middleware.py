"""Pure ASGI middleware, outermost first: correlation ids, CORS, the stop drain, body limits,
the `/docs` page.

They sit outside Connexion so that every response, including the ones Connexion or
uvicorn produce for malformed requests, carries the correlation headers.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from afm.context import lease_scope, new_request_id, request_id_var
from afm.errors import SHUTDOWN_RETRY_AFTER, ShuttingDown, error_family, error_reply
from afm.settings import Settings

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

CORRELATION_HEADERS = (b"x-request-id", b"openai-request-id")
ANTHROPIC_CORRELATION = (*CORRELATION_HEADERS, b"request-id")
"""Anthropic's routes also carry the id as `request-id`, where the anthropic SDKs read it."""


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key.lower() == name:
            return value.decode("latin-1")
    return None


async def send_json(send: Send, status: int, body: dict[str, Any],
                    headers: list[tuple[bytes, bytes]] | None = None) -> None:
    raw = json.dumps(body).encode()
    await send({
        "type": "http.response.start",
        "status": status,
        "headers": [(b"content-type", b"application/json"),
                    (b"content-length", str(len(raw)).encode()), *(headers or [])],
    })
    await send({"type": "http.response.body", "body": raw})


class CorrelationMiddleware:
    """Honour the first non-empty X-Request-ID / OpenAI-Request-ID, else mint one; put both
    headers on every response and expose the id to handlers through a context variable."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = None
        for name in CORRELATION_HEADERS:
            value = _header(scope, name)
            if value and value.strip():
                request_id = value.strip()
                break
        request_id = request_id or new_request_id()
        scope.setdefault("state", {})["request_id"] = request_id
        encoded = request_id.encode("latin-1", "replace")

        anthropic = error_family(scope) == "anthropic"  # decided here, once per request
        names = ANTHROPIC_CORRELATION if anthropic else CORRELATION_HEADERS

        async def send_with_ids(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", [])
                           if k.lower() not in names]
                headers += [(name, encoded) for name in names]
                message["headers"] = headers
            await send(message)

        token = request_id_var.set(request_id)
        try:
            with lease_scope():  # the request holds its model until its body is sent
                await self.app(scope, receive, send_with_ids)
        finally:
            request_id_var.reset(token)


CHAT_HEADERS = "Content-Type, Authorization, X-AFM-Profile"
ANTHROPIC_HEADERS = ("Content-Type, X-API-Key, Authorization, Anthropic-Version, Anthropic-Beta, "
                     "Anthropic-Dangerous-Direct-Browser-Access")
CORRELATION = "X-Request-ID, OpenAI-Request-ID"
EXPOSED = (
    "X-Request-ID, OpenAI-Request-ID, X-Grammar-Constraints, X-Embedding-Truncated, Retry-After, "
    "Request-ID"
)
TOKEN_PATHS = ("/v1/tokenize", "/v1/detokenize", "/v1/count_tokens")


def allowed_headers(scope: Scope, requested: str | None) -> str:
    """The preflight header allow-list of a route, as the errors document describes."""
    path = scope["path"]
    if path.startswith("/v1/embeddings"):
        return requested or "Content-Type, Authorization"
    if error_family(scope) == "anthropic":  # plus what the preflight asks (SDKs: x-stainless-*)
        return f"{ANTHROPIC_HEADERS}, {CORRELATION}" + (f", {requested}" if requested else "")
    if path.startswith("/v1/chat/completions/") and path.endswith("/cancel"):
        return f"{CHAT_HEADERS}, {CORRELATION}"
    if path.startswith(TOKEN_PATHS):
        return f"{CHAT_HEADERS}, {CORRELATION}"
    if path.startswith("/v1/chat/completions"):
        return CHAT_HEADERS
    return f"Content-Type, Authorization, {CORRELATION}"


class CorsMiddleware:
    """Cross-origin access for local browser clients, with per-route preflight headers."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        origin = _header(scope, b"origin")
        if (scope["method"] == "OPTIONS" and origin
                and _header(scope, b"access-control-request-method")):
            headers = [
                (b"access-control-allow-origin", b"*"),
                (b"access-control-allow-methods", b"GET, POST, DELETE, OPTIONS"),
                (b"access-control-allow-headers", allowed_headers(
                    scope, _header(scope, b"access-control-request-headers")).encode()),
                (b"access-control-max-age", b"600"),
                (b"content-length", b"0"),
            ]
            await send({"type": "http.response.start", "status": 204, "headers": headers})
            await send({"type": "http.response.body", "body": b""})
            return
        if not origin:
            await self.app(scope, receive, send)
            return

        async def send_with_cors(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []),
                                      (b"access-control-allow-origin", b"*"),
                                      (b"access-control-expose-headers", EXPOSED.encode())]
            await send(message)

        await self.app(scope, receive, send_with_cors)


UNCOUNTED_PATHS = ("/health", "/metrics")
"""Requests a draining server does not wait for (probes)."""


class DrainMiddleware:
    """While the server drains to stop (:mod:`afm.drain`): every POST but the cancel
    operations gets 503 ``shutting_down`` with Retry-After, in the route's envelope; reads
    still answer. Always: count the requests in flight, which the drain waits for."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        state = scope.get("state", {}).get("afm") if scope["type"] == "http" else None
        drain = getattr(state, "drain", None)
        if drain is None:
            await self.app(scope, receive, send)
            return
        path = scope["path"]
        if drain.active and scope["method"] == "POST" and not path.rstrip("/").endswith(
                "/cancel"):
            refusal = ShuttingDown()
            status, body = error_reply(error_family(scope), refusal.status, refusal.message,
                                       refusal.type, code=refusal.code)
            await send_json(send, status, body,
                            [(b"retry-after", SHUTDOWN_RETRY_AFTER.encode())])
            return
        counted = path not in UNCOUNTED_PATHS
        drain.in_flight += counted
        try:
            await self.app(scope, receive, send)
        finally:
            drain.in_flight -= counted


def body_limit_for(settings: Settings, method: str, path: str) -> int:
    """Body limit of a route, in bytes (surface.md's per-route limits, configurable)."""
    if path.startswith("/v1/embeddings"):
        return settings.max_embeddings_body_bytes
    if path.startswith(TOKEN_PATHS):
        return settings.max_tokenize_body_bytes
    if path.startswith("/v1/vision"):
        return settings.max_vision_body_bytes
    if path.startswith("/v1/audio"):
        return settings.max_audio_body_bytes
    if path.rstrip("/") == "/v1/files" and method == "POST":
        return settings.max_file_bytes + 64 * 1024  # room for multipart framing
    return settings.max_body_bytes


class BodyLimitMiddleware:
    """Read the request body up front, refusing it with 413 once it passes the route's limit
    (declared Content-Length or bytes actually received), then replay it downstream."""

    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        self.app = app
        self.settings = settings

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in ("GET", "HEAD", "OPTIONS"):
            await self.app(scope, receive, send)
            return
        limit = body_limit_for(self.settings, scope["method"], scope["path"])
        declared = _header(scope, b"content-length")
        if declared and declared.isdigit() and int(declared) > limit:
            await self._too_large(send, scope, limit)
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                await self._too_large(send, scope, limit)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    @staticmethod
    async def _too_large(send: Send, scope: Scope, limit: int) -> None:
        status, body = error_reply(error_family(scope), 413,
                                   f"Request body exceeds this route's limit of {limit} bytes",
                                   "payload_too_large", code="payload_too_large")
        await send_json(send, status, body)


class DocsIndexMiddleware:
    """Answer `GET /docs` with the API reference page itself (Connexion serves Swagger UI at
    `/docs/` and would answer `/docs` with an empty redirect), with `<base href="/docs/">` so
    the page's relative asset links resolve."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (scope["type"] != "http" or scope["path"] != "/docs"
                or scope["method"] not in ("GET", "HEAD")):
            await self.app(scope, receive, send)
            return
        start: Message = {}
        chunks: list[bytes] = []

        async def capture(message: Message) -> None:
            nonlocal start
            if message["type"] == "http.response.start":
                start = message
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))

        await self.app({**scope, "method": "GET", "path": "/docs/", "raw_path": b"/docs/"},
                       receive, capture)
        body = b"".join(chunks)
        if start.get("status") == 200:
            body = body.replace(b"<head>", b'<head>\n    <base href="/docs/">', 1)
        headers = [(k, v) for k, v in start.get("headers", []) if k.lower() != b"content-length"]
        await send({**start, "headers": [*headers, (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body",
                    "body": b"" if scope["method"] == "HEAD" else body})
