"""Grammar constraints driven by random sampling over a real tokenizer's vocabulary.

No model runs here: each step draws random logits (temperature 1.0), masks them with the
constraint's bitmask, samples, and feeds the token back, until ``is_finished()``. Whatever the
"model" does, the text must parse and validate. Strings and arrays in ``tests/schemas`` are
bounded (``maxLength`` / ``maxItems``) because a random-weight model rarely closes an open string
or array by chance; the caller's ``max_tokens`` is what bounds unbounded ones in production.
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import numpy as np
import pytest

from engine.grammar import (
    GrammarCompilerCache,
    GrammarError,
    build_constraint,
    check_schema,
)
from engine.tool_calls import parse_tool_calls
from serving.output_parser import OutputProcessor

SCHEMAS = sorted((Path(__file__).parent / "schemas").glob("*.json"))
SEEDS = (0, 1, 2)
MAX_STEPS = 400
MODELS = {
    "hermes": "tiny",
    "qwen3_xml": "tiny-qwen3-xml",
    "llama3_json": "tiny-llama3",
    "mistral": "tiny-mistral",
}
TRIGGER = {
    "hermes": "<tool_call>",
    "qwen3_xml": "<tool_call>",
    "llama3_json": "<|python_tag|>",
    "mistral": "[TOOL_CALLS]",
}


class Harness:
    def __init__(self, model: str) -> None:
        from transformers import AutoTokenizer

        from modelbuilder import ensure_model

        path = ensure_model(model)
        self.tok = AutoTokenizer.from_pretrained(path)
        vocab_size = json.loads((path / "config.json").read_text())["vocab_size"]
        self.cache = GrammarCompilerCache(self.tok, vocab_size)
        self.vocab = vocab_size

    def sample(
        self, con, seed: int, prefix: list[int] = (), until: str | None = None
    ) -> tuple[str, bool]:
        """Random-sample under ``con``; return (text without stop tokens, finished)."""
        rng = np.random.default_rng(seed)
        bitmask = self.cache.allocate_bitmask(1)
        ids: list[int] = []
        for t in prefix:
            con.accept(t)
            ids.append(t)
        for _ in range(MAX_STEPS):
            if con.is_finished():
                break
            bitmask[:] = 0
            logits = rng.standard_normal(self.vocab)
            if con.fill_bitmask(bitmask, 0):
                bits = np.unpackbits(bitmask[0].view(np.uint8), bitorder="little")
                logits[~bits[: self.vocab].astype(bool)] = -np.inf
            p = np.exp(logits - logits.max())
            t = int(rng.choice(self.vocab, p=p / p.sum()))
            if t in self.cache.stop_token_ids:
                con.accept(t)
                break
            con.accept(t)
            ids.append(t)
            if until and until in self.tok.decode(ids[-8:]):
                break
        return self.tok.decode(ids), con.is_finished()


_HARNESS: dict[str, Harness] = {}


def harness(model: str = "tiny") -> Harness:
    if model not in _HARNESS:
        _HARNESS[model] = Harness(model)
    return _HARNESS[model]


def rf_schema(schema: dict) -> dict:
    return {"type": "json_schema", "json_schema": {"name": "t", "strict": True, "schema": schema}}


def constraint(h: Harness, **kw):
    args = dict(
        response_format=None,
        tools=None,
        tool_choice=None,
        parallel_tool_calls=True,
        tool_format="hermes",
        reasoning=False,
    )
    args.update(kw)
    return build_constraint(h.cache, **args)


# ------------------------------------------------------------------------------- JSON schemas


def test_suite_size() -> None:
    assert len(SCHEMAS) >= 20


@pytest.mark.parametrize("path", SCHEMAS, ids=lambda p: p.stem)
def test_schema_random_sampling_validates(path: Path) -> None:
    h = harness()
    schema = json.loads(path.read_text())
    for seed in SEEDS:
        con = constraint(h, response_format=rf_schema(schema))
        text, finished = h.sample(con, seed)
        assert finished, f"{path.stem} seed {seed} did not finish: {text!r}"
        value = json.loads(text)  # strict: no raw control characters
        jsonschema.validate(value, schema)
        assert "\n" not in text and "\t" not in text  # compact, no free whitespace


def test_json_object_mode() -> None:
    h = harness()
    done = 0
    for seed in range(12):  # ~1 in 8 finishes within MAX_STEPS under random logits
        con = constraint(h, response_format={"type": "json_object"})
        text, finished = h.sample(con, seed)
        if finished:  # free-form JSON may run long under random logits
            assert isinstance(json.loads(text), dict)
            done += 1
        else:
            assert text.startswith("{")
    assert done >= 1


def test_text_format_is_unconstrained() -> None:
    h = harness()
    assert constraint(h, response_format={"type": "text"}) is None
    assert constraint(h) is None
    tools = [_tool("f", {"type": "object"})]
    assert constraint(h, tools=tools, tool_choice="none") is None


def test_compile_is_cached() -> None:
    h = harness()
    schema = json.loads(SCHEMAS[0].read_text())
    constraint(h, response_format=rf_schema(schema))
    hits = h.cache.hits
    constraint(h, response_format=rf_schema(schema))
    assert h.cache.hits == hits + 1


def test_reasoning_waits_for_think_end() -> None:
    h = harness()
    schema = {"type": "object", "properties": {"a": {"type": "boolean"}}, "required": ["a"]}
    con = constraint(h, response_format=rf_schema(schema), reasoning=True)
    bitmask = h.cache.allocate_bitmask(1)
    prefix = h.tok.encode("some thoughts here", add_special_tokens=False)
    for t in prefix:
        assert con.fill_bitmask(bitmask, 0) is False
        con.accept(t)
    end = h.tok.convert_tokens_to_ids("</think>")
    con.accept(end)
    assert con.fill_bitmask(bitmask, 0) is True
    text, finished = h.sample(con, 0)
    assert finished
    jsonschema.validate(json.loads(text), schema)  # up to two newlines may lead


def test_reasoning_not_started_first_token_decides() -> None:
    h = harness()
    schema = {"type": "object", "properties": {"a": {"type": "boolean"}}, "required": ["a"]}
    think = h.tok.convert_tokens_to_ids("<think>")
    # first token is <think>: unconstrained until </think>
    con = constraint(h, response_format=rf_schema(schema), reasoning=True, reasoning_started=False)
    bitmask = h.cache.allocate_bitmask(1)
    assert con.fill_bitmask(bitmask, 0) is True
    assert (bitmask[0, think // 32] >> (think % 32)) & 1
    con.accept(think)
    assert con.fill_bitmask(bitmask, 0) is False
    # first token is anything else: constrained from the start
    con = constraint(h, response_format=rf_schema(schema), reasoning=True, reasoning_started=False)
    for seed in SEEDS:
        con = constraint(
            h, response_format=rf_schema(schema), reasoning=True, reasoning_started=False
        )
        text, finished = h.sample(con, seed)
        assert finished
        if not text.startswith("<think>"):
            jsonschema.validate(json.loads(text), schema)


# ------------------------------------------------------------------------------- tools


def _tool(name: str, params: dict | None, strict: bool | None = None) -> dict:
    fn: dict = {"name": name}
    if params is not None:
        fn["parameters"] = params
    if strict is not None:
        fn["strict"] = strict
    return {"type": "function", "function": fn}


WEATHER = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "maxLength": 8},
        "days": {"type": "integer", "minimum": 1, "maximum": 7},
        "unit": {"enum": ["c", "f"]},
    },
    "required": ["city", "days"],
    "additionalProperties": False,
}
SEARCH = {
    "type": "object",
    "properties": {
        "q": {"type": "string", "maxLength": 6},
        "filters": {"type": "array", "items": {"type": "boolean"}, "maxItems": 2},
        "exact": {"type": "boolean"},
    },
    "required": ["q"],
}
TOOLS = [_tool("get_weather", WEATHER, strict=True), _tool("search", SEARCH), _tool("ping", None)]
PARAMS = {"get_weather": WEATHER, "search": SEARCH, "ping": {"type": "object"}}


def _check_calls(text: str, fmt: str, allowed: set[str]) -> list:
    content, calls = parse_tool_calls(text, fmt, TOOLS)
    assert calls, f"no calls parsed from {text!r}"
    assert content is None, f"unexpected content {content!r} in {text!r}"
    for c in calls:
        assert c.name in allowed
        jsonschema.validate(json.loads(c.arguments_json), PARAMS[c.name])
    # the streaming processor reads the same calls
    proc = OutputProcessor(fmt, TOOLS, reasoning_started=False, parse_tools=True)
    for i in range(0, len(text), 3):
        proc.feed(text[i : i + 3])
    final = proc.finish()
    assert [(c.name, c.arguments_json) for c in final.tool_calls] == [
        (c.name, c.arguments_json) for c in calls
    ]
    return calls


@pytest.mark.parametrize("fmt", list(MODELS))
@pytest.mark.parametrize("parallel", [True, False])
def test_tool_choice_required(fmt: str, parallel: bool) -> None:
    h = harness(MODELS[fmt])
    for seed in SEEDS:
        con = constraint(
            h, tools=TOOLS, tool_choice="required", tool_format=fmt, parallel_tool_calls=parallel
        )
        text, finished = h.sample(con, seed)
        assert finished, text
        calls = _check_calls(text, fmt, set(PARAMS))
        if not parallel:
            assert len(calls) == 1


@pytest.mark.parametrize("fmt", list(MODELS))
def test_tool_choice_named(fmt: str) -> None:
    h = harness(MODELS[fmt])
    choice = {"type": "function", "function": {"name": "search"}}
    for seed in SEEDS:
        con = constraint(h, tools=TOOLS, tool_choice=choice, tool_format=fmt)
        text, finished = h.sample(con, seed)
        assert finished, text
        calls = _check_calls(text, fmt, {"search"})
        assert len(calls) == 1


@pytest.mark.parametrize("fmt", list(MODELS))
def test_tool_choice_auto_constrains_after_trigger(fmt: str) -> None:
    h = harness(MODELS[fmt])
    trigger = h.tok.convert_tokens_to_ids(TRIGGER[fmt])
    intro = h.tok.encode("Let me check.", add_special_tokens=False)
    end = "</tool_call>" if fmt in ("hermes", "qwen3_xml") else None
    for seed in SEEDS:
        con = constraint(
            h, tools=TOOLS, tool_choice="auto", tool_format=fmt, parallel_tool_calls=False
        )
        bitmask = h.cache.allocate_bitmask(1)
        masked = con.fill_bitmask(bitmask, 0)  # False: nothing masked, every token allowed
        allowed = [not masked or (int(bitmask[0, t // 32]) >> (t % 32)) & 1 for t in intro]
        assert all(allowed), (masked, allowed)  # free text before the trigger
        text, _ = h.sample(con, seed, prefix=[*intro, trigger], until=end)
        content, calls = parse_tool_calls(text, fmt, TOOLS)
        assert content == "Let me check."
        assert len(calls) == 1, text
        jsonschema.validate(json.loads(calls[0].arguments_json), PARAMS[calls[0].name])


def test_auto_with_json_schema_is_json_or_calls() -> None:
    h = harness()
    schema = {"type": "object", "properties": {"x": {"type": "boolean"}}, "required": ["x"]}
    for seed in range(4):
        con = constraint(h, tools=TOOLS, tool_choice="auto", response_format=rf_schema(schema))
        text, finished = h.sample(con, seed)
        assert finished
        if text.startswith("{"):
            jsonschema.validate(json.loads(text), schema)
        else:
            _check_calls(text, "hermes", set(PARAMS))


# ------------------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    ("schema", "needle"),
    [
        ({"not": {"type": "string"}}, "'not'"),
        ({"if": {"type": "string"}, "then": {"maxLength": 2}}, "'if'"),
        ({"type": "array", "uniqueItems": True}, "uniqueItems"),
        ({"type": "array", "contains": {"type": "integer"}}, "contains"),
        ({"$ref": "https://example.com/schema.json"}, "local '$ref'"),
        ({"type": "string", "format": "credit-card"}, "credit-card"),
        ({"allOf": [{"type": "object"}, {"required": ["a"]}]}, "allOf"),
        ({"type": "object", "dependentRequired": {"a": ["b"]}}, "dependentRequired"),
        ({"$ref": "#/$defs/missing"}, "$defs"),
        ({"type": "string", "pattern": "(?<=a)b"}, "Lookbehind"),
        ({"type": "integer", "minimum": 5, "maximum": 1}, "minimum"),
        ({"type": "strnig"}, "strnig"),
        (False, "matches nothing"),
        ({"properties": {"a": {"not": {}}}}, "#/properties/a"),
    ],
)
def test_unsupported_schema_raises(schema, needle: str) -> None:
    h = harness()
    with pytest.raises(GrammarError) as err:
        constraint(h, response_format=rf_schema(schema))
    assert needle in str(err.value)


def test_tool_errors() -> None:
    h = harness()
    with pytest.raises(GrammarError, match="not in tools"):
        constraint(h, tools=TOOLS, tool_choice={"type": "function", "function": {"name": "nope"}})
    with pytest.raises(GrammarError, match="required"):
        constraint(h, tools=None, tool_choice="required")
    bad = [_tool("f", {"type": "object", "properties": {"a": {"not": {}}}})]
    with pytest.raises(GrammarError, match="tool 'f'"):
        constraint(h, tools=bad, tool_choice="required")


def test_check_schema_accepts_supported_features() -> None:
    for path in SCHEMAS:
        check_schema(json.loads(path.read_text()))
