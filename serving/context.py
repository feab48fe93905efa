"""Per-request context, readable anywhere below the middleware: the correlation id, the
record the access log reports (model, tokens in/out, warnings), and the lease scope that ends a
request's hold on its model. The app's middleware sets it (afm.middleware, afm.logs); serving
reads and adds to it."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

request_id_var: ContextVar[str | None] = ContextVar("afm_request_id", default=None)


def new_request_id() -> str:
    """Mint `req_` + 12 lowercase characters of a UUID."""
    return "req_" + uuid.uuid4().hex[:12]


def current_request_id() -> str | None:
    return request_id_var.get()


@dataclass
class RequestRecord:
    """What the access log reports about a request beyond HTTP: the model that served it and
    its tokens in/out, filled by the serving layer once a generation's usage is known."""

    model: str | None = None
    tokens_in: int | None = None
    tokens_out: int | None = None
    warnings: list[str] | None = None


request_record_var: ContextVar[RequestRecord | None] = ContextVar("afm_request_record",
                                                                  default=None)


def note_usage(model: str | None = None, tokens_in: int | None = None,
               tokens_out: int | None = None) -> None:
    """Add to the current request's record (no-op outside a request, e.g. in batch lines).

    Token counts add up, so a request running several generations (``n`` > 1) reports them all.
    """
    record = request_record_var.get()
    if record is None:
        return
    if model is not None:
        record.model = model
    if tokens_in is not None:
        record.tokens_in = (record.tokens_in or 0) + tokens_in
    if tokens_out is not None:
        record.tokens_out = (record.tokens_out or 0) + tokens_out


def note_warnings(warnings: list[str]) -> None:
    """Add what the server left out of the current request (the access log reports it)."""
    record = request_record_var.get()
    if record is None or not warnings:
        return
    record.warnings = [*(record.warnings or []), *warnings]


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
