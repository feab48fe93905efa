"""Tool calls written outside the format's markup, read by one rule (``--strict-tool-calls``
turns it off).

Small models often answer a turn that should be a call with the call as plain JSON instead of
their chat template's markup: Qwen2.5-Coder 0.5B and 1.5B under Claude Code's and Codex's
prompts write ```` ```json {"name": "ToolSearch", "arguments": {"query": "select:Write"}} ``` ````
or a bare ``{"name": ..., "arguments": ...}``; others write ``{"tool": ..., "parameters": ...}``.

The rule: a reply whose whole content is one JSON object, bare or in one code fence (language
tag ``json`` or none; a lone closing fence too), is a call when the following hold (several
objects one after another, whitespace between, are that many calls when each holds: the 0.5B
coder answers "Read, then Edit" so, and the hermes format read such replies before the rule)

- it names the tool under one of :data:`NAME_KEYS` and holds the arguments under at most one of
  :data:`ARGS_KEYS` (an object, or a JSON string of one; none: ``{}``), with no keys besides
  those, ``id`` and ``type``; OpenAI's nested ``{"type": "function", "function": {"name": ...,
  "arguments": ...}}`` is read the same way;
- the tool is one the request declared (and may call: not under ``tool_choice`` none), and
- the arguments validate against that tool's parameters schema (JSON Schema).

Anything else stays text. :func:`repair_call` decides a whole reply; :func:`may_repair` tells
a streaming splitter whether the text so far could still become such a reply (it holds the text
back until it can tell).
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Any

from engine.tool_args import DECODER, ParsedCall, args_to_json, parse_partial

NAME_KEYS = ("name", "tool", "tool_name", "function")
ARGS_KEYS = ("arguments", "parameters", "args", "input")
OTHER_KEYS = ("id", "type")
_KEYS = frozenset((*NAME_KEYS, *ARGS_KEYS, *OTHER_KEYS))
_LANGS = ("", "json")
_FENCE = "```"
_OPEN_FENCE = re.compile(r"```[ \t]*([A-Za-z]*)[ \t]*\n?")


def _body(text: str) -> tuple[str, str] | None:
    """The JSON text of a reply without its fence, and how it was written; None when the
    fence's language is not JSON."""
    body = text.strip()
    how = "a bare JSON object"
    if body.startswith(_FENCE):
        m = _OPEN_FENCE.match(body)
        if m is None or m.group(1).lower() not in _LANGS:
            return None
        body, how = body[m.end():], "a ```json fence"
    if body.rstrip().endswith(_FENCE):
        body = body.rstrip()[: -len(_FENCE)]
    return body.strip(), how


def _call_object(obj: Any) -> tuple[str, Any] | None:
    """(tool name, raw arguments) of an object shaped as a call, or None."""
    if not isinstance(obj, dict):
        return None
    inner = obj.get("function")
    if isinstance(inner, dict) and set(obj) <= {"function", *OTHER_KEYS}:
        obj = inner
    if set(obj) - _KEYS:
        return None
    names = [k for k in NAME_KEYS if k in obj]
    args = [k for k in ARGS_KEYS if k in obj]
    if len(names) != 1 or len(args) > 1 or not isinstance(obj[names[0]], str):
        return None
    return obj[names[0]], obj[args[0]] if args else None


def _schema(tools: list[dict] | None, name: str) -> dict | None:
    """The declared tool's parameters schema ({} when it has none), or None if not declared."""
    for tool in tools or []:
        fn = tool.get("function", tool) if isinstance(tool, dict) else {}
        if isinstance(fn, dict) and fn.get("name") == name:
            params = fn.get("parameters")
            return params if isinstance(params, dict) else {}
    return None


@lru_cache(maxsize=256)
def _validator(schema_json: str) -> Any:
    import jsonschema

    schema = json.loads(schema_json)
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


def valid_arguments(arguments: dict, schema: dict) -> bool:
    """Whether ``arguments`` validate against ``schema`` (a schema that is not valid JSON
    Schema validates nothing)."""
    if not schema:
        return True
    import jsonschema

    try:
        return bool(_validator(json.dumps(schema, sort_keys=True)).is_valid(arguments))
    except (jsonschema.exceptions.SchemaError, jsonschema.exceptions.UnknownType,
            TypeError, ValueError):
        return False


def _objects(body: str) -> list[Any] | None:
    """The JSON values ``body`` holds one after another (whitespace between), or None."""
    out: list[Any] = []
    at = 0
    while True:
        while at < len(body) and body[at].isspace():
            at += 1
        if at == len(body):
            return out or None
        try:
            obj, at = DECODER.raw_decode(body, at)
        except json.JSONDecodeError:
            return None
        out.append(obj)


def repair_call(text: str, tools: list[dict] | None) -> tuple[list[ParsedCall], str] | None:
    """The calls a whole reply stands for under the rule (one call object, or several one
    after another, as small models write a plan's calls), and a note saying how they were read
    (for X-AFM-Warnings); None when the reply stays text."""
    if not tools:
        return None
    got = _body(text)
    if got is None:
        return None
    body, how = got
    objects = _objects(body)
    if objects is None:
        return None
    calls = []
    for obj in objects:
        shaped = _call_object(obj)
        if shaped is None:
            return None
        name, raw = shaped
        schema = _schema(tools, name)
        arguments = args_to_json(raw)
        if schema is None or arguments is None:
            return None
        if not valid_arguments(json.loads(arguments), schema):
            return None
        calls.append(ParsedCall(name=name, arguments_json=arguments))
    names = ", ".join(c.name for c in calls)
    note = (f"tool call{'s' if len(calls) > 1 else ''} {names} read from a reply written as "
            f"{how} instead of the tool-call markup (--strict-tool-calls keeps such replies as "
            "text)")
    return calls, note


def may_repair(text: str) -> bool:
    """Whether a reply starting with ``text`` may still turn out to be a call under the rule
    (False as soon as it cannot: then it is text)."""
    body = text.lstrip()
    if not body:
        return True
    if body.startswith(_FENCE):
        m = _OPEN_FENCE.match(body)
        head = body[len(_FENCE):]
        if m is None or (m.end() == len(body) and "\n" not in head):  # the tag may grow
            return any(lang.startswith(head.strip().lower()) for lang in _LANGS)
        if m.group(1).lower() not in _LANGS:
            return False
        body = body[m.end():].lstrip()
        if not body:
            return True
    elif _FENCE.startswith(body):
        return True
    if not body.startswith("{"):
        return False
    try:
        obj, end = DECODER.raw_decode(body)
    except json.JSONDecodeError:  # still being written: its keys so far must be a call's
        start = parse_partial(body, cut_strings=False)
        return isinstance(start, dict) and not set(start) - _KEYS
    rest = body[end:].strip()
    if _call_object(obj) is None:
        return False
    if rest.startswith("{"):  # another call object after it
        return may_repair(rest)
    return not rest or _FENCE.startswith(rest)
