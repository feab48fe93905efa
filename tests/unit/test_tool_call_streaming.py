"""Tool-call arguments stream incrementally in every format: the first delta of a call has its
id and name, argument fragments follow as text arrives, they concatenate to the whole reply's
arguments, and no streamed prefix parses as a complete JSON object before the call ends."""

from __future__ import annotations

import json

import pytest

from engine.tool_formats import TOOL_FORMATS
from serving.output_parser import OutputProcessor

TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"},
                                     "units": {"type": "string"}}}}}]
ARGS = {"city": "Reykjavík, Iceland", "days": 12, "units": "metric"}

TEXTS = {
    "hermes": '<tool_call>\n{"name": "get_weather", "arguments": '
              + json.dumps(ARGS, ensure_ascii=False) + "}\n</tool_call>",
    "qwen3_xml": "<tool_call>\n<function=get_weather>\n<parameter=city>\nReykjavík, Iceland\n"
                 "</parameter>\n<parameter=days>\n12\n</parameter>\n<parameter=units>\nmetric\n"
                 "</parameter>\n</function>\n</tool_call>",
    "llama3_json": '<|python_tag|>{"name": "get_weather", "parameters": '
                   + json.dumps(ARGS, ensure_ascii=False) + "}",
    "mistral": '[TOOL_CALLS][{"name": "get_weather", "arguments": '
               + json.dumps(ARGS, ensure_ascii=False) + "}]",
}


def _stream(fmt: str, text: str, step: int = 2) -> tuple[list, object]:
    proc = OutputProcessor(fmt, TOOLS)
    deltas = []
    for i in range(0, len(text), step):
        deltas += proc.feed(text[i:i + step])
    deltas += proc.flush()
    return deltas, proc.finish()


def test_every_format_has_a_streaming_case() -> None:
    assert set(TEXTS) == set(TOOL_FORMATS)


@pytest.mark.parametrize("fmt", sorted(TEXTS))
def test_arguments_arrive_in_fragments_that_build_the_whole_call(fmt: str) -> None:
    deltas, final = _stream(fmt, TEXTS[fmt])
    calls = [d.tool_call for d in deltas if d.tool_call is not None]
    assert calls[0].id is not None and calls[0].name == "get_weather"
    assert calls[0].arguments == ""
    fragments = [c.arguments for c in calls[1:]]
    assert all(c.id is None and c.index == 0 for c in calls[1:])
    assert len(fragments) >= 3, fragments
    joined = "".join(fragments)
    assert json.loads(joined) == ARGS
    for n in range(1, len(fragments)):
        with pytest.raises(json.JSONDecodeError):
            json.loads("".join(fragments[:n]))
    # the whole reply (fed at once) is the same call
    whole = OutputProcessor(fmt, TOOLS)
    whole.feed(TEXTS[fmt])
    done = whole.finish()
    assert [(c.name, c.arguments_json) for c in done.tool_calls] == [("get_weather", joined)]
    assert final.tool_calls[0].id == calls[0].id  # type: ignore[attr-defined]


def test_the_name_is_sent_only_once_complete() -> None:
    proc = OutputProcessor("hermes", TOOLS)
    assert [d for d in proc.feed('<tool_call>\n{"name": "get_wea') if d.tool_call] == []
    first = [d.tool_call for d in proc.feed('ther", "arguments": {"ci') if d.tool_call]
    assert first and first[0].name == "get_weather"


def test_a_name_outside_the_tools_is_not_streamed() -> None:
    proc = OutputProcessor("hermes", TOOLS)
    assert [d for d in proc.feed('<tool_call>\n{"name": "rm_rf", "arguments": {"a": 1')
            if d.tool_call] == []


def test_a_call_cut_by_the_token_limit_is_a_call_with_the_arguments_so_far() -> None:
    proc = OutputProcessor("hermes", TOOLS)
    deltas = proc.feed('<tool_call>\n{"name": "get_weather", "arguments": {"city": "Par')
    deltas += proc.flush()
    final = proc.finish()
    assert final.content is None
    assert [(c.name, json.loads(c.arguments_json)) for c in final.tool_calls] == [
        ("get_weather", {"city": "Par"})]
    streamed = "".join(d.tool_call.arguments for d in deltas if d.tool_call)
    assert streamed == final.tool_calls[0].arguments_json
