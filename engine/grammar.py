"""Grammar constraints for structured output and tool calls, on xgrammar 0.2.9.

:func:`build_constraint` turns a request's ``response_format`` / ``tools`` / ``tool_choice`` into
a :class:`engine.types.TokenConstraint` (or None when nothing is constrained). Everything is
compiled through one structural tag per request shape and cached per model in
:class:`GrammarCompilerCache`.

What is enforced:

- ``json_object``: one JSON object; ``json_schema``: that schema. Strict and non-strict schemas
  are both enforced, in xgrammar's strict mode (no properties or items the schema does not name).
- ``tool_choice`` ``required`` / named function: only well-formed calls in the model's tool format
  to allowed functions, with schema-valid arguments; one call when ``parallel_tool_calls`` is
  false, else one or more. ``auto``: free text, but once the format's trigger appears (e.g.
  ``<tool_call>``) the call is constrained; with a JSON response format, the output is either that
  JSON or tool calls. Every tool is constrained by its ``parameters`` schema (strict or not).
- JSON is compact (``", "`` / ``": "``, no free whitespace); qwen3_xml allows one whitespace
  character between elements. Strings never contain raw control characters (xgrammar's bounded
  strings would allow them; the grammar is patched), so ``json.loads`` accepts the output.
- ``reasoning=True``: unconstrained until ``</think>`` has been generated (then up to two
  newlines and the constraint). With ``reasoning_started=False`` the first token decides: the
  ``<think>`` token opens reasoning, anything else must already follow the grammar.
- ``is_finished()`` turns True once the grammar is complete and allows nothing but a stop token
  (or a stop token was accepted). ``fill_bitmask`` leaves the row untouched when it returns False
  (the engine pre-fills rows with -1).
- Cost per step (32k vocabulary): ~1.5 us fill + ~1.5 us accept; see
  ``tools/bench_lib/mask_overhead.py``.

Schemas the grammar engine cannot enforce raise :class:`GrammarError` (see
:data:`UNSUPPORTED_KEYWORDS`, unknown string ``format``s, remote ``$ref``s, ``allOf`` with more
than one branch, and whatever xgrammar itself rejects, with its message).
"""

from __future__ import annotations

import json
import logging
import re
import threading
from collections import OrderedDict
from functools import lru_cache
from typing import Any

import numpy as np
import xgrammar as xgr

from engine.reasoning import THINK_END, THINK_START
from engine.tool_formats import ToolCallFormat, get_format, marker_tokens

log = logging.getLogger(__name__)

UNSUPPORTED_KEYWORDS = {
    "not": "'not'",
    "if": "'if'/'then'/'else'",
    "then": "'if'/'then'/'else'",
    "else": "'if'/'then'/'else'",
    "contains": "'contains'",
    "minContains": "'minContains'",
    "maxContains": "'maxContains'",
    "dependentRequired": "'dependentRequired'",
    "dependentSchemas": "'dependentSchemas'",
    "dependencies": "'dependencies'",
    "$dynamicRef": "'$dynamicRef'",
    "unevaluatedItems": "'unevaluatedItems'",
}
"""Keywords xgrammar would silently ignore: rejected instead."""

SUPPORTED_FORMATS = frozenset(
    {
        "email", "date", "time", "date-time", "duration", "uuid", "uri", "uri-reference",
        "uri-template", "ipv4", "ipv6", "hostname", "json-pointer", "relative-json-pointer",
    }
)  # fmt: skip
"""String ``format`` values xgrammar enforces (measured on 0.2.9); others are rejected."""

_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions")
_SCHEMA_VALUES = ("items", "additionalProperties", "propertyNames", "additionalItems")

# Leading whitespace allowed right after </think>.
_AFTER_THINK = {"type": "grammar", "grammar": 'root ::= "" | "\\n" | "\\n\\n"'}
_XGR_PREFIX = re.compile(r"^\[[^\]]*\]\s*\S+:\d+:\s*")


class GrammarError(ValueError):
    """A schema or tool definition the grammar engine cannot enforce (maps to HTTP 400)."""


def _clean(msg: str) -> str:
    return _XGR_PREFIX.sub("", str(msg).strip()).strip()


# ---------------------------------------------------------------------------- schema checks


def check_schema(schema: Any, where: str = "schema") -> None:
    """Raise GrammarError for JSON-schema features the grammar engine cannot enforce."""
    _check(schema, where, "#")


def _check(schema: Any, where: str, path: str) -> None:
    if isinstance(schema, bool):
        if schema is False and path == "#":
            raise GrammarError(f"{where}: the schema 'false' matches nothing")
        return
    if not isinstance(schema, dict):
        raise GrammarError(f"{where} at {path}: a schema must be an object or a boolean")
    for key, label in UNSUPPORTED_KEYWORDS.items():
        if key in schema:
            raise GrammarError(f"{where} at {path}: {label} is not supported by the grammar engine")
    if schema.get("uniqueItems") is True:
        raise GrammarError(
            f"{where} at {path}: 'uniqueItems' is not supported by the grammar engine"
        )
    ref = schema.get("$ref")
    if ref is not None and (not isinstance(ref, str) or not ref.startswith("#")):
        raise GrammarError(
            f"{where} at {path}: only local '$ref's ('#/...') are supported, got {ref!r}"
        )
    fmt = schema.get("format")
    if fmt is not None and fmt not in SUPPORTED_FORMATS:
        raise GrammarError(
            f"{where} at {path}: string format {fmt!r} is not supported; supported: "
            + ", ".join(sorted(SUPPORTED_FORMATS))
        )
    all_of = schema.get("allOf")
    if isinstance(all_of, list) and len(all_of) > 1:
        raise GrammarError(f"{where} at {path}: 'allOf' with more than one schema is not supported")
    for key in _SCHEMA_LISTS:
        sub = schema.get(key)
        if isinstance(sub, list):
            for i, s in enumerate(sub):
                _check(s, where, f"{path}/{key}/{i}")
    for key in _SCHEMA_MAPS:
        sub = schema.get(key)
        if isinstance(sub, dict):
            for name, s in sub.items():
                _check(s, where, f"{path}/{key}/{name}")
    for key in _SCHEMA_VALUES:
        sub = schema.get(key)
        if isinstance(sub, dict | bool):
            _check(sub, where, f"{path}/{key}")
        elif isinstance(sub, list):
            for i, s in enumerate(sub):
                _check(s, where, f"{path}/{key}/{i}")


@lru_cache(maxsize=512)
def _json_ebnf_cached(schema_json: str) -> str:
    try:
        grammar = xgr.Grammar.from_json_schema(schema_json, any_whitespace=False, strict_mode=True)
    except Exception as e:  # xgrammar raises RuntimeError/ValueError with C++ context
        raise GrammarError(_clean(str(e))) from e
    text = str(grammar)
    # Bounded strings use [^"\\\r\n]: also exclude the other control characters (invalid JSON).
    return text.replace('[^\\"\\\\\\r\\n]', '[^\\"\\\\\\0-\\x1f]')


def json_ebnf(schema: Any, where: str = "schema") -> str:
    """Compact-JSON EBNF for a (checked) schema."""
    check_schema(schema, where)
    if schema is True:
        schema = {}
    try:
        # not sort_keys: the grammar emits properties in the schema's order (as OpenAI does;
        # clients order fields on purpose, e.g. reasoning before answer)
        return _json_ebnf_cached(json.dumps(schema))
    except GrammarError as e:
        raise GrammarError(f"{where}: {e}") from None


# ---------------------------------------------------------------------------- compiler cache


# Special tokens whose text the reasoning and tool-call parsers need (never masked as textless).
_MARKERS = frozenset({THINK_START, THINK_END}) | marker_tokens()


def _textless_ids(tok: Any, vocab_size: int) -> set[int]:
    """Ids of special tokens (``special=True`` added tokens, ``all_special_ids``), which the
    detokenizer turns into no text, less the parsers' markers."""
    added = getattr(tok, "added_tokens_decoder", None) or {}
    ids = {int(i) for i, t in added.items() if getattr(t, "special", False)}
    ids |= {int(i) for i in getattr(tok, "all_special_ids", None) or []}
    markers = {int(i) for i, t in added.items() if str(getattr(t, "content", t)) in _MARKERS}
    return {i for i in ids - markers if 0 <= i < vocab_size}


class GrammarCompilerCache:
    """Per-model xgrammar compiler with a cache of compiled structural tags.

    ``hf_tokenizer`` is a Hugging Face tokenizer (an mlx-lm ``TokenizerWrapper`` is unwrapped);
    ``vocab_size`` is the model's lm_head size (the bitmask covers ``ceil(vocab_size / 32)`` words).
    ``stop_token_ids`` must be every id the engine stops on (a wrapper's ``eos_token_ids`` by
    default): a stop id the grammar takes for text (Qwen's ``<|endoftext|>`` from
    generation_config.json) would be allowed inside a JSON string and end the output there.
    """

    def __init__(
        self,
        hf_tokenizer: Any,
        vocab_size: int,
        *,
        stop_token_ids: list[int] | None = None,
        max_entries: int = 256,
    ) -> None:
        tok = hf_tokenizer
        if type(tok).__name__ == "TokenizerWrapper":  # mlx-lm wrapper around the HF tokenizer
            if stop_token_ids is None:
                stop_token_ids = sorted(tok.eos_token_ids)
            tok = tok._tokenizer
        self.vocab_size = vocab_size
        self.info = xgr.TokenizerInfo.from_huggingface(
            tok, vocab_size=vocab_size, stop_token_ids=stop_token_ids
        )
        self.compiler = xgr.GrammarCompiler(self.info, max_threads=2, cache_enabled=True)
        self.stop_token_ids = [int(t) for t in self.info.stop_token_ids]
        self.token_bytes: list[bytes] = list(self.info.decoded_vocab)
        vocab = tok.get_vocab()
        self.think_token_id: int | None = vocab.get(THINK_START)
        self.words = (vocab_size + 31) // 32
        # AND-mask that clears stop tokens and bits past the vocabulary.
        keep = np.zeros(self.words * 32, dtype=bool)
        keep[:vocab_size] = True
        keep[[t for t in self.stop_token_ids if t < vocab_size]] = False
        self.non_stop_mask = np.packbits(keep, bitorder="little").view(np.int32).copy()
        # AND-mask that clears special tokens the detokenizer drops (no text), or None: inside
        # constrained output they would count as characters the client never sees.
        textless = _textless_ids(tok, vocab_size) - set(self.stop_token_ids)
        self.visible_mask: np.ndarray | None = None
        if textless:
            visible = np.ones(self.words * 32, dtype=bool)
            visible[sorted(textless)] = False
            self.visible_mask = np.packbits(visible, bitorder="little").view(np.int32).copy()
        self._max = max_entries
        self._compiled: OrderedDict[str, xgr.CompiledGrammar] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def compile(self, body: dict) -> xgr.CompiledGrammar:
        """Compile a structural-tag format (cached by its JSON text)."""
        key = json.dumps(body)  # order-sensitive: property order is part of the grammar
        with self._lock:
            got = self._compiled.get(key)
            if got is not None:
                self._compiled.move_to_end(key)
                self.hits += 1
                return got
        try:
            compiled = self.compiler.compile_structural_tag(
                {"type": "structural_tag", "format": body}
            )
        except Exception as e:
            raise GrammarError(f"grammar could not be compiled: {_clean(str(e))}") from e
        with self._lock:
            self.misses += 1
            self._compiled[key] = compiled
            while len(self._compiled) > self._max:
                self._compiled.popitem(last=False)
        return compiled

    def clear(self) -> None:
        """Forget every compiled grammar (here, in the compiler and the schema EBNF cache), so
        the next build compiles cold."""
        _json_ebnf_cached.cache_clear()
        self.compiler.clear_cache()
        with self._lock:
            self._compiled.clear()

    def allocate_bitmask(self, batch: int = 1) -> np.ndarray:
        """A zeroed int32 bitmask of shape [batch, ceil(vocab/32)]."""
        return np.zeros((batch, self.words), dtype=np.int32)


# ---------------------------------------------------------------------------- constraint


class GrammarConstraint:
    """A :class:`engine.types.TokenConstraint` over one xgrammar matcher."""

    def __init__(
        self,
        cache: GrammarCompilerCache,
        compiled: xgr.CompiledGrammar,
        *,
        reasoning: bool = False,
        reasoning_started: bool = True,
    ) -> None:
        self._cache = cache
        self.matcher = xgr.GrammarMatcher(compiled)
        self._scratch = cache.allocate_bitmask(1)
        self._tail = b""
        self._finished = False
        self.rejected = False
        if not reasoning:
            self.phase = "grammar"
        elif reasoning_started:
            self.phase = "think"
        elif cache.think_token_id is None:
            # no single <think> token to allow first: the output cannot open reasoning
            # (waiting for a </think> that never comes would leave the output unconstrained)
            self.phase = "grammar"
        else:
            self.phase = "maybe"  # first token: <think> opens reasoning, else grammar

    def fill_bitmask(self, bitmask: np.ndarray, row: int) -> bool:
        if self.phase == "think" or self._finished:
            return False
        need = self.matcher.fill_next_token_bitmask(bitmask, row)
        if need and self._cache.visible_mask is not None:
            bitmask[row] &= self._cache.visible_mask
        if self.phase == "maybe":
            tid = self._cache.think_token_id
            assert tid is not None
            word, bit = divmod(tid, 32)
            bitmask[row, word] |= np.array(1 << bit, dtype=np.uint32).view(np.int32)
            return True
        return bool(need)

    def accept(self, token_id: int) -> None:
        token_id = int(token_id)
        if self._finished:
            return
        if self.phase == "maybe":
            if token_id == self._cache.think_token_id:
                self.phase = "think"
                return
            self.phase = "grammar"
        if self.phase == "think":
            if token_id < len(self._cache.token_bytes):
                self._tail = (self._tail + self._cache.token_bytes[token_id])[-64:]
            end = self._tail.find(THINK_END.encode())
            if end != -1:
                rest = self._tail[end + len(THINK_END) :]
                self.phase = "grammar"
                self._tail = b""
                if rest and not self.matcher.accept_string(rest):
                    log.warning("text after </think> does not match the grammar: %r", rest)
                self._check_done()
            return
        if not self.matcher.accept_token(token_id):
            log.warning("grammar rejected token %d; ending constrained output", token_id)
            self.rejected = True
            self._finished = True
            return
        self._check_done()

    def _check_done(self) -> None:
        m = self.matcher
        if m.is_terminated():
            self._finished = True
        elif m.is_completed():
            m.fill_next_token_bitmask(self._scratch, 0)
            if not np.any(self._scratch[0] & self._cache.non_stop_mask):
                self._finished = True

    def is_finished(self) -> bool:
        return self._finished


# ---------------------------------------------------------------------------- tool formats


def _function(tool: dict) -> dict:
    fn = tool.get("function") if isinstance(tool, dict) else None
    if not isinstance(fn, dict) or not isinstance(fn.get("name"), str) or not fn["name"]:
        raise GrammarError("each tool needs a function with a name")
    return fn


def _tool_params(fn: dict) -> Any:
    params = fn.get("parameters")
    return {"type": "object", "properties": {}} if params is None else params


def _call_tag(fmt: ToolCallFormat, fn: dict) -> dict:
    """The structural tag of one call to ``fn``, its arguments constrained by its schema."""
    name = fn["name"]
    where = f"tool {name!r} parameters"
    params = _tool_params(fn)
    if fmt.xml_arguments:
        check_schema(params, where)
        if not (isinstance(params, dict) and params.get("type", "object") == "object"):
            raise GrammarError(f"{where}: {fmt.name} tool parameters must be an object schema")
        content = {
            "type": "json_schema",
            "json_schema": params,
            "style": "qwen_xml",
            "max_whitespace_cnt": 1,
        }
    else:
        content = {"type": "grammar", "grammar": json_ebnf(params, where)}
    return fmt.call_tag(name, content)


# ---------------------------------------------------------------------------- entry point


def _response_format_body(response_format: dict | None) -> dict | None:
    if not response_format:
        return None
    kind = response_format.get("type", "text")
    if kind == "text":
        return None
    if kind == "json_object":
        return {"type": "grammar", "grammar": json_ebnf({"type": "object"}, "json_object")}
    if kind == "json_schema":
        spec = response_format.get("json_schema") or {}
        schema = spec.get("schema", {"type": "object"}) if isinstance(spec, dict) else None
        name = spec.get("name", "") if isinstance(spec, dict) else ""
        return {"type": "grammar", "grammar": json_ebnf(schema, f"json_schema {name!r}".strip())}
    raise GrammarError(f"response_format type {kind!r} is not supported")


def _select_tools(
    tools: list[dict] | None, tool_choice: str | dict | None
) -> tuple[str, list[dict]]:
    """Normalise tool_choice to (mode, functions): mode is none, auto, required or named."""
    fns = [_function(t) for t in tools or [] if t.get("type", "function") == "function"]
    if tool_choice is None:
        tool_choice = "auto" if fns else "none"
    if isinstance(tool_choice, dict):
        fn = tool_choice.get("function") or {}
        name = fn.get("name") if isinstance(fn, dict) else None
        name = name or tool_choice.get("name")
        chosen = [f for f in fns if f["name"] == name]
        if not chosen:
            raise GrammarError(f"tool_choice names function {name!r}, which is not in tools")
        return "named", chosen[:1]
    if tool_choice == "none" or not fns:
        if tool_choice == "required":
            raise GrammarError("tool_choice 'required' needs at least one function tool")
        return "none", []
    if tool_choice in ("auto", "required"):
        return tool_choice, fns
    raise GrammarError(f"unknown tool_choice {tool_choice!r}")


def build_body(
    *,
    response_format: dict | None,
    tools: list[dict] | None,
    tool_choice: str | dict | None,
    parallel_tool_calls: bool,
    tool_format: str,
    reasoning: bool,
) -> dict | None:
    """The structural-tag format for a request, or None when nothing is constrained."""
    fmt = get_format(tool_format)
    mode, fns = _select_tools(tools, tool_choice)
    json_body = _response_format_body(response_format)
    body: dict | None
    if mode in ("required", "named"):
        tags = [_call_tag(fmt, f) for f in fns]
        body = fmt.calls_only(tags, parallel_tool_calls and mode == "required")
    elif mode == "auto":
        tags = [_call_tag(fmt, f) for f in fns]
        if json_body is not None:
            calls = fmt.calls_only(tags, parallel_tool_calls)
            body = {"type": "or", "elements": [json_body, calls]}
        else:
            body = fmt.auto(tags, parallel_tool_calls)
    else:
        body = json_body
    if body is not None and reasoning:
        body = {"type": "sequence", "elements": [_AFTER_THINK, body]}
    return body


def build_constraint(
    cache: GrammarCompilerCache,
    *,
    response_format: dict | None,
    tools: list[dict] | None,
    tool_choice: str | dict | None,
    parallel_tool_calls: bool,
    tool_format: str,
    reasoning: bool,
    reasoning_started: bool = True,
) -> GrammarConstraint | None:
    """A fresh per-request constraint, or None when the request is unconstrained.

    Raises GrammarError (a ValueError) for schemas, tools or tool_choice values that cannot be
    enforced. Compiles are cached in ``cache``; call on any thread.
    """
    body = build_body(
        response_format=response_format,
        tools=tools,
        tool_choice=tool_choice,
        parallel_tool_calls=parallel_tool_calls,
        tool_format=tool_format,
        reasoning=reasoning,
    )
    if body is None:
        return None
    compiled = cache.compile(body)
    return GrammarConstraint(
        cache, compiled, reasoning=reasoning, reasoning_started=reasoning_started
    )
