"""API errors and the OpenAI-shaped error envelope.

Hierarchy::

    ApiError                      any failure a client sees, with status, type and code
    ├── InvalidRequest            400 invalid_request_error
    ├── NotFound                  404 not_found_error
    ├── PayloadTooLarge           413 payload_too_large
    ├── TokenizeUnsupported       422 tokenize_unsupported
    ├── NotImplementedYet         501 not_implemented
    └── ServiceUnavailable        503 server_busy / *_unavailable / embedding_error
"""

from __future__ import annotations

from typing import Any

from afm.context import current_request_id


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
