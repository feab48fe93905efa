"""The tool-call repair rule (engine.tool_repair) and the streaming splitter that applies it
(serving.output_parser): a reply that is nothing but one JSON call object outside the format's
markup, naming a declared tool with arguments valid against its schema, is that call in every
format, streamed (in any chunking) as whole; anything else stays text, and is streamed as soon
as it cannot be a call; with the rule off (--strict-tool-calls) it is all text."""

from __future__ import annotations

import json
import random

import pytest

from engine.tool_formats import TOOL_FORMATS
from engine.tool_repair import may_repair, repair_call
from serving.output_parser import OutputProcessor

WRITE = {"type": "function", "function": {"name": "Write", "parameters": {
    "$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
    "properties": {"file_path": {"type": "string"}, "content": {"type": "string"}},
    "required": ["file_path", "content"], "additionalProperties": False}}}
SEARCH = {"type": "function", "function": {"name": "ToolSearch", "parameters": {
    "type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}}}
PING = {"type": "function", "function": {"name": "ping"}}
TOOLS = [WRITE, SEARCH, PING]
ARGS = {"file_path": "hello.py", "content": "print('hello world')\n"}

CALLS = {
    "fenced": '```json\n{"name": "Write", "arguments": ' + json.dumps(ARGS) + "}\n```",
    "fenced, no tag": '```\n{"name": "ToolSearch", "arguments": {"query": "select:Write"}}\n```',
    "fenced, one line": '```json {"name": "ToolSearch", "arguments": {"query": "x"}}```',
    "bare": '{"name": "Write", "arguments": ' + json.dumps(ARGS) + "}",
    "bare, closing fence": '{"name": "ToolSearch", "arguments": {"query": "x"}}\n```',
    "tool/parameters": '{"tool": "Write", "parameters": ' + json.dumps(ARGS) + "}",
    "tool_name/args": '  {"tool_name": "ToolSearch", "args": {"query": "x"}}  ',
    "function/input": '{"function": "ToolSearch", "input": {"query": "x"}}',
    "arguments as a string": '{"name": "ToolSearch", "arguments": "{\\"query\\": \\"x\\"}"}',
    "openai nested": '{"type": "function", "function": {"name": "ToolSearch", '
                     '"arguments": "{\\"query\\": \\"x\\"}"}}',
    "no arguments, no schema": '{"name": "ping"}',
    "with an id": '{"id": "call_1", "name": "ping", "arguments": {}}',
}

TEXTS = {
    "an undeclared tool": '```json\n{"name": "create_file", "arguments": {"path": "a.py"}}\n```',
    "arguments the schema refuses": '{"name": "Write", "arguments": {"file_path": "a.py"}}',
    "an extra argument": '{"name": "Write", "arguments": ' + json.dumps(
        {**ARGS, "mode": "w"}) + "}",
    "a wrong type": '{"name": "ToolSearch", "arguments": {"query": 5}}',
    "a JSON answer": '{"answer": 42, "name": "Write"}',
    "an answer with a name key": '{"name": "Write", "age": 3}',
    "text after the object": '{"name": "ping", "arguments": {}} and then I will write it.',
    "text before the object": 'Here it is: {"name": "ping", "arguments": {}}',
    "a python fence": '```python\nprint("hello")\n```',
    "a call, then an object that is not one": '{"name": "ping"}\n{"x": 1}',
    "an array of calls": '[{"name": "ping", "arguments": {}}]',
    "arguments not an object": '{"name": "ToolSearch", "arguments": ["x"]}',
    "two name keys": '{"name": "ping", "tool": "ping"}',
    "broken JSON": '```json\n{"name": "ping", "arguments": {\n```',
    "plain prose": "I will create hello.py now.",
}


@pytest.mark.parametrize("text", CALLS.values(), ids=CALLS.keys())
def test_the_rule_reads_these_replies_as_calls(text: str) -> None:
    got = repair_call(text, TOOLS)
    assert got is not None
    (call,), note = got
    assert call.name in ("Write", "ToolSearch", "ping")
    assert isinstance(json.loads(call.arguments_json), dict)
    assert note.startswith(f"tool call {call.name} read from a reply written as ")
    assert may_repair(text)  # a streaming splitter held it back to the end


@pytest.mark.parametrize("text", TEXTS.values(), ids=TEXTS.keys())
def test_anything_else_stays_text(text: str) -> None:
    assert repair_call(text, TOOLS) is None


def test_several_call_objects_in_a_row_are_that_many_calls() -> None:
    """What the hermes format read before the rule, and the 0.5B coder writes for "Read, then
    Edit": each object on its own line, each a valid call."""
    text = '{"name": "ping"}\n{"name": "ToolSearch", "arguments": {"query": "x"}}'
    got = repair_call(text, TOOLS)
    assert got is not None
    calls, note = got
    assert [c.name for c in calls] == ["ping", "ToolSearch"]
    assert note.startswith("tool calls ping, ToolSearch read from a reply written as ")
    assert may_repair(text) and may_repair(text[:30])
    assert repair_call('{"name": "ping"}\n{"name": "nope"}', TOOLS) is None


def test_no_tools_no_calls() -> None:
    assert repair_call(CALLS["bare"], None) is None
    assert repair_call(CALLS["bare"], [SEARCH]) is None


def test_arguments_are_read_as_written() -> None:
    (call,), _ = repair_call(CALLS["tool/parameters"], TOOLS)  # type: ignore[misc]
    assert (call.name, json.loads(call.arguments_json)) == ("Write", ARGS)
    (nested,), _ = repair_call(CALLS["openai nested"], TOOLS)  # type: ignore[misc]
    assert json.loads(nested.arguments_json) == {"query": "x"}


@pytest.mark.parametrize(("text", "held"), [
    ("", True), ("  ", True), ("`", True), ("``", True), ("```", True), ("```js", True),
    ("```json", True), ("```json\n", True), ('```json\n{"na', True),
    ('```json\n{"name": "Write", "argu', True), ('{"tool": "x", "parameters": {"a": 1', True),
    ('{"name": "ping"}\n``', True),
    ("```py", False), ("```python\n", False), ('```json\nHere', False), ('{"answer": 4', False),
    ('{"name": "ping"} and', False), ("Sure", False), ("{x", False), ("[", False),
])
def test_may_repair_tells_when_text_can_no_longer_be_a_call(text: str, held: bool) -> None:
    assert may_repair(text) is held


def _stream(proc: OutputProcessor, text: str, rng: random.Random) -> tuple[list, object]:
    deltas, i = [], 0
    while i < len(text):
        n = rng.randint(1, 6)
        deltas += proc.feed(text[i:i + n])
        i += n
    deltas += proc.flush()
    return deltas, proc.finish()


@pytest.mark.parametrize("fmt", TOOL_FORMATS)
@pytest.mark.parametrize("name", ["fenced", "tool/parameters", "bare"])
def test_every_format_streams_a_repaired_call_whole(fmt: str, name: str) -> None:
    notes: list[str] = []
    for seed in range(4):
        proc = OutputProcessor(fmt, TOOLS, repair=True, on_repair=notes.append)
        deltas, final = _stream(proc, CALLS[name], random.Random(seed))
        assert final.content is None and [c.name for c in final.tool_calls] == ["Write"]
        assert json.loads(final.tool_calls[0].arguments_json) == ARGS
        assert all(d.content is None for d in deltas)  # nothing leaked as text first
        pieces = [d.tool_call for d in deltas if d.tool_call is not None]
        assert pieces[0].name == "Write" and pieces[0].id == final.tool_calls[0].id
        assert json.loads("".join(p.arguments for p in pieces)) == ARGS
    own = (fmt, name) == ("llama3_json", "bare")  # llama3_json's own bare call: no repair
    assert len(notes) == (0 if own else 4)


@pytest.mark.parametrize("fmt", TOOL_FORMATS)
def test_strict_reading_keeps_the_text(fmt: str) -> None:
    proc = OutputProcessor(fmt, TOOLS, repair=False)
    deltas, final = _stream(proc, CALLS["fenced"], random.Random(0))
    assert final.tool_calls == [] and final.content == CALLS["fenced"]
    assert "".join(d.content or "" for d in deltas) == CALLS["fenced"]


@pytest.mark.parametrize("fmt", TOOL_FORMATS)
def test_text_is_released_once_it_cannot_be_a_call(fmt: str) -> None:
    proc = OutputProcessor(fmt, TOOLS, repair=True)
    out = proc.feed("```python\nprint(1)")
    assert "".join(d.content or "" for d in out).startswith("```python")
    proc = OutputProcessor(fmt, TOOLS, repair=True)
    assert proc.feed('```json\n{"name": "Write", "arguments": {') == []  # held
    proc = OutputProcessor(fmt, TOOLS, repair=True)
    out = proc.feed('```json\n{"name": "create_file", "arguments": {"path": "a"}}\n```')
    assert out == []  # held to the end: only then is it known to be no call
    final = proc.finish()
    assert final.tool_calls == [] and final.content.startswith("```json")


def test_a_cut_reply_stays_text() -> None:
    proc = OutputProcessor("hermes", TOOLS, repair=True)
    proc.feed('```json\n{"name": "Write", "arguments": {"file_path": "a.py"')
    final = proc.finish(truncated=True)
    assert final.tool_calls == [] and final.content.startswith("```json")


def test_a_marked_up_call_is_read_by_its_format_as_before() -> None:
    text = '<tool_call>\n{"name": "ToolSearch", "arguments": {"query": "x"}}\n</tool_call>'
    notes: list[str] = []
    proc = OutputProcessor("hermes", TOOLS, repair=True, on_repair=notes.append)
    _, final = _stream(proc, text, random.Random(0))
    assert [c.name for c in final.tool_calls] == ["ToolSearch"] and notes == []
