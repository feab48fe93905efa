"""Small models' tool calls read as calls on every surface: a reply that is nothing but a
```json fence naming a declared tool, with arguments valid against its schema, comes back as
that call on chat completions, Responses and Messages, streamed and not, reported in
X-AFM-Warnings (a JSON reply) and the access log (both); a call to an undeclared tool stays
text; --strict-tool-calls keeps such replies as text."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest

from tests.api.conftest import Api
from tests.scripted import script

ARGS = {"file_path": "hello.py", "content": "print('hello world')\n"}
SCHEMA = {"type": "object", "properties": {"file_path": {"type": "string"},
                                           "content": {"type": "string"}},
          "required": ["file_path", "content"], "additionalProperties": False}
FENCED = ("```json\n", '{"name": "Write", ', '"arguments": ', json.dumps(ARGS)[:20],
          json.dumps(ARGS)[20:], "}\n", "```")
UNDECLARED = ("```json\n", '{"name": "create_file", "arguments": {"path": "a.py"}}', "\n```")
TASK = "Create a file named hello.py that prints hello world."
NOTE = "tool call Write read from a reply written as a ```json fence"

BODIES = {
    "chat": ("/v1/chat/completions", {
        "model": "tiny", "max_tokens": 64, "messages": [{"role": "user", "content": TASK}],
        "tools": [{"type": "function", "function": {"name": "Write", "parameters": SCHEMA}}]}),
    "responses": ("/v1/responses", {
        "model": "tiny", "max_output_tokens": 64, "input": TASK, "store": False,
        "tools": [{"type": "function", "name": "Write", "parameters": SCHEMA}]}),
    "messages": ("/v1/messages", {
        "model": "tiny", "max_tokens": 64, "messages": [{"role": "user", "content": TASK}],
        "tools": [{"name": "Write", "input_schema": SCHEMA}]}),
}


def _events(text: str) -> list[dict[str, Any]]:
    return [json.loads(line[6:]) for line in text.splitlines()
            if line.startswith("data: ") and line != "data: [DONE]"]


def _reply(surface: str, r: Any, stream: bool) -> tuple[list[tuple[str, dict]], str]:
    """(calls as (name, arguments), text) of one reply on ``surface``."""
    if surface == "chat":
        if not stream:
            msg = r.json()["choices"][0]["message"]
            return ([(c["function"]["name"], json.loads(c["function"]["arguments"]))
                     for c in msg.get("tool_calls") or []], msg["content"] or "")
        calls: dict[int, list[str]] = {}
        text = ""
        for e in _events(r.text):
            for choice in e.get("choices") or []:
                delta = choice["delta"]
                text += delta.get("content") or ""
                for c in delta.get("tool_calls") or []:
                    got = calls.setdefault(c["index"], ["", ""])
                    got[0] += (c.get("function") or {}).get("name") or ""
                    got[1] += (c.get("function") or {}).get("arguments") or ""
        return [(n, json.loads(a)) for n, a in calls.values()], text
    if surface == "responses":
        body = r.json() if not stream else next(
            e for e in _events(r.text) if e["type"] == "response.completed")["response"]
        calls_ = [(i["name"], json.loads(i["arguments"])) for i in body["output"]
                  if i["type"] == "function_call"]
        text = "".join(p["text"] for i in body["output"] if i["type"] == "message"
                       for p in i["content"])
        if stream:  # the deltas agree with the completed response
            deltas = "".join(e["delta"] for e in _events(r.text)
                             if e["type"] == "response.output_text.delta")
            assert deltas == text
        return calls_, text
    if not stream:
        blocks = r.json()["content"]
    else:
        blocks, parts = [], {}
        for e in _events(r.text):
            if e["type"] == "content_block_start":
                blocks.append(dict(e["content_block"]))
                parts[e["index"]] = []
            elif e["type"] == "content_block_delta":
                d = e["delta"]
                parts[e["index"]].append(d.get("text", d.get("partial_json", "")))
        for k, b in enumerate(blocks):
            if b["type"] == "tool_use":
                b["input"] = json.loads("".join(parts[k]) or "{}")
            elif b["type"] == "text":
                b["text"] = "".join(parts[k])
    return ([(b["name"], b["input"]) for b in blocks if b["type"] == "tool_use"],
            "".join(b.get("text", "") for b in blocks if b["type"] == "text"))


@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
@pytest.mark.parametrize("surface", list(BODIES))
async def test_a_fenced_call_to_a_declared_tool_is_that_call(
        api: Api, surface: str, stream: bool, caplog: pytest.LogCaptureFixture) -> None:
    path, body = BODIES[surface]
    api.engine.scripts.append(script(*FENCED))
    with caplog.at_level(logging.INFO, logger="afm.access"):
        r = await api.post(path, {**body, "stream": stream})
    assert r.status_code == 200, r.text
    calls, text = _reply(surface, r, stream)
    assert calls == [("Write", ARGS)] and text == ""
    if not stream:
        assert NOTE in r.headers["x-afm-warnings"]
        if surface == "chat":
            assert r.json()["choices"][0]["finish_reason"] == "tool_calls"
        if surface == "messages":
            assert r.json()["stop_reason"] == "tool_use"
    access = [rec.getMessage() for rec in caplog.records if rec.name == "afm.access"]
    assert any(NOTE in line for line in access), access  # streams too, at their end


@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
@pytest.mark.parametrize("surface", list(BODIES))
async def test_an_undeclared_tool_or_the_strict_reading_stays_text(
        api: Api, surface: str, stream: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    path, body = BODIES[surface]
    api.engine.scripts.append(script(*UNDECLARED))
    r = await api.post(path, {**body, "stream": stream})
    assert _reply(surface, r, stream) == ([], "".join(UNDECLARED).strip())
    assert "x-afm-warnings" not in r.headers
    monkeypatch.setattr(api.settings, "strict_tool_calls", True)
    api.engine.scripts.append(script(*FENCED))
    r = await api.post(path, {**body, "stream": stream})
    assert _reply(surface, r, stream) == ([], "".join(FENCED).strip())
    assert "x-afm-warnings" not in r.headers


async def test_no_repair_without_tools_or_under_tool_choice_none(api: Api) -> None:
    path, body = BODIES["chat"]
    for extra in ({"tools": None}, {"tool_choice": "none"}):
        api.engine.scripts.append(script(*FENCED))
        request = {k: v for k, v in {**body, **extra}.items() if v is not None}
        r = await api.post(path, request)
        assert _reply("chat", r, False) == ([], "".join(FENCED).strip())
