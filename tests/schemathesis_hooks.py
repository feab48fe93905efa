"""Schemathesis hooks for the contract gate (loaded with SCHEMATHESIS_HOOKS).

``sse_event_data``: Schemathesis checks that each SSE event is an object with a string
``data``; this check also parses that string and validates it against the chunk schema the
media type names in ``x-afm-event-data``, and requires an unnamed stream to end with
``[DONE]`` and a named one to name each event by its type.
"""

from __future__ import annotations

from typing import Any

import schemathesis

from tests.contract_support import event_data_schema, explained, stream_errors


@schemathesis.check
def sse_event_data(ctx: Any, response: Any, case: Any) -> bool | None:
    """Every SSE chunk matches the operation's ``x-afm-event-data`` schema."""
    content_type = response.headers.get("content-type", [""])
    content_type = content_type[0] if isinstance(content_type, list) else content_type
    if response.status_code != 200 or not content_type.startswith("text/event-stream"):
        return None
    if event_data_schema(case.operation.method, case.operation.path) is None:
        return None
    problems = stream_errors(case.operation.method, case.operation.path, response.text)
    if problems:
        raise AssertionError("SSE events break the contract:\n" + "\n".join(problems[:10]))
    return True


@schemathesis.check
def refusals_explained(ctx: Any, response: Any, case: Any) -> bool | None:
    """A schema-valid request is refused only for a listed model/state rule."""
    meta = getattr(case, "meta", None)
    if meta is None or not meta.generation.mode.is_positive or response.status_code != 400:
        return None
    try:
        message = response.json()["error"]["message"]
    except (ValueError, KeyError, TypeError):
        message = response.text
    if explained("ST202", message) is None:
        raise AssertionError(f"Schema-valid request refused for a rule the contract does not "
                             f"state: {message}")
    return True
