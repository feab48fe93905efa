"""Validation of a Batch API input file (JSONL), line by line.

Each non-blank line must be a JSON object ``{"custom_id": str, "method": "POST", "url":
<endpoint>, "body": {...}}`` with a ``custom_id`` unique in the file, and a body that the injected
``validate_body(endpoint, body)`` accepts (it returns error messages, empty when valid; the caller
checks against the OpenAPI contract). Batches cannot stream, so ``body.stream`` must not be true.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from afm.contract import load_spec

if TYPE_CHECKING:
    from connexion.json_schema import Draft4RequestValidator

ValidateBody = Callable[[str, dict[str, Any]], list[str]]

MAX_REQUESTS = 50_000
"""Most requests one batch may hold (OpenAI's limit)."""
MAX_ERRORS = 100
"""Errors reported per file; validation stops counting after this many."""
BODY_SCHEMAS = {
    "/v1/chat/completions": "ChatCompletionRequest",
    "/v1/completions": "CompletionRequest",
    "/v1/embeddings": "EmbeddingRequest",
    "/v1/responses": "CreateResponseRequest",
}
"""Endpoints a batch may target -> the contract schema of their request bodies."""


@functools.cache
def _validator(endpoint: str) -> Draft4RequestValidator:
    from connexion.json_schema import Draft4RequestValidator, resolve_refs

    spec = resolve_refs(load_spec())
    return Draft4RequestValidator(spec["components"]["schemas"][BODY_SCHEMAS[endpoint]])


def contract_violations(endpoint: str, body: dict[str, Any]) -> list[str]:
    """A :data:`ValidateBody` checking a line's body against the contract. Thread-safe."""
    if endpoint not in BODY_SCHEMAS:
        return [f"endpoint {endpoint} is not supported for batches"]
    from afm.validation import telling

    errors = sorted((t for e in _validator(endpoint).iter_errors(body) if (t := telling([e]))),
                    key=lambda e: list(map(str, e.absolute_path)))
    return [f"{'.'.join(map(str, e.absolute_path)) or 'body'}: {e.message}" for e in errors[:5]]


def _error(code: str, message: str, line: int | None, param: str | None) -> dict[str, Any]:
    return {"code": code, "message": message, "param": param, "line": line}


def _check_line(number: int, raw: bytes, endpoint: str, seen: set[str],
                validate_body: ValidateBody) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    """Validate one line; returns ``(request or None, errors)``."""
    try:
        obj = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        return None, [_error("invalid_json_line", f"Line {number} is not valid JSON: {exc}",
                             number, None)]
    if not isinstance(obj, dict):
        return None, [_error("invalid_json_line", f"Line {number} is not a JSON object.",
                             number, None)]
    errors: list[dict[str, Any]] = []
    custom_id = obj.get("custom_id")
    if "custom_id" not in obj:
        errors.append(_error("missing_required_parameter", "Missing required field 'custom_id'.",
                             number, "custom_id"))
    elif not isinstance(custom_id, str) or not custom_id:
        errors.append(_error("invalid_custom_id", "'custom_id' must be a non-empty string.",
                             number, "custom_id"))
    elif custom_id in seen:
        errors.append(_error("duplicate_custom_id",
                             f"The custom_id {custom_id!r} is used more than once in this file.",
                             number, "custom_id"))
    else:
        seen.add(custom_id)
    if obj.get("method") != "POST":
        errors.append(_error("invalid_method",
                             f"'method' must be 'POST', got {obj.get('method')!r}.",
                             number, "method"))
    if obj.get("url") != endpoint:
        errors.append(_error("invalid_url",
                             f"'url' must be {endpoint!r} (the batch endpoint), got "
                             f"{obj.get('url')!r}.", number, "url"))
    body = obj.get("body")
    if not isinstance(body, dict):
        errors.append(_error("invalid_request", "'body' must be a JSON object.", number, "body"))
    elif body.get("stream") is True:
        errors.append(_error("invalid_request", "Streaming is not supported in batch requests.",
                             number, "body.stream"))
    else:
        errors.extend(_error("invalid_request", msg, number, "body")
                      for msg in validate_body(endpoint, body))
    if errors:
        return None, errors
    return {"custom_id": custom_id, "method": "POST", "url": endpoint, "body": body}, []


def validate_batch_file(content: bytes, endpoint: str, validate_body: ValidateBody
                        ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Parse and check a batch input file.

    Returns ``(lines, errors)``: ``lines`` are the requests (``custom_id``, ``method``, ``url``,
    ``body``, plus ``line``, the 1-based line number); ``errors`` are dicts with ``code``,
    ``message``, ``param`` and ``line`` (1-based, None for whole-file errors), at most
    MAX_ERRORS of them. Blank lines are skipped; a leading UTF-8 byte order mark and CRLF line
    ends (files saved by Windows tools) are accepted. Any error means the batch fails.
    """
    content = content.removeprefix(b"\xef\xbb\xbf")
    lines: list[dict[str, Any]] = []
    errors: list[dict[str, Any]] = []
    seen: set[str] = set()
    count = 0
    for number, raw in enumerate(content.split(b"\n"), start=1):
        if not raw.strip():
            continue
        count += 1
        request, line_errors = _check_line(number, raw, endpoint, seen, validate_body)
        errors.extend(line_errors)
        if request is not None:
            lines.append({**request, "line": number})
        if len(errors) >= MAX_ERRORS:
            return lines, errors[:MAX_ERRORS]
    if count == 0:
        errors.append(_error("empty_file", "The input file contains no requests.", None, None))
    elif count > MAX_REQUESTS:
        errors.append(_error("too_many_requests",
                             f"A batch may hold at most {MAX_REQUESTS} requests.", None, None))
    return lines, errors
