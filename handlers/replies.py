"""HTTP replies shared by handlers: JSON bodies, SSE streams, and work that stops when the
client disconnects."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Awaitable
from typing import Any, TypeVar

from pydantic import BaseModel
from starlette.responses import JSONResponse, StreamingResponse

from afm.context import current_request_id, new_request_id

T = TypeVar("T")
log = logging.getLogger("afm.http")

SSE_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


def request_id() -> str:
    """The current request's correlation id (set by the middleware)."""
    return current_request_id() or new_request_id()


def dump(model: BaseModel) -> dict[str, Any]:
    """Serialise a generated model under its wire names: fields that were set, including
    explicit nulls."""
    return model.model_dump(mode="json", by_alias=True, exclude_unset=True)


def json_response(model: BaseModel | dict[str, Any], status: int = 200,
                  headers: dict[str, str] | None = None) -> JSONResponse:
    """A JSON response with an explicit content type (operations that also stream SSE
    declare two content types, so Connexion cannot pick one for a plain dict)."""
    body = dump(model) if isinstance(model, BaseModel) else model
    return JSONResponse(body, status_code=status, headers=headers,
                        media_type="application/json")


def sse_line(data: dict[str, Any] | str, event: str | None = None) -> bytes:
    """One SSE event: ``data: <json>`` (after ``event: <name>`` when named) and a blank line."""
    payload = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {payload}\n\n".encode()


def sse_response(events: AsyncIterator[dict[str, Any]],
                 headers: dict[str, str] | None = None, named: bool = False) -> StreamingResponse:
    """An OpenAI-style SSE stream: each event as ``data:`` JSON, then ``data: [DONE]``;
    ``named`` events also carry ``event: <their type>`` (the Responses API's framing)."""

    async def body() -> AsyncIterator[bytes]:
        try:
            async for event in events:
                yield sse_line(event, event.get("type") if named else None)
            yield sse_line("[DONE]")
        finally:
            await events.aclose()  # type: ignore[attr-defined]

    return StreamingResponse(body(), media_type="text/event-stream",
                             headers={**SSE_HEADERS, **(headers or {})})


def named_sse_response(events: AsyncIterator[dict[str, Any]],
                       headers: dict[str, str] | None = None) -> StreamingResponse:
    """An Anthropic-style SSE stream: each event as ``event: <its type>`` and ``data:`` JSON;
    the stream simply ends (no ``[DONE]``)."""

    async def body() -> AsyncIterator[bytes]:
        try:
            async for event in events:
                yield f"event: {event['type']}\n".encode() + sse_line(event)
        finally:
            await events.aclose()  # type: ignore[attr-defined]

    return StreamingResponse(body(), media_type="text/event-stream",
                             headers={**SSE_HEADERS, **(headers or {})})


async def until_disconnect(work: Awaitable[T]) -> T:
    """Await ``work`` unless the client disconnects first; then cancel it (which closes the
    engine stream and frees its slot) and re-raise CancelledError."""
    from connexion import request

    task = asyncio.ensure_future(work)
    starlette_request = request._starlette_request  # noqa: SLF001 - no public accessor

    async def watch() -> None:
        while not task.done():
            if await starlette_request.is_disconnected():
                task.cancel()
                return
            await asyncio.sleep(0.05)

    watcher = asyncio.ensure_future(watch())
    try:
        return await task
    finally:
        watcher.cancel()
