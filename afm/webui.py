"""The browser chat page: `GET /` and its assets under `/webui/`, from files the package carries
(`afm/static/webui/`, read through importlib.resources so a non-editable install serves them).

The page is not part of the API contract (`openapi/afm.yaml` describes the HTTP API; this is an
HTML client of that API), so it is served by a small ASGI layer in front of Connexion rather
than by an operation. Paths it does not own pass through untouched, so the contract's 404/405
envelopes and the CORS and correlation middleware (which wrap this layer) behave as before;
the paths it owns answer with the same envelopes for an unknown asset or a wrong method.
"""

from __future__ import annotations

import functools
import hashlib
from importlib import resources

from afm.errors import envelope
from afm.middleware import ASGIApp, Receive, Scope, Send, send_json

ASSET_PREFIX = "/webui/"
CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".json": "application/json",
}
# Only this origin: no inline script or style, no plugins, no framing, no other hosts.
CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
       "form-action 'self'; frame-ancestors 'none'")
SECURITY_HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"cache-control", b"no-cache"),
]


@functools.cache
def load_assets() -> dict[str, tuple[bytes, str]]:
    """`/` and `/webui/<name>` -> (body, content type), read once from the package."""
    root = resources.files("afm") / "static" / "webui"
    assets: dict[str, tuple[bytes, str]] = {}
    for entry in root.iterdir():
        suffix = "." + entry.name.rsplit(".", 1)[-1] if "." in entry.name else ""
        if entry.is_file() and suffix in CONTENT_TYPES:
            assets[ASSET_PREFIX + entry.name] = (entry.read_bytes(), CONTENT_TYPES[suffix])
    assets["/"] = assets[ASSET_PREFIX + "index.html"]
    return assets


def owns(path: str) -> bool:
    return path == "/" or path.startswith(ASSET_PREFIX)


class WebUiMiddleware:
    """Answer `GET|HEAD /` and `/webui/*` with the page's files; pass everything else on."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.assets = load_assets()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not owns(scope["path"]):
            await self.app(scope, receive, send)
            return
        path, method = scope["path"], scope["method"]
        asset = self.assets.get(path)
        if asset is None:
            await send_json(send, 404, envelope(f"No route for {method} {path}",
                                                "not_found_error"))
            return
        if method not in ("GET", "HEAD"):
            await send_json(send, 405, envelope(f"Method {method} is not allowed on {path}",
                                                "method_not_allowed"),
                            [(b"allow", b"GET, HEAD")])
            return
        body, content_type = asset
        etag = f'"{hashlib.sha256(body).hexdigest()[:16]}"'.encode()
        headers = [(b"content-type", content_type.encode()), (b"etag", etag),
                   *SECURITY_HEADERS]
        if_none_match = dict(scope.get("headers", [])).get(b"if-none-match")
        if if_none_match == etag:
            await send({"type": "http.response.start", "status": 304, "headers": headers})
            await send({"type": "http.response.body", "body": b""})
            return
        headers.append((b"content-length", str(len(body)).encode()))
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": b"" if method == "HEAD" else body})
