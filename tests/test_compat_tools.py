"""Tool calling through the official openai SDK against live servers, one per tool format.

Each format runs on its own tiny random-weight model (`tiny` hermes, `tiny-qwen3-xml`,
`tiny-llama3`, `tiny-mistral`), whose chat template selects the format. The weights are noise, so
a call only appears where the grammar forces one (`required` / named); every emitted call must
validate against its tool's parameters. The raw output (read back from the logprob tokens) shows
the format's own markup. String and array parameters are bounded (``maxLength`` / ``maxItems``):
a random model rarely closes them by chance.

Requests pass ``enable_thinking: false`` (see ``test_compat_structured.py``); tool calls after a
reasoning block are tested in ``test_compat_reasoning.py``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import jsonschema
import openai
import pytest
from openai.lib.streaming.chat import ChatCompletionStreamState

from tests.conftest import LiveServer

pytestmark = pytest.mark.slow

SEEDS = (0, 1, 2)
NO_THINK: dict[str, Any] = {"chat_template_kwargs": {"enable_thinking": False}}
MESSAGES = [{"role": "user", "content": "What is the weather in Paris?"}]
MAX_TOKENS = 300
CALL_ID = re.compile(r"^call_[A-Za-z0-9]{24}$")

FORMATS = {"hermes": "tiny", "qwen3_xml": "tiny-qwen3-xml", "llama3_json": "tiny-llama3",
           "mistral": "tiny-mistral"}
MARKUP = {"hermes": '<tool_call>\n{"name": ', "qwen3_xml": "<tool_call>\n<function=",
          "llama3_json": '<|python_tag|>{"name": ', "mistral": '[TOOL_CALLS][{"name": '}

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
PARAMS: dict[str, dict] = {"get_weather": WEATHER, "search": SEARCH,
                           "ping": {"type": "object", "properties": {}}}
TOOLS = [
    {"type": "function", "function": {"name": "get_weather", "description": "Weather.",
                                      "parameters": WEATHER, "strict": True}},
    {"type": "function", "function": {"name": "search", "parameters": SEARCH}},
    {"type": "function", "function": {"name": "ping"}},
]


@pytest.fixture(scope="module", params=list(FORMATS))
def fmt_client(request: pytest.FixtureRequest,
               live_server: Callable[..., LiveServer]) -> tuple[str, Any]:
    """(tool format, SDK client) on that format's tiny model."""
    from modelbuilder import ensure_model

    fmt = request.param
    if fmt == "hermes":
        return fmt, live_server("--concurrent", "4").openai()  # the shared default server
    return fmt, live_server(model=ensure_model(FORMATS[fmt])).openai()


def ask(client: Any, **kw: Any) -> Any:
    kw.setdefault("model", "tiny")
    kw.setdefault("messages", MESSAGES)
    kw.setdefault("tools", TOOLS)
    kw.setdefault("max_tokens", MAX_TOKENS)
    kw.setdefault("extra_body", NO_THINK)
    return client.chat.completions.create(**kw)


def ask_stream(client: Any, **kw: Any) -> tuple[Any, list[Any]]:
    """Stream a request; (the SDK's accumulated completion, the raw chunks)."""
    kw.setdefault("model", "tiny")
    kw.setdefault("messages", MESSAGES)
    kw.setdefault("tools", TOOLS)
    kw.setdefault("max_tokens", MAX_TOKENS)
    kw.setdefault("extra_body", NO_THINK)
    state = ChatCompletionStreamState()
    chunks = list(client.chat.completions.create(stream=True, **kw))
    for chunk in chunks:
        state.handle_chunk(chunk)
    # the accumulated snapshot (get_final_completion() refuses finish_reason "length")
    return state.current_completion_snapshot, chunks


def raw_text(completion: Any) -> str:
    """The generated text, tokens and all, from the logprobs."""
    return "".join(t.token for t in completion.choices[0].logprobs.content)


def calls_of(completion: Any, allowed: set[str] | None = None) -> list[tuple[str, dict]]:
    """Check a tool-call turn's OpenAI shape; return [(name, arguments)]."""
    choice = completion.choices[0]
    msg = choice.message
    assert choice.finish_reason == "tool_calls", (choice.finish_reason, msg)
    assert msg.content is None and msg.tool_calls
    out = []
    for call in msg.tool_calls:
        assert CALL_ID.match(call.id), call.id
        assert call.type == "function"
        assert isinstance(call.function.arguments, str)
        args = json.loads(call.function.arguments)
        assert call.function.name in (allowed or set(PARAMS))
        jsonschema.validate(args, PARAMS[call.function.name])
        out.append((call.function.name, args))
    assert len({c.id for c in msg.tool_calls}) == len(msg.tool_calls)
    return out


def check_deltas(chunks: list[Any]) -> None:
    """Per-call deltas: the first carries index, id, type and name; later ones only arguments."""
    seen: set[int] = set()
    for chunk in chunks:
        for choice in chunk.choices:
            for tc in choice.delta.tool_calls or []:
                if tc.index not in seen:
                    assert tc.id and tc.type == "function" and tc.function.name
                    seen.add(tc.index)
                else:
                    assert tc.id is None and tc.function.name is None
    assert chunks[0].choices[0].delta.role == "assistant"
    assert sorted(seen) == list(range(len(seen)))


@pytest.mark.parametrize("parallel", [True, False], ids=["parallel", "single"])
def test_required(fmt_client: tuple[str, Any], parallel: bool) -> None:
    """tool_choice=required: one or more valid calls (exactly one without parallel calls);
    the stream, accumulated by the SDK, carries the same calls."""
    fmt, client = fmt_client
    for seed in SEEDS:
        kw = dict(tool_choice="required", parallel_tool_calls=parallel, temperature=1.0,
                  seed=seed)
        r = ask(client, logprobs=True, **kw)
        calls = calls_of(r)
        assert raw_text(r).startswith(MARKUP[fmt]), raw_text(r)
        if not parallel:
            assert len(calls) == 1
        final, chunks = ask_stream(client, **kw)
        check_deltas(chunks)
        assert calls_of(final) == calls


def argument_fragments(chunks: list[Any]) -> list[str]:
    """The argument pieces of call 0, in stream order (the first delta's "" included)."""
    return [tc.function.arguments for chunk in chunks for choice in chunk.choices
            for tc in choice.delta.tool_calls or [] if tc.index == 0]


def test_named(fmt_client: tuple[str, Any]) -> None:
    """A named call, streamed: its arguments arrive in several fragments that concatenate to
    the non-streamed arguments, and no prefix parses as complete JSON before the last one
    (the Vercel AI SDK closes a call as soon as its arguments parse)."""
    fmt, client = fmt_client
    choice = {"type": "function", "function": {"name": "search"}}
    for seed in SEEDS:
        r = ask(client, tool_choice=choice, temperature=1.0, seed=seed)
        calls = calls_of(r, {"search"})
        assert len(calls) == 1
        final, chunks = ask_stream(client, tool_choice=choice, temperature=1.0, seed=seed)
        check_deltas(chunks)
        assert calls_of(final, {"search"}) == calls
        fragments = [f for f in argument_fragments(chunks) if f]
        assert "".join(fragments) == r.choices[0].message.tool_calls[0].function.arguments
        assert len(fragments) >= 2, fragments
        for n in range(1, len(fragments)):
            with pytest.raises(json.JSONDecodeError):
                json.loads("".join(fragments[:n]))


def test_named_strict_parsed_by_sdk(fmt_client: tuple[str, Any]) -> None:
    """A strict tool: the SDK's stream helper parses the arguments itself."""
    _, client = fmt_client
    choice = {"type": "function", "function": {"name": "get_weather"}}
    with client.chat.completions.stream(
            model="tiny", messages=MESSAGES, tools=TOOLS, tool_choice=choice, temperature=1.0,
            seed=0, max_tokens=MAX_TOKENS, extra_body=NO_THINK) as stream:
        final = stream.get_final_completion()
    (call,) = final.choices[0].message.tool_calls
    assert call.function.parsed_arguments == json.loads(call.function.arguments)
    jsonschema.validate(call.function.parsed_arguments, WEATHER)


def shape(completion: Any) -> tuple[Any, ...]:
    """What a streamed and a JSON reply to the same seeded request must share."""
    choice = completion.choices[0]
    calls = [(c.type, c.function.name, json.loads(c.function.arguments))
             for c in choice.message.tool_calls or []]
    return choice.finish_reason, choice.message.content, calls


def both(client: Any, **kw: Any) -> Any:
    """The JSON reply, after checking that the SDK-accumulated stream has the same shape."""
    r = ask(client, **kw)
    assert shape(ask_stream(client, **kw)[0]) == shape(r)
    return r


def test_auto(fmt_client: tuple[str, Any]) -> None:
    """tool_choice=auto (and omitted): free text; any call the model emits is valid. Random
    weights almost never open a call, so this checks the shape of whichever answer comes."""
    _, client = fmt_client
    for seed, choice in zip(SEEDS, ["auto", None, "auto"], strict=True):
        kw: dict[str, Any] = dict(temperature=1.0, seed=seed, max_tokens=48)
        if choice is not None:
            kw["tool_choice"] = choice
        r = both(client, **kw)
        if r.choices[0].message.tool_calls:
            calls_of(r)
        else:
            assert isinstance(r.choices[0].message.content, str)
            assert r.choices[0].finish_reason in ("stop", "length")


def test_auto_with_json_schema_is_json_or_calls(fmt_client: tuple[str, Any]) -> None:
    schema = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"],
              "additionalProperties": False}
    rf = {"type": "json_schema", "json_schema": {"name": "o", "schema": schema, "strict": True}}
    _, client = fmt_client
    for seed in SEEDS:
        r = both(client, tool_choice="auto", response_format=rf, temperature=1.0, seed=seed)
        if r.choices[0].message.tool_calls:
            calls_of(r)
        else:
            assert r.choices[0].finish_reason == "stop"
            jsonschema.validate(json.loads(r.choices[0].message.content), schema)


def test_none(fmt_client: tuple[str, Any]) -> None:
    """tool_choice=none: no calls (the tools are not even shown to the model)."""
    _, client = fmt_client
    for seed in SEEDS:
        r = both(client, tool_choice="none", temperature=1.0, seed=seed, max_tokens=32)
        assert not r.choices[0].message.tool_calls
        assert isinstance(r.choices[0].message.content, str)
        assert r.choices[0].finish_reason != "tool_calls"


def test_multi_turn(fmt_client: tuple[str, Any]) -> None:
    """The assistant's calls and the tool results go back verbatim; the next turn runs."""
    _, client = fmt_client
    r = ask(client, tool_choice="required", parallel_tool_calls=False, seed=0)
    call = r.choices[0].message.tool_calls[0]
    messages = [*MESSAGES, r.choices[0].message.model_dump(exclude_none=True),
                {"role": "tool", "tool_call_id": call.id, "content": '{"temp": 21}'}]
    again = ask(client, messages=messages, tool_choice="required", seed=1)
    calls_of(again)


# ----------------------------------------------------------------------------- one server


def test_parser_override(live_server: Callable[..., LiveServer]) -> None:
    """--tool-call-parser overrides the template's format (hermes template, qwen3_xml calls)."""
    client = live_server("--tool-call-parser", "qwen3_xml").openai()
    for seed in SEEDS:
        r = ask(client, tool_choice="required", temperature=1.0, seed=seed, logprobs=True)
        calls_of(r)
        assert raw_text(r).startswith(MARKUP["qwen3_xml"])


@pytest.mark.parametrize("kw, needle", [
    ({"tools": TOOLS, "tool_choice": {"type": "function", "function": {"name": "nope"}}},
     "'nope'"),
    ({"tool_choice": "required"}, "required"),
    ({"tool_choice": {"type": "function", "function": {"name": "ping"}}}, "'ping'"),
], ids=["unknown-name", "required-no-tools", "named-no-tools"])
@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
def test_bad_tool_choice_is_400(client: Any, kw: dict, needle: str, stream: bool) -> None:
    with pytest.raises(openai.BadRequestError) as info:
        client.chat.completions.create(model="tiny", messages=MESSAGES, stream=stream, **kw)
    assert info.value.status_code == 400
    assert info.value.type == "invalid_request_error"
    assert info.value.param == "tool_choice" and needle in info.value.message


# ----------------------------------------------------------------------------- special markers


def _special_marker_model(dst: Any, fmt: str) -> Any:
    """A copy of the format's tiny model whose call marker is a special token, as in the real
    tokenizers (Mistral's [TOOL_CALLS], Llama 3's <|python_tag|> have special=true)."""
    import shutil

    from modelbuilder import ensure_model

    marker = {"mistral": "[TOOL_CALLS]", "llama3_json": "<|python_tag|>"}[fmt]
    shutil.copytree(ensure_model(FORMATS[fmt]), dst)
    cfg = json.loads((dst / "tokenizer_config.json").read_text())
    for entry in cfg["added_tokens_decoder"].values():
        entry["special"] = entry["special"] or entry["content"] == marker
    (dst / "tokenizer_config.json").write_text(json.dumps(cfg))
    tok = json.loads((dst / "tokenizer.json").read_text())
    for entry in tok["added_tokens"]:
        entry["special"] = entry["special"] or entry["content"] == marker
    (dst / "tokenizer.json").write_text(json.dumps(tok))
    return dst


@pytest.mark.parametrize("fmt", [
    "llama3_json",
    "mistral",  # the detokenizer keeps call markers visible even when marked special
])
def test_special_call_marker(tmp_path_factory: pytest.TempPathFactory,
                             live_server: Callable[..., LiveServer], fmt: str) -> None:
    model = _special_marker_model(tmp_path_factory.mktemp("models") / f"special-{fmt}", fmt)
    client = live_server(model=model).openai()
    r = ask(client, tool_choice="required", parallel_tool_calls=False, temperature=1.0, seed=0)
    calls_of(r)
