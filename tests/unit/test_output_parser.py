"""The streaming splitter (serving.output_parser): reasoning, content and tool calls split as
text arrives; what is streamed always equals the final output, and that equals the parser's."""

from __future__ import annotations

import random

import pytest

from engine.tool_calls import parse_tool_calls
from serving.output_parser import OutputProcessor

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


# ------------------------------------------------------------------------------- reasoning


@pytest.mark.parametrize("chunk", [1, 2, 7, 1000])
def test_processor_reasoning_started(chunk: int) -> None:
    text = "step one\nstep two</think>\n\nThe answer."
    proc = OutputProcessor("hermes", None, reasoning_started=True, parse_tools=False)
    deltas = []
    for i in range(0, len(text), chunk):
        deltas += proc.feed(text[i : i + chunk])
    deltas += proc.flush()
    final = proc.finish()
    assert final.reasoning_content == "step one\nstep two"
    assert final.content == "The answer."
    assert "".join(d.reasoning_content or "" for d in deltas) == final.reasoning_content
    assert "".join(d.content or "" for d in deltas) == final.content
    assert all("<" not in (d.reasoning_content or "") for d in deltas)


def test_processor_unclosed_reasoning_is_all_reasoning() -> None:
    proc = OutputProcessor("hermes", None, reasoning_started=True, parse_tools=False)
    proc.feed("thinking and then cut off </thi")
    final = proc.finish()
    assert final.reasoning_content == "thinking and then cut off </thi"
    assert final.content == ""


def test_processor_no_reasoning_when_disabled() -> None:
    proc = OutputProcessor("hermes", None, parse_tools=False, parse_reasoning=False)
    proc.feed("<think>x</think>y")
    assert proc.finish().content == "<think>x</think>y"


def test_think_only_at_start() -> None:
    proc = OutputProcessor("hermes", None, parse_tools=False)
    proc.feed("a <think>x</think>")
    final = proc.finish()
    assert final.reasoning_content is None and final.content == "a <think>x</think>"


# ------------------------------------------------------------------------------- tool calls

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
