"""Tool-call parsers per format and format detection (the streaming splitter built on them:
`tests/unit/test_output_parser.py`)."""

from __future__ import annotations

import json
import logging
import re

import pytest

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
