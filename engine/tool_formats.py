"""Tool-call formats: one object per format, all registered in :data:`FORMATS`.

Each :class:`ToolCallFormat` holds everything the server knows about one markup: the markers that
open a call block (and the special tokens the detokenizer must keep visible for them), where a
block ends and how to read it, how to recognise the format in a chat template, and the xgrammar
structural tags that constrain calls (:mod:`engine.grammar` supplies the arguments' content).
The parser (:func:`engine.tool_calls.parse_tool_calls`), serving's streaming splitter
(:class:`serving.output_parser.OutputProcessor`) and the grammar builder all go through these
objects, so streamed output, non-streamed output and constrained output agree. Adding a format
is one subclass and one :func:`register` call.

Formats (names match the ``--tool-call-parser`` flag):

- ``hermes``: ``<tool_call>\\n{"name": ..., "arguments": {...}}\\n</tool_call>`` (Qwen 2.5/3)
- ``qwen3_xml``: ``<tool_call>\\n<function=NAME>\\n<parameter=P>\\nV\\n</parameter>\\n</function>\\n
  </tool_call>`` (Qwen3-Coder, Qwen3.5); values are raw text converted with the parameter's schema
- ``llama3_json``: ``<|python_tag|>{"name": ..., "parameters": {...}}``, several joined by ``; ``
  (a bare leading ``{"name": ...}`` object is read too)

Calls written outside any format's markup (a ```json fence, ``{"tool": ...}``) are read, when
they name a declared tool with valid arguments, by one rule for every format:
:mod:`engine.tool_repair`.
- ``mistral``: ``[TOOL_CALLS][{"name": ..., "arguments": {...}}, ...]`` (also the newer
  ``[TOOL_CALLS]NAME[ARGS]{...}`` form)
"""

from __future__ import annotations

import json
import re
from typing import Any, ClassVar

from engine.tool_args import (
    DECODER,
    ParsedCall,
    PartialCall,
    args_to_json,
    call_from_obj,
    convert_param_value,
    parse_json_calls,
    parse_partial,
    partial_json_calls,
    tool_properties,
)


def _const(value: str) -> dict:
    return {"type": "const_string", "value": value}


def _json_name(name: str) -> str:
    """``name`` as it appears inside a JSON string literal."""
    return json.dumps(name, ensure_ascii=False)[1:-1]


def _skip_ws(text: str, i: int) -> int:
    while i < len(text) and text[i].isspace():
        i += 1
    return i


class ToolCallFormat:
    """One tool-call markup. Subclasses set the class attributes and override what differs."""

    name: ClassVar[str]
    start_markers: ClassVar[tuple[str, ...]]
    """Strings that open a call block in model output."""
    marker_tokens: ClassVar[tuple[str, ...]]
    """Special tokens whose text the parser needs (never dropped by the detokenizer or masked
    as textless by the grammar)."""
    template_markers: ClassVar[tuple[str, ...]]
    """A chat template containing all of these renders calls in this format."""
    detect_rank: ClassVar[int]
    """Detection tries formats by rank, lowest first (the most specific template markers)."""
    model_types: ClassVar[tuple[str, ...]] = ()
    """Config ``model_type`` prefixes that default to this format when the template says nothing."""
    call_separator: ClassVar[str]
    """Between calls in a calls-only grammar."""
    xml_arguments: ClassVar[bool] = False
    """Arguments are qwen_xml ``<parameter=...>`` elements (else a JSON object)."""
    bare_calls: ClassVar[bool] = False
    """Calls may also open the output without a start marker (see :meth:`opens_bare`)."""

    # ------------------------------------------------------------------ scanning and parsing

    def find_start(self, text: str, pos: int = 0) -> int:
        """Index of the first call-opening marker at or after ``pos``, or -1."""
        best = -1
        for marker in self.start_markers:
            i = text.find(marker, pos)
            if i != -1 and (best == -1 or i < best):
                best = i
        return best

    def partial_marker_len(self, text: str) -> int:
        """Length of the longest suffix of ``text`` that is a proper prefix of a start marker."""
        best = 0
        for marker in self.start_markers:
            for n in range(min(len(marker) - 1, len(text)), best, -1):
                if text.endswith(marker[:n]):
                    best = n
                    break
        return best

    def block_end(self, block: str) -> int | None:
        """End index of the complete call block starting at ``block[0]``; None if incomplete
        (or if blocks of this format have no end marker and run to the end of the output)."""
        return None

    def parse_block(self, block: str, tools: list[dict] | None) -> list[ParsedCall] | None:
        """Parse one call block (from its start marker to its end); None when unreadable."""
        raise NotImplementedError

    def partial_calls(self, block: str, tools: list[dict] | None) -> list[PartialCall]:
        """The calls of a block still being written whose names are complete, with their
        arguments so far (for incremental streaming); [] when the format cannot tell."""
        return []

    def opens_bare(self, text: str) -> bool:
        """Whether output opening with ``text`` is a call without a start marker."""
        return False

    def may_be_call(self, block: str) -> bool:
        """Whether the unfinished ``block`` (from a start marker, or a bare opening) can still
        become a call: a block cut there by the token limit is a cut call, not content."""
        return self.find_start(block) == 0

    def may_open_bare(self, text: str) -> bool:
        """Whether ``text`` may still grow into what :meth:`opens_bare` accepts (the streaming
        splitter holds it back until it can tell)."""
        return False

    def parse_bare(self, text: str) -> list[ParsedCall] | None:
        """Parse whole output that :meth:`opens_bare`; None when unreadable."""
        return None

    # ------------------------------------------------------------------ grammar structure

    def call_tag(self, name: str, content: dict) -> dict:
        """The structural tag of one call to ``name`` whose arguments match ``content``."""
        raise NotImplementedError

    def call_list(self, tags: list[dict], parallel: bool) -> dict:
        """One or more calls (one when not ``parallel``) joined by :attr:`call_separator`."""
        return {
            "type": "tags_with_separator",
            "tags": tags,
            "separator": self.call_separator,
            "at_least_one": True,
            "stop_after_first": not parallel,
        }

    def calls_only(self, tags: list[dict], parallel: bool) -> dict:
        """Output that is nothing but calls (``tool_choice`` required or named)."""
        return self.call_list(tags, parallel)

    def auto(self, tags: list[dict], parallel: bool) -> dict:
        """Free text; a call is constrained once the format's trigger appears."""
        raise NotImplementedError


class Hermes(ToolCallFormat):
    name = "hermes"
    start_markers = ("<tool_call>",)
    marker_tokens = ("<tool_call>", "</tool_call>")
    template_markers = ("<tool_call>",)
    detect_rank = 3
    call_separator = "\n"

    def block_end(self, block: str) -> int | None:
        i = block.find("</tool_call>")
        return None if i == -1 else i + len("</tool_call>")

    def parse_block(self, block: str, tools: list[dict] | None) -> list[ParsedCall] | None:
        try:
            obj = DECODER.decode(_tool_call_body(block).strip())
        except json.JSONDecodeError:
            return None
        call = call_from_obj(obj, ("arguments", "parameters"))
        return None if call is None else [call]

    def partial_calls(self, block: str, tools: list[dict] | None) -> list[PartialCall]:
        return partial_json_calls(_tool_call_body(block), ("arguments", "parameters"))[:1]

    def call_tag(self, name: str, content: dict) -> dict:
        begin = f'<tool_call>\n{{"name": "{_json_name(name)}", "arguments": '
        return {"type": "tag", "begin": begin, "content": content, "end": "}\n</tool_call>"}

    def auto(self, tags: list[dict], parallel: bool) -> dict:
        return {
            "type": "triggered_tags",
            "triggers": ["<tool_call>"],
            "tags": tags,
            "stop_after_first": not parallel,
        }


def _tool_call_body(block: str) -> str:
    """``block`` without its ``<tool_call>`` wrapper (when present)."""
    if not block.startswith("<tool_call>"):
        return block
    body = block[len("<tool_call>") :]
    if body.rstrip().endswith("</tool_call>"):
        body = body.rstrip()[: -len("</tool_call>")]
    return body


_FUNCTION_RE = re.compile(r"<function=([^>\n]+)>(.*?)</function>", re.DOTALL)
_PARAM_RE = re.compile(r"<parameter=([^>\n]+)>(.*?)</parameter>", re.DOTALL)
_FUNCTION_OPEN_RE = re.compile(r"<function=([^>\n]+)>")


class Qwen3Xml(Hermes):
    name = "qwen3_xml"
    start_markers = ("<tool_call>", "<function=")
    template_markers = ("<function=", "<parameter=")
    detect_rank = 0
    xml_arguments = True

    def block_end(self, block: str) -> int | None:
        if block.startswith("<tool_call>"):
            return super().block_end(block)
        i = block.find("</function>")
        return None if i == -1 else i + len("</function>")

    def parse_block(self, block: str, tools: list[dict] | None) -> list[ParsedCall] | None:
        calls: list[ParsedCall] = []
        body = _tool_call_body(block)
        pos = 0
        for m in _FUNCTION_RE.finditer(body):
            if body[pos : m.start()].strip():
                return None
            pos = m.end()
            name = m.group(1).strip()
            props = tool_properties(tools, name)
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

    def partial_calls(self, block: str, tools: list[dict] | None) -> list[PartialCall]:
        """Each opened ``<function=NAME>`` with its complete ``<parameter>`` elements."""
        body = _tool_call_body(block)
        opened = list(_FUNCTION_OPEN_RE.finditer(body))
        calls: list[PartialCall] = []
        for k, m in enumerate(opened):
            inner = body[m.end(): opened[k + 1].start() if k + 1 < len(opened) else len(body)]
            name = m.group(1).strip()
            props = tool_properties(tools, name)
            args: dict[str, Any] = {}
            for p in _PARAM_RE.finditer(inner):
                key = p.group(1).strip()
                args[key] = convert_param_value(p.group(2), props.get(key))
            calls.append((name, args))
        return calls

    def call_tag(self, name: str, content: dict) -> dict:
        return {
            "type": "tag",
            "begin": f"<tool_call>\n<function={name}>\n",
            "content": content,
            "end": "\n</function>\n</tool_call>",
        }


class Llama3Json(ToolCallFormat):
    name = "llama3_json"
    start_markers = ("<|python_tag|>",)
    marker_tokens = ("<|python_tag|>",)
    template_markers = ("<|python_tag|>",)
    detect_rank = 2
    model_types = ("llama",)
    call_separator = "; "
    bare_calls = True
    _ARGS_KEYS = ("parameters", "arguments")

    def parse_block(self, block: str, tools: list[dict] | None) -> list[ParsedCall] | None:
        body = block.replace("<|python_tag|>", ";")  # a marker may open each call
        return parse_json_calls(body, self._ARGS_KEYS)

    def partial_calls(self, block: str, tools: list[dict] | None) -> list[PartialCall]:
        return partial_json_calls(block.replace("<|python_tag|>", ";"), self._ARGS_KEYS)

    def opens_bare(self, text: str) -> bool:
        return text.lstrip().startswith("{")

    def parse_bare(self, text: str) -> list[ParsedCall] | None:
        return parse_json_calls(text, self._ARGS_KEYS)

    def may_be_call(self, block: str) -> bool:
        if super().may_be_call(block):
            return True
        # a bare opening: a call while its keys so far are a call's keys
        start = parse_partial(block.strip())
        return isinstance(start, dict) and set(start) <= {"name", *self._ARGS_KEYS}

    def call_tag(self, name: str, content: dict) -> dict:
        begin = f'{{"name": "{_json_name(name)}", "parameters": '
        return {"type": "tag", "begin": begin, "content": content, "end": "}"}

    def calls_only(self, tags: list[dict], parallel: bool) -> dict:
        return {"type": "sequence",
                "elements": [_const("<|python_tag|>"), self.call_list(tags, parallel)]}

    def auto(self, tags: list[dict], parallel: bool) -> dict:
        # no end marker after a python_tag block: each call carries its own <|python_tag|>
        tags = [t | {"begin": "<|python_tag|>" + t["begin"]} for t in tags]
        return {
            "type": "triggered_tags",
            "triggers": ["<|python_tag|>"],
            "tags": tags,
            "stop_after_first": not parallel,
        }


_MISTRAL_NAMED = re.compile(r"\s*([A-Za-z0-9_.\-]+)\s*(?:\[ARGS\])?\s*(\{.*)", re.DOTALL)


class Mistral(ToolCallFormat):
    name = "mistral"
    start_markers = ("[TOOL_CALLS]",)
    marker_tokens = ("[TOOL_CALLS]", "[ARGS]")
    template_markers = ("[TOOL_CALLS]",)
    detect_rank = 1
    model_types = ("mistral", "mixtral", "ministral")
    call_separator = ", "

    def block_end(self, block: str) -> int | None:
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
            _, end = DECODER.raw_decode(block, i)
        except json.JSONDecodeError:
            return None
        return end

    def parse_block(self, block: str, tools: list[dict] | None) -> list[ParsedCall] | None:
        calls: list[ParsedCall] = []
        for part in block.split("[TOOL_CALLS]")[1:]:
            if part.lstrip().startswith(("[", "{")):
                got = parse_json_calls(part, ("arguments", "parameters"))
            else:
                m = _MISTRAL_NAMED.match(part)
                if not m:
                    return None
                try:
                    args, end = DECODER.raw_decode(m.group(2))
                except json.JSONDecodeError:
                    return None
                arguments = args_to_json(args) if not m.group(2)[end:].strip() else None
                got = None if arguments is None else [ParsedCall(m.group(1), arguments)]
            if got is None:
                return None
            calls.extend(got)
        return calls or None

    def partial_calls(self, block: str, tools: list[dict] | None) -> list[PartialCall]:
        calls: list[PartialCall] = []
        for part in block.split("[TOOL_CALLS]")[1:]:
            if part.lstrip().startswith(("[", "{")):
                calls += partial_json_calls(part, ("arguments", "parameters"))
            elif (m := _MISTRAL_NAMED.match(part)) is not None:
                calls.append((m.group(1), parse_partial(m.group(2))))
        return calls

    def call_tag(self, name: str, content: dict) -> dict:
        begin = f'{{"name": "{_json_name(name)}", "arguments": '
        return {"type": "tag", "begin": begin, "content": content, "end": "}"}

    def calls_only(self, tags: list[dict], parallel: bool) -> dict:
        return {"type": "sequence", "elements": [
            _const("[TOOL_CALLS]["), self.call_list(tags, parallel), _const("]")]}

    def auto(self, tags: list[dict], parallel: bool) -> dict:
        block = {"type": "tag", "begin": "[TOOL_CALLS][",
                 "content": self.call_list(tags, parallel), "end": "]"}
        return {
            "type": "triggered_tags",
            "triggers": ["[TOOL_CALLS]"],
            "tags": [block],
            "stop_after_first": True,
        }


# ---------------------------------------------------------------------------- registry

FORMATS: dict[str, ToolCallFormat] = {}
"""Every known format by name, in registration order."""


def register(fmt: ToolCallFormat) -> ToolCallFormat:
    """Add a format to :data:`FORMATS` (its ``name`` becomes a ``--tool-call-parser`` value)."""
    FORMATS[fmt.name] = fmt
    return fmt


for _fmt in (Hermes(), Qwen3Xml(), Llama3Json(), Mistral()):
    register(_fmt)

TOOL_FORMATS = tuple(FORMATS)
"""Names of the built-in formats."""


def get_format(name: str) -> ToolCallFormat:
    """The format called ``name``; ValueError naming the known ones if there is none."""
    fmt = FORMATS.get(name)
    if fmt is None:
        raise ValueError(f"unknown tool call format {name!r}; known: {', '.join(FORMATS)}")
    return fmt


def marker_tokens() -> frozenset[str]:
    """Every format's marker tokens (the parsers need their text)."""
    return frozenset(m for fmt in FORMATS.values() for m in fmt.marker_tokens)


def detect_tool_format(chat_template: str | None, model_type: str | None = None) -> str:
    """Guess a model's tool-call format from its chat template (and config ``model_type``).

    The ``--tool-call-parser`` flag overrides this. Falls back on the model family, then hermes.
    """
    tpl = chat_template or ""
    ranked = sorted(FORMATS.values(), key=lambda f: f.detect_rank)
    for fmt in ranked:
        if all(m in tpl for m in fmt.template_markers):
            return fmt.name
    mt = (model_type or "").lower()
    for fmt in ranked:
        if fmt.model_types and mt.startswith(fmt.model_types):
            return fmt.name
    return "hermes"
