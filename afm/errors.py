"""API errors and their envelopes: OpenAI's everywhere, Anthropic's on the Messages routes.

The error types and the OpenAI envelope are the serving layer's (:mod:`serving.errors`,
re-exported here); this module picks the envelope family, once per request, from its route
(:func:`error_family`).
"""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import Any, Literal

from serving.context import current_request_id
from serving.errors import (
    GROUP_FAILED_RETRY_AFTER,
    SHUTDOWN_RETRY_AFTER,
    SHUTTING_DOWN_MESSAGE,
    ApiError,
    InvalidRequest,
    NotFound,
    NotImplementedYet,
    PayloadTooLarge,
    ServiceUnavailable,
    ShuttingDown,
    TokenizeUnsupported,
    backend_unavailable,
    envelope,
    server_busy,
)

__all__ = ["GROUP_FAILED_RETRY_AFTER", "SHUTDOWN_RETRY_AFTER", "SHUTTING_DOWN_MESSAGE",
           "ApiError", "InvalidRequest", "NotFound", "NotImplementedYet", "PayloadTooLarge",
           "ServiceUnavailable", "ShuttingDown", "TokenizeUnsupported", "backend_unavailable",
           "ErrorFamily", "envelope", "error_family", "error_reply", "route_family", "server_busy"]


ANTHROPIC_TYPES = {400: "invalid_request_error", 401: "authentication_error",
                   403: "permission_error", 404: "not_found_error", 413: "request_too_large",
                   429: "rate_limit_error", 500: "api_error", 529: "overloaded_error"}
"""Anthropic's error type per status (its published list); other statuses keep AFM's type."""


ErrorFamily = Literal["openai", "anthropic"]
"""Whose error envelope (and correlation headers) a request gets."""

FAMILY_KEY = "afm_error_family"
"""Where :func:`error_family` records a request's family in its ASGI scope state."""


def route_family(path: str) -> ErrorFamily:
    """The family of a route: Anthropic's on the Messages API (`/v1/messages` and below),
    OpenAI's everywhere else. The one place the choice is made."""
    if path.rstrip("/") == "/v1/messages" or path.startswith("/v1/messages/"):
        return "anthropic"
    return "openai"


def error_family(scope: MutableMapping[str, Any]) -> ErrorFamily:
    """The family of the request ``scope`` belongs to, decided once per request: the first
    call (the outermost middleware's) takes it from the route and records it in the scope's
    state, where every later layer (middleware refusals, the app's error handlers) reads it."""
    state = scope.setdefault("state", {})
    family: ErrorFamily | None = state.get(FAMILY_KEY)
    if family is None:
        family = state[FAMILY_KEY] = route_family(scope["path"])
    return family


def error_reply(family: ErrorFamily, status: int, message: str, type: str, *,
                code: str | None = None, param: str | None = None) -> tuple[int, dict[str, Any]]:
    """The status and body of an error in ``family``'s envelope (see :func:`error_family`).

    Anthropic's family gets ``{"type": "error", "error": {"type", "message"}, "request_id"}``,
    with a busy server (``server_busy``) as 529 ``overloaded_error``, as Anthropic answers
    overload, and a server shutting down as 503 ``overloaded_error``; every other route gets
    the OpenAI envelope and the status unchanged."""
    if family != "anthropic":
        return status, envelope(message, type, code=code, param=param)
    kind = ANTHROPIC_TYPES.get(status, type)
    if type == "server_busy":
        kind = "overloaded_error"
        status = 503 if code == "shutting_down" else 529
    return status, {"type": "error", "error": {"type": kind, "message": message},
                    "request_id": current_request_id()}
