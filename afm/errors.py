"""API errors and their envelopes: OpenAI's everywhere, Anthropic's on the Messages routes.

The error types and the OpenAI envelope are the serving layer's (:mod:`serving.errors`,
re-exported here); this module picks the envelope family by route.
"""

from __future__ import annotations

from typing import Any

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
           "envelope", "error_reply", "is_anthropic_route", "server_busy"]


ANTHROPIC_TYPES = {400: "invalid_request_error", 401: "authentication_error",
                   403: "permission_error", 404: "not_found_error", 413: "request_too_large",
                   429: "rate_limit_error", 500: "api_error", 529: "overloaded_error"}
"""Anthropic's error type per status (its published list); other statuses keep AFM's type."""


def is_anthropic_route(path: str) -> bool:
    """The Anthropic Messages API routes (`/v1/messages` and below)."""
    return path.rstrip("/") == "/v1/messages" or path.startswith("/v1/messages/")


def error_reply(path: str, status: int, message: str, type: str, *, code: str | None = None,
                param: str | None = None) -> tuple[int, dict[str, Any]]:
    """The status and body of an error answered on ``path``.

    Anthropic's routes get ``{"type": "error", "error": {"type", "message"}, "request_id"}``,
    with a busy server (``server_busy``) as 529 ``overloaded_error``, as Anthropic answers
    overload, and a server shutting down as 503 ``overloaded_error``; every other route gets
    the OpenAI envelope and the status unchanged."""
    if not is_anthropic_route(path):
        return status, envelope(message, type, code=code, param=param)
    kind = ANTHROPIC_TYPES.get(status, type)
    if type == "server_busy":
        kind = "overloaded_error"
        status = 503 if code == "shutting_down" else 529
    return status, {"type": "error", "error": {"type": kind, "message": message},
                    "request_id": current_request_id()}
