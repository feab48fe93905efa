"""Logging: every line as text or as one JSON object (`--log-format`), and the access log, one
line per request once its response has ended (streams included): method, path, status,
duration, request id, model and tokens in/out where a generation or embedding ran, and what the
server left out of the request (the `X-AFM-Warnings` text) where it left something out."""

from __future__ import annotations

import json
import logging
import sys
import time
from typing import Any

from afm.context import RequestRecord, request_record_var
from afm.middleware import ASGIApp, Message, Receive, Scope, Send

access_log = logging.getLogger("afm.access")

TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, plus the access fields."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": self.formatTime(record, "%Y-%m-%dT%H:%M:%S") + f".{int(record.msecs):03d}",
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        entry.update(getattr(record, "access", None) or {})
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False)


def configure_logging(level: str, fmt: str = "text") -> None:
    """Send every logger (ours and uvicorn's) to stderr in the chosen format."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter() if fmt == "json" else logging.Formatter(TEXT_FORMAT))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level.upper())


def access_fields(scope: Scope, status: int, started: float,
                  record: RequestRecord) -> dict[str, Any]:
    """The access line's fields, in order."""
    return {
        "method": scope["method"],
        "path": scope["path"],
        "status": status,
        "duration_ms": round((time.perf_counter() - started) * 1000, 1),
        "request_id": scope.get("state", {}).get("request_id"),
        "model": record.model,
        "tokens_in": record.tokens_in,
        "tokens_out": record.tokens_out,
        "warnings": "; ".join(record.warnings) if record.warnings else None,
    }


def access_text(fields: dict[str, Any]) -> str:
    """`GET /v1/models 200 1.2ms req_... [model=... in=12 out=34]`."""
    text = (f"{fields['method']} {fields['path']} {fields['status']} "
            f"{fields['duration_ms']}ms {fields['request_id']}")
    if fields["model"] is not None:
        text += f" model={fields['model']}"
    if fields["tokens_in"] is not None:
        text += f" in={fields['tokens_in']}"
    if fields["tokens_out"] is not None:
        text += f" out={fields['tokens_out']}"
    if fields["warnings"] is not None:
        text += f" warnings={json.dumps(fields['warnings'])}"
    return text


class AccessLogMiddleware:
    """Log one line per HTTP request when the app has finished answering it (for a stream,
    when the stream ends or the client goes away). Sits inside the correlation middleware,
    whose request id it reports."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not access_log.isEnabledFor(logging.INFO):
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        record = RequestRecord()
        status = 500  # what the client sees when the app fails before answering

        async def send_status(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        token = request_record_var.set(record)
        try:
            await self.app(scope, receive, send_status)
        finally:
            request_record_var.reset(token)
            fields = access_fields(scope, status, started, record)
            access_log.info("%s", access_text(fields), extra={"access": fields})
