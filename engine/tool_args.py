"""Tool-call values shared by every format: parsed calls, call ids and argument conversion.

:class:`ParsedCall` is what a format's parser returns; :func:`parse_json_calls` reads the JSON call
objects most formats use; :func:`convert_param_value` turns qwen3_xml's raw parameter text into a
JSON value using the tool's schema; :func:`parse_partial` reads a call's arguments while the
model is still writing them.
"""

from __future__ import annotations

import json
import re
import secrets
import string
from dataclasses import dataclass, field
from typing import Any

import jiter

_ALNUM = string.ascii_letters + string.digits

DECODER = json.JSONDecoder(strict=False)
"""Lenient JSON decoder (raw control characters allowed inside strings)."""


def parse_partial(text: str, *, cut_strings: bool = True) -> Any:
    """The value an incomplete JSON text starts, or None when it cannot be read. A string cut
    short is kept as written so far, or (``cut_strings=False``) left out with its key."""
    try:
        return jiter.from_json(text.encode(),
                               partial_mode="trailing-strings" if cut_strings else "on")
    except ValueError:
        return None


def new_call_id() -> str:
    """An OpenAI-style tool call id: ``call_`` plus 24 random alphanumerics."""
    return "call_" + "".join(secrets.choice(_ALNUM) for _ in range(24))


@dataclass
class ParsedCall:
    """One tool call read from model output. ``arguments_json`` is always a JSON object string."""

    name: str
    arguments_json: str
    id: str = field(default_factory=new_call_id)


def args_to_json(args: Any) -> str | None:
    """Arguments (an object, a JSON string of one, or None) as a JSON object string, or None."""
    if args is None:
        return "{}"
    if isinstance(args, str):
        try:
            args = DECODER.decode(args)
        except json.JSONDecodeError:
            return None
    if not isinstance(args, dict):
        return None
    return json.dumps(args, ensure_ascii=False)


def call_from_obj(obj: Any, args_keys: tuple[str, ...]) -> ParsedCall | None:
    """A call from a ``{"name": ..., <args key>: {...}}`` object (first present key wins)."""
    if not isinstance(obj, dict) or not isinstance(obj.get("name"), str) or not obj["name"]:
        return None
    args: Any = None
    for k in args_keys:
        if k in obj:
            args = obj[k]
            break
    arguments = args_to_json(args)
    if arguments is None:
        return None
    return ParsedCall(name=obj["name"], arguments_json=arguments)


def parse_json_calls(body: str, args_keys: tuple[str, ...]) -> list[ParsedCall] | None:
    """Parse JSON call objects (or arrays of them) separated by whitespace, ``;`` or ``,``."""
    calls: list[ParsedCall] = []
    i = 0
    while True:
        while i < len(body) and (body[i].isspace() or body[i] in ";,"):
            i += 1
        if i >= len(body):
            break
        try:
            obj, i = DECODER.raw_decode(body, i)
        except json.JSONDecodeError:
            return None
        for item in obj if isinstance(obj, list) else [obj]:
            call = call_from_obj(item, args_keys)
            if call is None:
                return None
            calls.append(call)
    return calls or None


def _param_types(schema: Any) -> list[str]:
    """JSON-schema types a property may take (from ``type``, ``anyOf``/``oneOf``, ``enum``)."""
    if not isinstance(schema, dict):
        return []
    t = schema.get("type")
    if isinstance(t, str):
        return [t]
    if isinstance(t, list):
        return [x for x in t if isinstance(x, str)]
    out: list[str] = []
    for key in ("anyOf", "oneOf"):
        for sub in schema.get(key) or []:
            out.extend(_param_types(sub))
    if not out and "enum" in schema:
        out = [_value_type(v) for v in schema["enum"]]
    return out


def _value_type(v: Any) -> str:
    if isinstance(v, str):
        return "string"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int | float):
        return "number"
    return "null" if v is None else "object"


def convert_param_value(raw: str, schema: Any) -> Any:
    """Turn a qwen3_xml parameter's raw text into a JSON value using the parameter's schema."""
    types = _param_types(schema)
    # Whitespace around a value is layout (the Qwen3-Coder template puts newlines there, and the
    # grammar allows it), not part of the value.
    raw = text = raw.strip()
    if "null" in types and text == "null":
        return None
    for t in types:
        if t == "string":
            continue
        try:
            if t == "integer":
                return int(text)
            if t == "number":
                v = float(text)
                return int(v) if v.is_integer() and re.fullmatch(r"-?\d+", text) else v
            if t == "boolean" and text.lower() in ("true", "false"):
                return text.lower() == "true"
            if t in ("object", "array"):
                v = DECODER.decode(text)
                if isinstance(v, dict if t == "object" else list):
                    return v
        except (ValueError, json.JSONDecodeError):
            continue
    if "string" in types:
        return raw
    if not types:  # unknown schema: JSON if it parses, else the text
        try:
            return DECODER.decode(text)
        except json.JSONDecodeError:
            return raw
    return raw  # schema says non-string but the value does not parse: keep the text


def tool_properties(tools: list[dict] | None, name: str) -> dict:
    """The ``properties`` of the named function tool's parameters schema ({} if none)."""
    for tool in tools or []:
        fn = tool.get("function", tool) if isinstance(tool, dict) else {}
        if fn.get("name") == name:
            params = fn.get("parameters") or {}
            props = params.get("properties") if isinstance(params, dict) else None
            return props if isinstance(props, dict) else {}
    return {}


PartialCall = tuple[str, Any]
"""A call being written: its complete name and its arguments object so far (None when the
arguments have not started; a string cut short stays in it, see
:func:`parse_partial`)."""


def _partial_from_objs(named: Any, growing: Any, args_keys: tuple[str, ...]
                       ) -> list[PartialCall]:
    """Calls from one JSON value read twice: with cut strings dropped (names are complete)
    and with cut strings kept (arguments grow)."""
    if isinstance(named, list) and isinstance(growing, list):
        return [c for n, g in zip(named, growing, strict=False)
                for c in _partial_from_objs(n, g, args_keys)]
    if not isinstance(named, dict) or not isinstance(named.get("name"), str):
        return []
    args = None
    if isinstance(growing, dict):
        args = next((growing[k] for k in args_keys if k in growing), None)
    return [(named["name"], args)]


def partial_json_calls(body: str, args_keys: tuple[str, ...]) -> list[PartialCall]:
    """The calls in JSON call objects (or arrays of them) being written, separated as in
    :func:`parse_json_calls`; the last may be incomplete."""
    calls: list[PartialCall] = []
    i = 0
    while True:
        while i < len(body) and (body[i].isspace() or body[i] in ";,"):
            i += 1
        if i >= len(body):
            return calls
        try:
            obj, i = DECODER.raw_decode(body, i)
        except json.JSONDecodeError:
            rest = body[i:]
            return calls + _partial_from_objs(parse_partial(rest, cut_strings=False),
                                              parse_partial(rest), args_keys)
        calls.extend(_partial_from_objs(obj, obj, args_keys))
