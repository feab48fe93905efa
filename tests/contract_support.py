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
    operation's ``x-afm-event-data`` schema. Unnamed streams (OpenAI chat style) end with a last
    ``[DONE]``; named streams name each event by its data's ``type`` (Anthropic's end without
    ``[DONE]``; the Responses API's keep OpenAI's closing ``data: [DONE]``, unnamed)."""
    schema = event_data_schema(method, path)
    if schema is None:
        return [f"{method.upper()} {path} declares no text/event-stream response"]
    events = parse_sse_events(body)
    named = any(name is not None for name, _ in events)
    if not named:
        if not events or events[-1][1] != "[DONE]":
            return [f"stream does not end with data: [DONE] (last: {events[-1:]!r})"]
        events = events[:-1]
    elif events and events[-1] == (None, "[DONE]"):
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


# What a schema-valid request can still be refused for: rules that depend on the loaded model,
# the server's flags or the host, or that relate two values of one request in a way JSON Schema
# draft 4 (OpenAPI 3.0) cannot state. Each is (Schemathesis check code, pattern of the error
# message the server answers, reason). Everything else a schema-valid request is refused for is
# a rule the contract must state.
MODEL_STATE_RULES: tuple[tuple[str, str, str], ...] = (
    ("ST101", r"Apple Vision is not available on this host",
     "host: vision is Apple-only; elsewhere a valid request is answered 503"),
    ("ST101", r"No (transcription model|speech voice) is loaded on this server",
     "server flag: --no-speech (or the speech models not fetched): a valid request is 503"),
    ("ST202", r"cannot be decoded as audio|holds no audio samples",
     "content: bytes that are not audio (a binary part's content has no schema)"),
    ("ST202", r"Unknown voice ",
     "server flags: the voices are --tts-voice's (GET /v1/audio/voices lists them)"),
    ("ST202", r"stream=true sends text events|stream_format 'sse' carries raw|"
     r"timestamp_granularities needs response_format",
     "two fields: stating it would turn the request into a union of object types"),
    ("ST202", r"is not a language Whisper knows", "model: Whisper's language codes"),
    ("ST202", r"(?i)token id -?\d+ is outside the vocabulary", "model: its vocabulary size"),
    ("ST202", r"dimensions may be at most \d+", "model: the embedding model's dimensions"),
    ("ST202", r"leaves no room in the model's \d+-token context", "model: its context window"),
    ("ST202", r"is an '[^']*' part, but the loaded model takes text only",
     "model: a text-only model takes text parts only"),
    ("ST202", r"The chat template rejected these messages", "model: its chat template's rules"),
    ("ST202", r"Cannot enforce this request's structure",
     "model/grammar engine: schemas the grammar engine cannot compile"),
    ("ST202", r"(top_)?logprobs may be at most \d+ on this server",
     "server flag: --max-logprobs"),
    ("ST202", r"Streaming is disabled on this server", "server flag: --no-streaming"),
    ("ST202", r"top_logprobs requires logprobs=true",
     "two fields: stating it would turn the request into a union of two object types"),
    ("ST202", r"tool_choice names function .* which is not among tools",
     "two fields: a value of one must equal a value inside another"),
    ("ST202", r"tool_choice 'required' needs at least one tool",
     "two fields: stating it would turn the request into a union of two object types"),
    ("ST202", r"tool_choice names a '[^']*' tool, which this server left out of the prompt",
     "two fields, and the server: tool_choice names a hosted tool of `tools` this server does "
     "not run (hosted tools are left out and reported in X-AFM-Warnings)"),
    ("ST202", r"tool_choice 'required' needs a function tool; this request's tools were all "
     r"left out",
     "two fields, and the server: every tool of `tools` is a hosted one this server does not "
     "run"),
    ("ST202", r"custom_id values must be unique",
     "values across items: uniqueItems cannot single out one property"),
    ("error", r"Failed Health Check\s+Data generation is too slow",
     "not a finding: Hypothesis' generation-speed health check trips on a loaded machine"),
    ("ST202", r"'file' is empty",
     "multipart: Connexion cannot validate minLength on a binary part"),
    ("ST202", r"has type '\w+', a block this server cannot take",
     "model: image/document blocks for a text-only model, server tools this server lacks"),
    ("ST202", r"is a '[^']*' server tool, which this server does not run",
     "server: it runs no server tools (web search, code execution...)"),
    ("ST202", r"which .* on this server; only 'function' tools can run here",
     "server: it runs function tools only (no web search, file search, code interpreter...)"),
    ("ST202", r"The conversation has \d+ tokens, which leaves no room",
     "model: its context window (a stored conversation plus the new input)"),
    ("ST202", r"has status '\w+' and cannot be continued",
     "state: the stored response named by previous_response_id did not complete"),
    ("ST202", r"Only background responses can be cancelled",
     "state: the stored response was not created with background"),
    ("ST202", r"background responses (must be stored|cannot be streamed)",
     "two fields: stating it would turn the request into a union of object types"),
    ("ST202", r"input is required without previous_response_id",
     "two fields: one of input and previous_response_id is required (a union of object types)"),
    ("ST202", r"input needs a message or call, not only reasoning items",
     "values across items: draft 4 has no `contains` to require one non-reasoning item"),
)


def explained(code: str, text: str) -> str | None:
    """The reason MODEL_STATE_RULES gives for failure ``code`` with ``text``, if any."""
    import re

    for rule_code, pattern, reason in MODEL_STATE_RULES:
        if code == rule_code and re.search(pattern, text):
            return reason
    return None


def unexplained_failures(junit_xml: str) -> list[str]:
    """Failures in a Schemathesis JUnit report that no MODEL_STATE_RULES entry explains."""
    import re
    import xml.etree.ElementTree as ET

    problems = []
    for case in ET.fromstring(junit_xml).iter("testcase"):
        for failure in case:
            if failure.tag not in ("failure", "error"):
                continue
            text = failure.text or failure.get("message") or ""
            for found in re.split(r"\n(?=\d+\. Test Case ID)", text):
                codes = (["error"] if failure.tag == "error"
                         else re.findall(r"^- (ST\d+)", found, re.M) or ["?"])
                problems += [f"{case.get('name')}: {found[:1500]}" for code in codes
                             if explained(code, found) is None]
    return problems
