"""The serving layer's errors: what a client sees when a request fails, with its documented
status, type and code, and the OpenAI envelope of its body. The app answers them (afm.app), in
Anthropic's envelope on the Messages routes (afm.errors.error_reply).

Hierarchy::

    ApiError                      any failure a client sees, with status, type and code
    ├── InvalidRequest            400 invalid_request_error
    ├── NotFound                  404 not_found_error
    ├── PayloadTooLarge           413 payload_too_large
    ├── TokenizeUnsupported       422 tokenize_unsupported
    ├── NotImplementedYet         501 not_implemented
    └── ServiceUnavailable        503 server_busy / *_unavailable / embedding_error
        └── ShuttingDown          503 server_busy, code shutting_down (draining to stop)
"""

from __future__ import annotations

from typing import Any

from serving.context import current_request_id


class ApiError(Exception):
    """An error with a documented status and envelope."""

    status: int = 500
    type: str = "internal_error"

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        type: str | None = None,
        code: str | None = None,
        param: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        if status is not None:
            self.status = status
        if type is not None:
            self.type = type
        self.code = code
        self.param = param
        self.headers = headers or {}

    def body(self) -> dict[str, Any]:
        return envelope(self.message, self.type, code=self.code, param=self.param)


class InvalidRequest(ApiError):
    status = 400
    type = "invalid_request_error"


class NotFound(ApiError):
    status = 404
    type = "not_found_error"


class PayloadTooLarge(ApiError):
    status = 413
    type = "payload_too_large"

    def __init__(self, message: str, **kw: Any) -> None:
        kw.setdefault("code", "payload_too_large")
        super().__init__(message, **kw)


class TokenizeUnsupported(ApiError):
    status = 422
    type = "tokenize_unsupported"

    def __init__(self, message: str, **kw: Any) -> None:
        kw.setdefault("code", "tokenize_unsupported")
        super().__init__(message, **kw)


class NotImplementedYet(ApiError):
    status = 501
    type = "not_implemented"


class ServiceUnavailable(ApiError):
    status = 503
    type = "service_unavailable"


def server_busy(timeout: float) -> ServiceUnavailable:
    return ServiceUnavailable(
        f"No generation slot became free within {timeout:g} s; retry later",
        type="server_busy",
        code="server_busy",
        headers={"Retry-After": "2"},
    )


SHUTDOWN_RETRY_AFTER = "5"
"""Retry-After (seconds) on requests refused while the server drains to stop: by then another
instance (behind a load balancer) or the restarted server can take the request."""

SHUTTING_DOWN_MESSAGE = ("The server is shutting down and accepts no new requests; retry "
                         "against another instance or once it has restarted")


class ShuttingDown(ServiceUnavailable):
    """503 while the server drains to stop (SIGTERM / Ctrl-C): it admits no new or queued
    requests. ``server_busy``-style (retry elsewhere or later), told apart by its code."""

    def __init__(self, message: str = SHUTTING_DOWN_MESSAGE) -> None:
        super().__init__(message, type="server_busy", code="shutting_down",
                         headers={"Retry-After": SHUTDOWN_RETRY_AFTER})


GROUP_FAILED_RETRY_AFTER = "10"
"""Retry-After (seconds) once a sharded server's group failed: rank 0 exits within seconds and
every rank must be restarted (by mlx.launch or a supervisor) before a retry can succeed."""


def backend_unavailable(message: str, *, group_failed: bool = False) -> ServiceUnavailable:
    """503 ``backend_unavailable``; with ``Retry-After`` when a sharded group failed."""
    return ServiceUnavailable(message, type="backend_unavailable", code="backend_unavailable",
                              headers={"Retry-After": GROUP_FAILED_RETRY_AFTER}
                              if group_failed else None)


def envelope(
    message: str, type: str, *, code: str | None = None, param: str | None = None
) -> dict[str, Any]:
    """The error body: ``{"error": {"message", "type", "code", "param", "request_id"}}``."""
    return {
        "error": {
            "message": message,
            "type": type,
            "code": code,
            "param": param,
            "request_id": current_request_id(),
        }
    }
