"""Per-request context: the correlation id, readable anywhere below the middleware, and the
lease scope that ends a request's hold on its model."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

request_id_var: ContextVar[str | None] = ContextVar("afm_request_id", default=None)


def new_request_id() -> str:
    """Mint `req_` + 12 lowercase characters of a UUID."""
    return "req_" + uuid.uuid4().hex[:12]


def current_request_id() -> str | None:
    return request_id_var.get()


_scope_ends: ContextVar[list[Callable[[], None]] | None] = ContextVar("afm_scope_ends",
                                                                     default=None)


@contextmanager
def lease_scope() -> Iterator[None]:
    """A unit of work (an HTTP request with its streamed body, a batch line, a background
    response): what :func:`on_scope_end` registers inside it runs when it ends."""
    ends: list[Callable[[], None]] = []
    token = _scope_ends.set(ends)
    try:
        yield
    finally:
        _scope_ends.reset(token)
        for end in reversed(ends):
            end()


def on_scope_end(end: Callable[[], None]) -> None:
    """Run ``end`` when the current lease scope ends (at once when there is none)."""
    ends = _scope_ends.get()
    if ends is None:
        end()
    else:
        ends.append(end)
