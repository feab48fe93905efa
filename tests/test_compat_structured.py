"""Structured output through the official openai SDK against a live `afm serve`.

The test model has random weights, so whatever it "wants" to say is noise: only the grammar makes
the output valid. Every schema is sampled at temperature 1.0 over several seeds, streamed and not,
and validated with jsonschema. Strings and arrays in ``tests/schemas`` are bounded (``maxLength``
/ ``maxItems``) because a random-weight model rarely closes an open string or array by chance.

Structure requests pass ``enable_thinking: false``: the tiny model's chat template leaves thinking
on by default, and a random model that opens ``<think>`` rarely closes it (the constraint waits for
``</think>``; that path is tested in ``test_compat_reasoning.py``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Literal

import jsonschema
import openai
import pytest
from pydantic import BaseModel, Field

from tests.conftest import LiveServer

pytestmark = pytest.mark.slow

SCHEMAS = sorted((Path(__file__).parent / "schemas").glob("*.json"))
SEEDS = (0, 1, 2)
NO_THINK: dict[str, Any] = {"chat_template_kwargs": {"enable_thinking": False}}
MESSAGES = [{"role": "user", "content": "Fill in the form."}]
MAX_TOKENS = 400  # every suite schema is bounded well below this
GUIDED = {"type": "object", "properties": {"answer": {"enum": ["yes", "no"]}},
          "required": ["answer"], "additionalProperties": False}


def rf(schema: dict, name: str = "s", strict: bool | None = True) -> dict:
    spec: dict[str, Any] = {"name": name, "schema": schema}
    if strict is not None:
        spec["strict"] = strict
    return {"type": "json_schema", "json_schema": spec}


def create(client: Any, stream: bool = False, **kw: Any) -> tuple[str | None, str | None]:
    """(content, finish_reason) of one request; a stream is joined from its deltas."""
    kw.setdefault("model", "tiny")
    kw.setdefault("messages", MESSAGES)
    kw.setdefault("extra_body", NO_THINK)
    if not stream:
        r = client.chat.completions.create(**kw)
        return r.choices[0].message.content, r.choices[0].finish_reason
    parts: list[str] = []
    finish = None
    for chunk in client.chat.completions.create(stream=True, **kw):
        for choice in chunk.choices:
            parts.append(choice.delta.content or "")
            finish = choice.finish_reason or finish
    return "".join(parts), finish


def check_json(content: str | None, schema: dict) -> Any:
    assert content is not None
    value = json.loads(content)
    jsonschema.validate(value, schema)
    return value


def test_suite_size() -> None:
    assert len(SCHEMAS) >= 20


@pytest.mark.parametrize("path", SCHEMAS, ids=lambda p: p.stem)
def test_schema_suite(client: Any, path: Path) -> None:
    """Each schema: valid at temperature 1.0 for every seed; the stream equals the JSON reply."""
    schema = json.loads(path.read_text())
    for seed in SEEDS:
        kw = dict(response_format=rf(schema, path.stem), temperature=1.0, seed=seed,
                  max_tokens=MAX_TOKENS)
        content, finish = create(client, **kw)
        assert finish == "stop", (seed, content)
        check_json(content, schema)
        streamed, sfinish = create(client, stream=True, **kw)
        assert (streamed, sfinish) == (content, finish), seed


def test_non_strict_schema_is_enforced_too(client: Any) -> None:
    schema = json.loads((Path(__file__).parent / "schemas" / "flat_required.json").read_text())
    for seed in SEEDS:
        content, finish = create(client, response_format=rf(schema, strict=None),
                                 temperature=1.0, seed=seed, max_tokens=MAX_TOKENS)
        assert finish == "stop"
        check_json(content, schema)


def test_properties_in_schema_order(client: Any) -> None:
    """Fields come out in the schema's order (as OpenAI emits them; clients order fields on
    purpose), not sorted; two orders of one schema are two grammars."""
    props = {"zeta": {"type": "boolean"}, "alpha": {"enum": ["x", "y"]},
             "mid": {"type": "integer", "minimum": 0, "maximum": 9}, "opt": {"type": "boolean"}}
    for order in (["zeta", "alpha", "mid", "opt"], ["opt", "mid", "alpha", "zeta"]):
        schema = {"type": "object", "properties": {k: props[k] for k in order},
                  "required": [k for k in order if k != "opt"], "additionalProperties": False}
        for seed in SEEDS:
            content, _ = create(client, response_format=rf(schema), temperature=1.0, seed=seed,
                                max_tokens=64)
            keys = list(check_json(content, schema))
            assert keys == [k for k in order if k in keys], content


Short = Annotated[str, Field(max_length=6)]


class Address(BaseModel):
    city: Short
    zip: Annotated[str, Field(pattern=r"^[0-9]{5}$")]


class Person(BaseModel):
    name: Short
    age: Annotated[int, Field(ge=0, le=130)]
    role: Literal["admin", "user", "guest"]
    tags: Annotated[list[Short], Field(max_length=3)]
    address: Address
    nickname: Short | None


def test_sdk_parse_pydantic(client: Any) -> None:
    """`chat.completions.parse(response_format=Model)`: the SDK's strict schema, parsed back."""
    for seed in SEEDS:
        r = client.chat.completions.parse(
            model="tiny", messages=MESSAGES, response_format=Person, temperature=1.0,
            seed=seed, max_tokens=MAX_TOKENS, extra_body=NO_THINK)
        choice = r.choices[0]
        assert choice.finish_reason == "stop"
        assert isinstance(choice.message.parsed, Person)
        assert choice.message.parsed == Person.model_validate_json(choice.message.content)
        assert list(json.loads(choice.message.content)) == list(Person.model_fields)


def test_sdk_stream_pydantic(client: Any) -> None:
    """`chat.completions.stream(response_format=Model)`: the stream helper parses the result."""
    for seed in SEEDS:
        with client.chat.completions.stream(
                model="tiny", messages=MESSAGES, response_format=Person, temperature=1.0,
                seed=seed, max_tokens=MAX_TOKENS, extra_body=NO_THINK) as stream:
            final = stream.get_final_completion()
        assert final.choices[0].finish_reason == "stop"
        assert isinstance(final.choices[0].message.parsed, Person)


def json_object_prefix(text: str) -> bool:
    """True if ``text`` is a prefix of some JSON object (checked with xgrammar itself)."""
    import xgrammar as xgr
    from transformers import AutoTokenizer

    from engine.grammar import json_ebnf
    from modelbuilder import ensure_model

    info = xgr.TokenizerInfo.from_huggingface(AutoTokenizer.from_pretrained(ensure_model("tiny")))
    grammar = xgr.GrammarCompiler(info).compile_grammar(json_ebnf({"type": "object"}))
    return bool(xgr.GrammarMatcher(grammar).accept_string(text))


def test_json_object_mode(client: Any) -> None:
    """json_object: one JSON object, streamed and not. Nothing bounds its strings and a random
    model closes one only by chance, so a run may hit max_tokens: then the text must still be a
    JSON-object prefix (the constraint held at every token); most runs complete."""
    complete = 0
    for seed in (*SEEDS, 3):
        kw = dict(response_format={"type": "json_object"}, temperature=1.0, seed=seed,
                  max_tokens=1500)
        content, finish = create(client, **kw)
        assert create(client, stream=True, **kw) == (content, finish)
        if finish == "stop":
            assert isinstance(json.loads(content or ""), dict)
            complete += 1
        else:
            assert finish == "length" and json_object_prefix(content or ""), content
    assert complete >= 2


def test_text_format_is_unconstrained(client: Any) -> None:
    content, _ = create(client, response_format={"type": "text"}, temperature=1.0, seed=0,
                        max_tokens=24)
    with pytest.raises(ValueError):
        json.loads(content or "")  # random weights: free text is never JSON


# ----------------------------------------------------------------------------- errors


def _bad_request(fn: Callable[[], Any]) -> openai.BadRequestError:
    with pytest.raises(openai.BadRequestError) as info:
        fn()
    err = info.value
    assert err.status_code == 400
    assert err.type == "invalid_request_error"
    return err


@pytest.mark.parametrize("schema, needle", [
    ({"type": "object", "properties": {"a": {"not": {"type": "string"}}}}, "'not'"),
    ({"type": "object", "properties": {"a": {"$ref": "https://example.com/a.json"}}}, "$ref"),
    ({"type": "string", "format": "credit-card"}, "credit-card"),
    ({"type": "array", "items": {"type": "integer"}, "uniqueItems": True}, "uniqueItems"),
    ({"if": {"type": "string"}, "then": {"maxLength": 3}}, "'if'"),
], ids=["not", "remote-ref", "format", "uniqueItems", "if-then"])
@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
def test_unsupported_schema_is_400(client: Any, schema: dict, needle: str, stream: bool) -> None:
    """A schema the engine cannot enforce is refused (never run unconstrained), saying why."""
    err = _bad_request(lambda: create(client, stream=stream, response_format=rf(schema),
                                      max_tokens=8))
    assert needle in err.message and "supported" in err.message
    assert err.param == "response_format" and err.code == "unsupported_schema"


def test_unsupported_tool_schema_is_400(client: Any) -> None:
    tool = {"type": "function", "function": {"name": "f", "parameters": {
        "type": "object", "properties": {"a": {"not": {"type": "null"}}}}}}
    err = _bad_request(lambda: create(client, tools=[tool], tool_choice="required",
                                      max_tokens=8))
    assert "'not'" in err.message and err.param == "tools"


# ----------------------------------------------------------------------------- downgrade


STRICT_TOOL = {"type": "function", "function": {
    "name": "f", "strict": True,
    "parameters": {"type": "object", "properties": {"a": {"type": "integer"}},
                   "required": ["a"], "additionalProperties": False}}}


def _header(client: Any, stream: bool, **kw: Any) -> str | None:
    """The X-Grammar-Constraints header of a request (the body is consumed)."""
    kw.setdefault("model", "tiny")
    kw.setdefault("messages", MESSAGES)
    kw.setdefault("max_tokens", 6)
    raw = client.chat.completions.with_raw_response.create(stream=stream, **kw)
    assert raw.http_response.status_code == 200
    body = raw.parse()
    if stream:
        assert [c for c in body]  # drain the stream
    else:
        assert body.choices[0].message.content is not None
    return raw.headers.get("x-grammar-constraints")


@pytest.fixture(scope="module")
def unconstrained(live_server: Callable[..., LiveServer]) -> Any:
    return live_server("--disable-grammar-constraints").openai()


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
def test_downgraded_header(unconstrained: Any, client: Any, stream: bool) -> None:
    """--disable-grammar-constraints: strict schema / strict tool -> 200 + downgraded header;
    nothing strict -> no header; and never a header while constraints are on."""
    schema = {"type": "object", "properties": {"a": {"not": {"type": "string"}}}}
    assert _header(unconstrained, stream, response_format=rf({"type": "object"})) == "downgraded"
    assert _header(unconstrained, stream, response_format=rf(schema)) == "downgraded"
    assert _header(unconstrained, stream, tools=[STRICT_TOOL]) == "downgraded"
    assert _header(unconstrained, stream, response_format=rf({"type": "object"},
                                                             strict=False)) is None
    assert _header(unconstrained, stream, response_format={"type": "json_object"}) is None
    assert _header(unconstrained, stream) is None
    non_strict_tool = {"type": "function", "function": {"name": "g"}}
    assert _header(unconstrained, stream, tools=[non_strict_tool]) is None
    assert _header(client, stream, response_format=rf({"type": "object"}),
                   extra_body=NO_THINK) is None
    assert _header(client, stream, tools=[STRICT_TOOL], extra_body=NO_THINK) is None


# ----------------------------------------------------------------------------- --guided-json


@pytest.fixture(scope="module")
def guided(live_server: Callable[..., LiveServer]) -> Any:
    return live_server("--guided-json", json.dumps(GUIDED)).openai()


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
def test_guided_json_default_and_request_wins(guided: Any, stream: bool) -> None:
    other = json.loads((Path(__file__).parent / "schemas" / "top_level_array.json").read_text())
    for seed in SEEDS:
        content, finish = create(guided, stream=stream, temperature=1.0, seed=seed,
                                 max_tokens=64)
        assert finish == "stop"
        check_json(content, GUIDED)
        content, finish = create(guided, stream=stream, temperature=1.0, seed=seed,
                                 max_tokens=64, response_format=rf(other))
        assert finish == "stop"
        assert isinstance(check_json(content, other), list)
    # the request's own "text" format wins too: free text, not the guided JSON
    content, _ = create(guided, stream=stream, response_format={"type": "text"},
                        temperature=1.0, seed=0, max_tokens=24)
    with pytest.raises(ValueError):
        json.loads(content or "")


def test_grammar_knows_every_engine_stop_token() -> None:
    """Regression: the tiny model stops on <|endoftext|> (generation_config) as well as
    <|im_end|>. The grammar took <|endoftext|> for text, allowed it inside a JSON string, and the
    engine then ended the output there, mid-string. Likewise <|im_start|>, which adds no text."""
    import numpy as np
    from mlx_lm import load

    from engine.grammar import GrammarCompilerCache, build_constraint
    from modelbuilder import ensure_model

    _, tok = load(str(ensure_model("tiny")))
    inner = tok._tokenizer
    assert set(tok.eos_token_ids) == {0, 2}
    # the mlx-lm wrapper brings its ids; the server passes the engine's with the HF tokenizer
    for cache in (GrammarCompilerCache(tok, 4096),
                  GrammarCompilerCache(inner, 4096, stop_token_ids=sorted(tok.eos_token_ids))):
        assert set(cache.stop_token_ids) == {0, 2}
    con = build_constraint(cache, response_format={"type": "json_object"}, tools=None,
                           tool_choice=None, parallel_tool_calls=True, tool_format="hermes",
                           reasoning=False)
    assert con is not None
    for t in inner.encode('{"a', add_special_tokens=False):
        con.accept(t)
    bitmask = cache.allocate_bitmask(1)
    assert con.fill_bitmask(bitmask, 0)
    allowed = np.unpackbits(bitmask[0].view(np.uint8), bitorder="little")
    assert allowed[inner.convert_tokens_to_ids("a")] and not allowed[0] and not allowed[2]
    # nor a special token that adds no text (the client would never see it)
    assert not allowed[inner.convert_tokens_to_ids("<|im_start|>")]
    assert allowed[inner.convert_tokens_to_ids("<tool_call>")]  # a visible marker is text
