"""Per-request context: the correlation id, readable anywhere below the middleware."""

from __future__ import annotations

import uuid
from contextvars import ContextVar

request_id_var: ContextVar[str | None] = ContextVar("afm_request_id", default=None)


def new_request_id() -> str:
    """Mint `req_` + 12 lowercase characters of a UUID."""
    return "req_" + uuid.uuid4().hex[:12]


def current_request_id() -> str | None:
    return request_id_var.get()
