"""API keys (`--api-key`, repeatable, or `AFM_API_KEY`): when any is set, every API route but
`/health` needs `Authorization: Bearer <key>` or `x-api-key: <key>` (what Anthropic clients
send); anything else is 401 in the route's error envelope.

Open without a key: `/health` (for load balancers and supervisors), and the browser pages that
hold no data and are needed to enter a key: the chat page (`/`, `/webui/*`), the API reference
(`/docs`) and the contract (`/openapi.json`). CORS preflights are answered before this layer.
"""

from __future__ import annotations

import hmac
import os

from afm.errors import error_family, error_reply
from afm.middleware import ASGIApp, Receive, Scope, Send, send_json

ENV_VAR = "AFM_API_KEY"
OPEN_PATHS = frozenset({"/health", "/docs", "/openapi.json", "/"})
OPEN_PREFIXES = ("/docs/", "/webui/")


def keys_from_env(flags: list[str]) -> list[str]:
    """The keys in force: the flags' (repeatable `--api-key`), else `AFM_API_KEY`'s (commas
    separate several)."""
    keys = [key for key in flags if key]
    if not keys:
        keys = [part.strip() for part in os.environ.get(ENV_VAR, "").split(",") if part.strip()]
    return keys


def is_open(path: str) -> bool:
    """Routes served without a key."""
    return path in OPEN_PATHS or path.rstrip("/") == "/health" or path.startswith(OPEN_PREFIXES)


def presented_keys(scope: Scope) -> list[str]:
    """The keys a request presents: its bearer token and its `x-api-key` (either may match:
    some clients send a placeholder in one header and the key in the other)."""
    keys = []
    for name, value in scope.get("headers", []):
        name = name.lower()
        if name == b"authorization":
            scheme, _, token = value.decode("latin-1").strip().partition(" ")
            if scheme.lower() == "bearer" and token.strip():
                keys.append(token.strip())
        elif name == b"x-api-key" and value.strip():
            keys.append(value.decode("latin-1").strip())
    return keys


def key_matches(presented: str, keys: list[bytes]) -> bool:
    """Constant-time comparison against every configured key (no early exit)."""
    candidate = presented.encode("utf-8", "surrogateescape")
    matched = False
    for key in keys:
        matched |= hmac.compare_digest(candidate, key)
    return matched


class ApiKeyMiddleware:
    """Refuse requests without a valid key with 401 (`invalid_api_key`), in the envelope of the
    route (Anthropic's on `/v1/messages*`) and with `WWW-Authenticate: Bearer`."""

    def __init__(self, app: ASGIApp, keys: list[str]) -> None:
        self.app = app
        self.keys = [key.encode("utf-8", "surrogateescape") for key in keys]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or is_open(scope["path"]):
            await self.app(scope, receive, send)
            return
        presented = presented_keys(scope)
        if any([key_matches(key, self.keys) for key in presented]):
            await self.app(scope, receive, send)
            return
        message = ("Incorrect API key provided" if presented else
                   "Missing API key: send 'Authorization: Bearer <key>' or 'x-api-key: <key>'")
        status, body = error_reply(error_family(scope), 401, message, "authentication_error",
                                   code="invalid_api_key")
        await send_json(send, status, body, [(b"www-authenticate", b"Bearer")])
