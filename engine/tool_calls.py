"""Tool-call markup: format detection and parsers, one per model family.

Formats (names match the ``--tool-call-parser`` flag):

- ``hermes``: ``<tool_call>\\n{"name": ..., "arguments": {...}}\\n</tool_call>`` (Qwen 2.5/3)
- ``qwen3_xml``: ``<tool_call>\\n<function=NAME>\\n<parameter=P>\\nV\\n</parameter>\\n</function>\\n
  </tool_call>`` (Qwen3-Coder, Qwen3.5); values are raw text converted with the parameter's schema
- ``llama3_json``: ``<|python_tag|>{"name": ..., "parameters": {...}}``, several joined by ``; ``
  (a bare leading ``{"name": ...}`` object is read too)
- ``mistral``: ``[TOOL_CALLS][{"name": ..., "arguments": {...}}, ...]`` (also the newer
  ``[TOOL_CALLS]NAME[ARGS]{...}`` form)

A call block the parser cannot read is left in the content and logged; it is never dropped.
The scanning helpers (:func:`find_call_start`, :func:`find_block_end`, :func:`parse_block`) are
shared with the streaming :class:`engine.output.OutputProcessor`, so streamed and non-streamed
parsing agree.
"""

from __future__ import annotations

import json
import logging
import re
import secrets
import string
from dataclasses import dataclass, field
from typing import Any

log = logging.getLogger(__name__)

TOOL_FORMATS = ("hermes", "qwen3_xml", "llama3_json", "mistral")

_ALNUM = string.ascii_letters + string.digits


def new_call_id() -> str:
    """An OpenAI-style tool call id: ``call_`` plus 24 random alphanumerics."""
    return "call_" + "".join(secrets.choice(_ALNUM) for _ in range(24))


@dataclass
class ParsedCall:
    """One tool call read from model output. ``arguments_json`` is always a JSON object string."""

    name: str
    arguments_json: str
    id: str = field(default_factory=new_call_id)


# Markers that open a call block, per format.
START_MARKERS: dict[str, tuple[str, ...]] = {
    "hermes": ("<tool_call>",),
    "qwen3_xml": ("<tool_call>", "<function="),
    "llama3_json": ("<|python_tag|>",),
    "mistral": ("[TOOL_CALLS]",),
}


def check_format(fmt: str) -> str:
    """Return ``fmt`` if it is a known tool format, else raise ValueError."""
    if fmt not in TOOL_FORMATS:
        raise ValueError(f"unknown tool call format {fmt!r}; known: {', '.join(TOOL_FORMATS)}")
    return fmt


def detect_tool_format(chat_template: str | None, model_type: str | None = None) -> str:
    """Guess a model's tool-call format from its chat template (and config ``model_type``).

    The ``--tool-call-parser`` flag overrides this. Falls back on the model family, then hermes.
    """
    tpl = chat_template or ""
    mt = (model_type or "").lower()
    if "<function=" in tpl and "<parameter=" in tpl:
        return "qwen3_xml"
    if "[TOOL_CALLS]" in tpl:
        return "mistral"
    if "<|python_tag|>" in tpl:
        return "llama3_json"
    if "<tool_call>" in tpl:
        return "hermes"
    if mt.startswith(("mistral", "mixtral", "ministral")):
        return "mistral"
    if mt.startswith("llama"):
        return "llama3_json"
    return "hermes"


# ---------------------------------------------------------------------------- scanning


def find_call_start(text: str, fmt: str, pos: int = 0) -> int:
    """Index of the first call-opening marker at or after ``pos``, or -1."""
    best = -1
    for marker in START_MARKERS[fmt]:
        i = text.find(marker, pos)
        if i != -1 and (best == -1 or i < best):
            best = i
    return best


def partial_marker_len(text: str, fmt: str) -> int:
    """Length of the longest suffix of ``text`` that is a proper prefix of a start marker."""
    best = 0
    for marker in START_MARKERS[fmt]:
        for n in range(min(len(marker) - 1, len(text)), best, -1):
            if text.endswith(marker[:n]):
                best = n
                break
    return best


_DECODER = json.JSONDecoder(strict=False)


def _skip_ws(text: str, i: int) -> int:
    while i < len(text) and text[i].isspace():
        i += 1
    return i


def find_block_end(fmt: str, block: str) -> int | None:
    """End index of the complete call block that starts at ``block[0]``, or None if incomplete.

    ``llama3_json`` blocks have no closing marker: they end with the output (return None).
    """
    if fmt == "hermes" or (fmt == "qwen3_xml" and block.startswith("<tool_call>")):
        i = block.find("</tool_call>")
        return None if i == -1 else i + len("</tool_call>")
    if fmt == "qwen3_xml":
        i = block.find("</function>")
        return None if i == -1 else i + len("</function>")
    if fmt == "mistral":
        return _mistral_block_end(block)
    return None


def _mistral_block_end(block: str) -> int | None:
    i = _skip_ws(block, len("[TOOL_CALLS]"))
    if i >= len(block):
        return None
    if block[i] != "[":
        # NAME[ARGS]{...} form
        j = block.find("{", i)
        if j == -1:
            return None
        i = j
    try:
        _, end = _DECODER.raw_decode(block, i)
    except json.JSONDecodeError:
        return None
    return end


# ---------------------------------------------------------------------------- block parsers


def _args_to_json(args: Any) -> str | None:
    if args is None:
        return "{}"
    if isinstance(args, str):
        try:
            args = _DECODER.decode(args)
        except json.JSONDecodeError:
            return None
    if not isinstance(args, dict):
        return None
    return json.dumps(args, ensure_ascii=False)


def _call_from_obj(obj: Any, args_keys: tuple[str, ...]) -> ParsedCall | None:
    if not isinstance(obj, dict) or not isinstance(obj.get("name"), str) or not obj["name"]:
        return None
    args: Any = None
    for k in args_keys:
        if k in obj:
            args = obj[k]
            break
    arguments = _args_to_json(args)
    if arguments is None:
        return None
    return ParsedCall(name=obj["name"], arguments_json=arguments)


def _parse_hermes(block: str) -> list[ParsedCall] | None:
    body = block[len("<tool_call>") :]
    if body.rstrip().endswith("</tool_call>"):
        body = body.rstrip()[: -len("</tool_call>")]
    try:
        obj = _DECODER.decode(body.strip())
    except json.JSONDecodeError:
        return None
    call = _call_from_obj(obj, ("arguments", "parameters"))
    return None if call is None else [call]


def _parse_json_sequence(body: str, args_keys: tuple[str, ...]) -> list[ParsedCall] | None:
    """Parse JSON call objects (or arrays of them) separated by whitespace, ``;`` or ``,``."""
    calls: list[ParsedCall] = []
    i = 0
    while True:
        while i < len(body) and (body[i].isspace() or body[i] in ";,"):
            i += 1
        if i >= len(body):
            break
        try:
            obj, i = _DECODER.raw_decode(body, i)
        except json.JSONDecodeError:
            return None
        for item in obj if isinstance(obj, list) else [obj]:
            call = _call_from_obj(item, args_keys)
            if call is None:
                return None
            calls.append(call)
    return calls or None


def _parse_llama3(block: str) -> list[ParsedCall] | None:
    body = block.replace("<|python_tag|>", ";")  # a marker may open each call
    return _parse_json_sequence(body, ("parameters", "arguments"))


_MISTRAL_NAMED = re.compile(r"\s*([A-Za-z0-9_.\-]+)\s*(?:\[ARGS\])?\s*(\{.*)", re.DOTALL)


def _parse_mistral(block: str) -> list[ParsedCall] | None:
    calls: list[ParsedCall] = []
    for part in block.split("[TOOL_CALLS]")[1:]:
        if part.lstrip().startswith(("[", "{")):
            got = _parse_json_sequence(part, ("arguments", "parameters"))
        else:
            m = _MISTRAL_NAMED.match(part)
            if not m:
                return None
            try:
                args, end = _DECODER.raw_decode(m.group(2))
            except json.JSONDecodeError:
                return None
            arguments = _args_to_json(args) if not m.group(2)[end:].strip() else None
            got = None if arguments is None else [ParsedCall(m.group(1), arguments)]
        if got is None:
            return None
        calls.extend(got)
    return calls or None


_FUNCTION_RE = re.compile(r"<function=([^>\n]+)>(.*?)</function>", re.DOTALL)
_PARAM_RE = re.compile(r"<parameter=([^>\n]+)>(.*?)</parameter>", re.DOTALL)


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
                v = _DECODER.decode(text)
                if isinstance(v, dict if t == "object" else list):
                    return v
        except (ValueError, json.JSONDecodeError):
            continue
    if "string" in types:
        return raw
    if not types:  # unknown schema: JSON if it parses, else the text
        try:
            return _DECODER.decode(text)
        except json.JSONDecodeError:
            return raw
    return raw  # schema says non-string but the value does not parse: keep the text


def _tool_properties(tools: list[dict] | None, name: str) -> dict:
    for tool in tools or []:
        fn = tool.get("function", tool) if isinstance(tool, dict) else {}
        if fn.get("name") == name:
            params = fn.get("parameters") or {}
            props = params.get("properties") if isinstance(params, dict) else None
            return props if isinstance(props, dict) else {}
    return {}


def _parse_qwen3_xml(block: str, tools: list[dict] | None) -> list[ParsedCall] | None:
    calls: list[ParsedCall] = []
    body = block
    if body.startswith("<tool_call>"):
        body = body[len("<tool_call>") :]
        if body.rstrip().endswith("</tool_call>"):
            body = body.rstrip()[: -len("</tool_call>")]
    pos = 0
    for m in _FUNCTION_RE.finditer(body):
        if body[pos : m.start()].strip():
            return None
        pos = m.end()
        name = m.group(1).strip()
        props = _tool_properties(tools, name)
        args: dict[str, Any] = {}
        inner = m.group(2)
        ppos = 0
        for p in _PARAM_RE.finditer(inner):
            if inner[ppos : p.start()].strip():
                return None
            ppos = p.end()
            key = p.group(1).strip()
            args[key] = convert_param_value(p.group(2), props.get(key))
        if inner[ppos:].strip() or not name:
            return None
        calls.append(ParsedCall(name=name, arguments_json=json.dumps(args, ensure_ascii=False)))
    if body[pos:].strip():
        return None
    return calls or None


def parse_block(fmt: str, block: str, tools: list[dict] | None) -> list[ParsedCall] | None:
    """Parse one call block (from its start marker to its end); None when it cannot be read."""
    if fmt == "hermes":
        return _parse_hermes(block)
    if fmt == "qwen3_xml":
        return _parse_qwen3_xml(block, tools)
    if fmt == "llama3_json":
        return _parse_llama3(block)
    if fmt == "mistral":
        return _parse_mistral(block)
    raise ValueError(f"unknown tool call format {fmt!r}")


def bare_llama3_start(text: str) -> bool:
    """True if llama3_json output opens with a bare JSON object (a call without python_tag)."""
    return text.lstrip().startswith("{")


def parse_tool_calls(
    text: str, fmt: str, tools: list[dict] | None = None
) -> tuple[str | None, list[ParsedCall]]:
    """Split complete model output into (content, calls).

    Content is the text outside call blocks, stripped; None when empty and calls were found.
    Unreadable blocks stay in content (logged). Unterminated blocks run to the end of the text.
    """
    check_format(fmt)
    parts: list[str] = []
    calls: list[ParsedCall] = []
    pos = 0
    if fmt == "llama3_json" and bare_llama3_start(text):
        got = _parse_json_sequence(text, ("parameters", "arguments"))
        if got is not None:
            return None, got
    while True:
        start = find_call_start(text, fmt, pos)
        if start == -1:
            parts.append(text[pos:])
            break
        parts.append(text[pos:start])
        end = find_block_end(fmt, text[start:])
        end = len(text) if end is None else start + end
        block = text[start:end]
        got = parse_block(fmt, block, tools)
        if got is None:
            log.warning("unreadable %s tool call left in content: %.200r", fmt, block)
            parts.append(block)
        else:
            calls.extend(got)
        pos = end
    content = "".join(parts).strip()
    return (None if not content and calls else content), calls
