"""The contract as the tests read it: OpenAPI 3.0 schemas as JSON Schema, and SSE streams
checked event by event against the chunk schema each event-stream media type names in its
``x-afm-event-data`` extension (OpenAPI 3.0 cannot type the JSON inside an SSE ``data`` string).

Shared by test_contract, test_generated_client and the Schemathesis hooks.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import yaml
from jsonschema import Draft4Validator, FormatChecker

ROOT = Path(__file__).resolve().parent.parent
SPEC_PATH = ROOT / "openapi" / "afm.yaml"
EVENT_DATA = "x-afm-event-data"


@functools.cache
def load_spec() -> dict[str, Any]:
    """The contract, parsed (cached: treat as read-only)."""
    return yaml.safe_load(SPEC_PATH.read_text())


def to_json_schema(node: Any) -> Any:
    """OpenAPI 3.0 schema -> JSON Schema (draft 4): ``nullable: true`` becomes a ``null`` type.

    As the 3.0.3 clarification reads it, a nullable ``enum`` allows null only when it lists it.
    """
    if isinstance(node, list):
        return [to_json_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: to_json_schema(value) for key, value in node.items()
           if key != "nullable" and not key.startswith("x-")}
    if node.get("nullable") is True and "type" in out:
        out["type"] = [out["type"], "null"]
    return out


def validator(schema: dict[str, Any]) -> Draft4Validator:
    """A validator for a contract schema (``$ref``s into ``#/components`` allowed)."""
    return _validator(json.dumps(schema, sort_keys=True))


@functools.cache
def _validator(schema_json: str) -> Draft4Validator:
    # The target under `allOf`, in a document that also holds the components, so that the
    # contract's own `#/components/...` references resolve as they are.
    document = {"components": to_json_schema(load_spec()["components"]),
                "allOf": [to_json_schema(json.loads(schema_json))]}
    return Draft4Validator(document, format_checker=FormatChecker())


def schema_errors(schema: dict[str, Any], instance: Any) -> list[str]:
    """Human-readable violations of ``schema`` by ``instance`` (empty when valid); for a
    failed ``oneOf``/``anyOf``, the error of the branch that matched furthest."""
    problems = []
    for error in sorted(validator(schema).iter_errors(instance), key=lambda e: list(e.path)):
        while error.context:
            error = max(error.context, key=lambda e: len(e.absolute_path))
        problems.append(f"{'/'.join(map(str, error.absolute_path)) or '<root>'}: "
                        f"{error.message[:300]}")
    return problems


def component(name: str) -> dict[str, Any]:
    return {"$ref": f"#/components/schemas/{name}"}


def event_data_schema(method: str, path: str) -> dict[str, Any] | None:
    """The schema of the JSON in each SSE event's ``data`` of an operation's 200 stream."""
    operation = load_spec()["paths"][path][method.lower()]
    media = operation["responses"]["200"].get("content", {}).get("text/event-stream")
    return None if media is None else media[EVENT_DATA]


def parse_sse_events(body: str) -> list[tuple[str | None, str]]:
    """Every event of an SSE body as (its ``event:`` name or None, its ``data``; multi-line
    data joined with newlines)."""
    events: list[tuple[str | None, str]] = []
    for block in body.replace("\r\n", "\n").split("\n\n"):
        lines = [line[5:].removeprefix(" ") for line in block.split("\n")
                 if line.startswith("data:")]
        names = [line[6:].strip() for line in block.split("\n") if line.startswith("event:")]
        if lines:
            events.append((names[-1] if names else None, "\n".join(lines)))
    return events


def parse_sse(body: str) -> list[str]:
    """The ``data`` of every event in an SSE body."""
    return [data for _, data in parse_sse_events(body)]


def stream_errors(method: str, path: str, body: str) -> list[str]:
    """Where an SSE body breaks the contract: every event's data is JSON valid against the
    operation's ``x-afm-event-data`` schema. Unnamed streams (OpenAI style) end with a last
    ``[DONE]``; named streams (Anthropic style) name each event by its data's ``type``."""
    schema = event_data_schema(method, path)
    if schema is None:
        return [f"{method.upper()} {path} declares no text/event-stream response"]
    events = parse_sse_events(body)
    named = any(name is not None for name, _ in events)
    if not named:
        if not events or events[-1][1] != "[DONE]":
            return [f"stream does not end with data: [DONE] (last: {events[-1:]!r})"]
        events = events[:-1]
    problems: list[str] = []
    for i, (name, data) in enumerate(events):
        try:
            chunk = json.loads(data)
        except ValueError:
            problems.append(f"event {i}: data is not JSON: {data[:80]!r}")
            continue
        if named and (not isinstance(chunk, dict) or chunk.get("type") != name):
            problems.append(f"event {i}: named {name!r} but its data's type differs")
        problems.extend(f"event {i}: {msg}" for msg in schema_errors(schema, chunk))
    return problems
