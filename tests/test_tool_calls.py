"""Tool-call parsers per format, format detection, and streaming = final in OutputProcessor."""

from __future__ import annotations

import json
import logging
import random
import re

import pytest

from engine.output import OutputProcessor
from engine.tool_calls import convert_param_value, detect_tool_format, new_call_id, parse_tool_calls

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {
                "type": "object",
                "properties": {
                    "city": {"type": "string"},
                    "days": {"type": "integer"},
                    "metric": {"type": "boolean"},
                    "ratio": {"type": "number"},
                    "tags": {"type": "array"},
                    "opts": {"type": "object"},
                    "note": {"type": ["string", "null"]},
                },
            },
        },
    },
    {"type": "function", "function": {"name": "ping"}},
]


def args(call) -> dict:
    return json.loads(call.arguments_json)


# ------------------------------------------------------------------------------- detection


@pytest.mark.parametrize(
    ("template", "model_type", "expected"),
    [
        ("... <tool_call>\n<function=x>\n<parameter=a> ...", "qwen3", "qwen3_xml"),
        ("... <tool_call>{json}</tool_call> ...", "qwen3", "hermes"),
        ("{{ '[TOOL_CALLS][' }}", "mistral", "mistral"),
        ("{{ '<|python_tag|>' }}", "llama", "llama3_json"),
        ("no markup", "mistral", "mistral"),
        ("no markup", "llama", "llama3_json"),
        ("no markup", "qwen2", "hermes"),
        (None, None, "hermes"),
    ],
)
def test_detect_tool_format(template, model_type, expected) -> None:
    assert detect_tool_format(template, model_type) == expected


def test_detect_on_built_models() -> None:
    from transformers import AutoTokenizer

    from modelbuilder import ensure_model

    for name, fmt in [
        ("tiny", "hermes"),
        ("tiny-qwen3-xml", "qwen3_xml"),
        ("tiny-llama3", "llama3_json"),
        ("tiny-mistral", "mistral"),
    ]:
        tok = AutoTokenizer.from_pretrained(ensure_model(name))
        assert detect_tool_format(tok.chat_template, "qwen3") == fmt


def test_call_id_shape() -> None:
    ids = {new_call_id() for _ in range(50)}
    assert len(ids) == 50
    assert all(re.fullmatch(r"call_[A-Za-z0-9]{24}", i) for i in ids)


# ------------------------------------------------------------------------------- parsers


def test_hermes() -> None:
    text = (
        "Sure.\n<tool_call>\n"
        '{"name": "get_weather", "arguments": {"city": "Paris", "days": 2}}\n</tool_call>\n'
        '<tool_call>{"name": "ping", "arguments": {}}</tool_call>'
    )
    content, calls = parse_tool_calls(text, "hermes", TOOLS)
    assert content == "Sure."
    assert [c.name for c in calls] == ["get_weather", "ping"]
    assert args(calls[0]) == {"city": "Paris", "days": 2}
    assert calls[0].id != calls[1].id


def test_hermes_arguments_as_string_and_unterminated() -> None:
    text = '<tool_call>\n{"name": "ping", "arguments": "{\\"x\\": 1}"}'
    content, calls = parse_tool_calls(text, "hermes", TOOLS)
    assert content is None and args(calls[0]) == {"x": 1}


def test_malformed_stays_in_content_with_warning(caplog) -> None:
    text = 'Hi <tool_call>\n{"name": "ping", "arguments": {oops}\n</tool_call> bye'
    with caplog.at_level(logging.WARNING):
        content, calls = parse_tool_calls(text, "hermes", TOOLS)
    assert calls == []
    assert content == text
    assert "unreadable" in caplog.text


def test_qwen3_xml_types_from_schema() -> None:
    text = (
        "<tool_call>\n<function=get_weather>\n"
        "<parameter=city>\nNew York\n</parameter>\n"
        "<parameter=days>\n3\n</parameter>\n"
        "<parameter=metric>\nTrue\n</parameter>\n"
        "<parameter=ratio>\n0.5\n</parameter>\n"
        '<parameter=tags>\n["a", "b"]\n</parameter>\n'
        '<parameter=opts>\n{"k": 1}\n</parameter>\n'
        "<parameter=note>\nnull\n</parameter>\n"
        "<parameter=extra>\n42\n</parameter>\n"
        "</function>\n</tool_call>"
    )
    content, calls = parse_tool_calls(text, "qwen3_xml", TOOLS)
    assert content is None
    assert args(calls[0]) == {
        "city": "New York",
        "days": 3,
        "metric": True,
        "ratio": 0.5,
        "tags": ["a", "b"],
        "opts": {"k": 1},
        "note": None,
        "extra": 42,  # no schema: JSON when it parses
    }


def test_qwen3_xml_bare_function_and_multiple() -> None:
    text = (
        "<function=ping>\n</function>\n"
        "<tool_call>\n<function=get_weather>\n<parameter=city>\n12\n</parameter>\n"
        "</function>\n</tool_call>"
    )
    content, calls = parse_tool_calls(text, "qwen3_xml", TOOLS)
    assert content is None
    assert [c.name for c in calls] == ["ping", "get_weather"]
    assert args(calls[1]) == {"city": "12"}  # string schema keeps text


def test_qwen3_xml_malformed() -> None:
    text = "<tool_call>\n<function=ping>\n<parameter=a>1\n</function>\n</tool_call>"
    content, calls = parse_tool_calls(text, "qwen3_xml", TOOLS)
    assert calls == [] and content == text


def test_convert_param_value_fallbacks() -> None:
    assert convert_param_value("abc", {"type": "integer"}) == "abc"
    assert convert_param_value("7", {"anyOf": [{"type": "integer"}, {"type": "string"}]}) == 7
    assert convert_param_value("x", {"enum": ["x", "y"]}) == "x"
    assert convert_param_value("2.0", {"type": "number"}) == 2.0


def test_llama3_json() -> None:
    text = (
        '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Rome"}}; '
        '{"name": "ping", "parameters": {}}'
    )
    content, calls = parse_tool_calls(text, "llama3_json", TOOLS)
    assert content is None
    assert [(c.name, args(c)) for c in calls] == [("get_weather", {"city": "Rome"}), ("ping", {})]
    content, calls = parse_tool_calls('{"name": "ping", "parameters": {}}', "llama3_json", TOOLS)
    assert content is None and calls[0].name == "ping"
    content, calls = parse_tool_calls('{"not": "a call"}', "llama3_json", TOOLS)
    assert calls == [] and content == '{"not": "a call"}'


def test_llama3_malformed() -> None:
    text = 'ok <|python_tag|>{"name": "ping", "parameters": {'
    content, calls = parse_tool_calls(text, "llama3_json", TOOLS)
    assert calls == [] and content == text


def test_mistral() -> None:
    text = (
        'Calling.[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Oslo"}}, '
        '{"name": "ping", "arguments": {}}]'
    )
    content, calls = parse_tool_calls(text, "mistral", TOOLS)
    assert content == "Calling."
    assert [c.name for c in calls] == ["get_weather", "ping"]
    content, calls = parse_tool_calls('[TOOL_CALLS]ping[ARGS]{"a": 1}', "mistral", TOOLS)
    assert content is None and args(calls[0]) == {"a": 1}


def test_mistral_malformed() -> None:
    text = '[TOOL_CALLS][{"name": "ping", "arguments": ]'
    content, calls = parse_tool_calls(text, "mistral", TOOLS)
    assert calls == [] and content == text


def test_no_calls() -> None:
    assert parse_tool_calls("  plain text ", "hermes", TOOLS) == ("plain text", [])


# ------------------------------------------------------------------------------- streaming

SAMPLES = {
    "hermes": (
        "I'll check.\n\n<tool_call>\n"
        '{"name": "get_weather", "arguments": {"city": "Paris <b>", "days": 2}}\n</tool_call>\n'
        '<tool_call>\n{"name": "ping", "arguments": {}}\n</tool_call>'
    ),
    "qwen3_xml": (
        "<tool_call>\n<function=get_weather>\n<parameter=city>\nLyon\n</parameter>\n"
        "<parameter=days>\n4\n</parameter>\n</function>\n</tool_call>"
    ),
    "llama3_json": '<|python_tag|>{"name": "get_weather", "parameters": {"city": "<tool"}}',
    "mistral": '[TOOL_CALLS][{"name": "ping", "arguments": {}}]',
}


def stream(proc: OutputProcessor, text: str, rng: random.Random) -> tuple[list, object]:
    deltas = []
    i = 0
    while i < len(text):
        n = rng.randint(1, 5)
        deltas += proc.feed(text[i : i + n])
        i += n
    deltas += proc.flush()
    return deltas, proc.finish()


def reassemble(deltas) -> tuple[str | None, str | None, list[tuple[str, str, str]]]:
    content = "".join(d.content for d in deltas if d.content) or None
    reasoning = "".join(d.reasoning_content for d in deltas if d.reasoning_content) or None
    calls: dict[int, list] = {}
    for d in deltas:
        if d.tool_call is None:
            continue
        tc = d.tool_call
        if tc.id is not None:
            assert tc.index not in calls and tc.name and tc.arguments == ""
            calls[tc.index] = [tc.id, tc.name, ""]
        else:
            calls[tc.index][2] += tc.arguments
    return content, reasoning, [tuple(calls[i]) for i in sorted(calls)]


@pytest.mark.parametrize("fmt", list(SAMPLES))
@pytest.mark.parametrize("seed", range(5))
def test_streaming_equals_final(fmt: str, seed: int) -> None:
    text = "<think>\nhmm, </thin k> tricky\n</think>\n\n" + SAMPLES[fmt]
    proc = OutputProcessor(fmt, TOOLS, reasoning_started=False, parse_tools=True)
    deltas, final = stream(proc, text, random.Random(seed))
    content, reasoning, calls = reassemble(deltas)
    assert reasoning == final.reasoning_content == "hmm, </thin k> tricky"
    assert (content or None) == (final.content or None)
    assert calls == [(c.id, c.name, c.arguments_json) for c in final.tool_calls]
    ref_content, ref_calls = parse_tool_calls(SAMPLES[fmt], fmt, TOOLS)
    assert final.content == ref_content
    assert [(c.name, c.arguments_json) for c in final.tool_calls] == [
        (c.name, c.arguments_json) for c in ref_calls
    ]
    if final.tool_calls:
        assert final.content is None or final.content.strip()


def test_partial_marker_held_back() -> None:
    proc = OutputProcessor("hermes", TOOLS, reasoning_started=False, parse_tools=True)
    assert [d.content for d in proc.feed("Hello <tool_")] == ["Hello"]
    assert proc.feed("call>\n") == []
    out = proc.feed('{"name": "ping", "arguments": {}}\n</tool_call>')
    assert out[0].tool_call.name == "ping" and out[0].tool_call.arguments == ""
    assert out[1].tool_call.arguments == "{}"
    final = proc.finish()
    assert final.content == "Hello" and len(final.tool_calls) == 1


def test_false_marker_prefix_released() -> None:
    proc = OutputProcessor("hermes", TOOLS, reasoning_started=False, parse_tools=True)
    d1 = proc.feed("a <tool")
    d2 = proc.feed("box> b")
    text = "".join(d.content for d in d1 + d2 + proc.flush() if d.content)
    assert text == "a <toolbox> b" == proc.finish().content


def test_malformed_streamed_as_content() -> None:
    proc = OutputProcessor("hermes", TOOLS, reasoning_started=False, parse_tools=True)
    text = "x <tool_call>{bad}</tool_call> y"
    deltas, final = stream(proc, text, random.Random(0))
    assert final.tool_calls == []
    assert final.content == text == reassemble(deltas)[0]


def test_parallel_false_keeps_first() -> None:
    proc = OutputProcessor(
        "hermes", TOOLS, reasoning_started=False, parse_tools=True, parallel_tool_calls=False
    )
    deltas, final = stream(proc, SAMPLES["hermes"], random.Random(1))
    assert [c.name for c in final.tool_calls] == ["get_weather"]
    assert len(reassemble(deltas)[2]) == 1


def test_parse_tools_off_is_plain_content() -> None:
    proc = OutputProcessor("hermes", TOOLS, reasoning_started=False, parse_tools=False)
    deltas, final = stream(proc, SAMPLES["hermes"], random.Random(2))
    assert final.tool_calls == [] and final.content == SAMPLES["hermes"].strip()


def test_only_calls_content_is_none() -> None:
    proc = OutputProcessor("mistral", TOOLS, reasoning_started=False, parse_tools=True)
    proc.feed(SAMPLES["mistral"])
    final = proc.finish()
    assert final.content is None and final.reasoning_content is None
    assert final.tool_calls[0].name == "ping"
