"""The Messages API as agents drive it, against a real `afm serve`: thinking blocks from the
project's thinking model (`tiny-think`, built as tests/test_compat_reasoning.py builds it) with
`thinking` enabled and none when disabled; and a request shaped like Claude Code's, written
from Anthropic's published Messages API reference: system text blocks with `cache_control`,
a dozen client tools with real-size JSON Schemas (Claude Code's tool names; descriptions
shortened so the prompt fits the test model's 4096-token window), `metadata.user_id`,
`anthropic-version` / `anthropic-beta` / `x-api-key` headers, streaming, then a tool_result
turn sent back with its thinking and tool_use blocks."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import anthropic
import httpx
import jsonschema
import pytest

from tests.conftest import LiveServer
from tests.contract_support import parse_sse_events, stream_errors
from tests.test_compat_messages import comparable, create, sdk, streamed
from tests.test_compat_reasoning import build_think_model

pytestmark = pytest.mark.slow

SEEDS = (0, 1, 2, 3)
ASK = [{"role": "user", "content": "Is it raining?"}]
ON = {"type": "enabled", "budget_tokens": 1024}
OFF = {"type": "disabled"}


@pytest.fixture(scope="module")
def think(live_server: Callable[..., LiveServer],
          tmp_path_factory: pytest.TempPathFactory) -> Iterator[anthropic.Anthropic]:
    model = build_think_model(tmp_path_factory.mktemp("models") / "tiny-think")
    with sdk(live_server(model=model)) as client:
        yield client


def kinds(message: Any) -> list[str]:
    return [block.type for block in message.content]


def test_thinking_enabled_gives_thinking_blocks(think: anthropic.Anthropic) -> None:
    thought = 0
    for seed in SEEDS:
        m = create(think, seed=seed, messages=ASK, max_tokens=200, thinking=ON)
        if "thinking" in kinds(m):
            assert kinds(m)[0] == "thinking" and kinds(m).count("thinking") == 1
            block = m.content[0]
            assert block.thinking.strip() == block.thinking != ""
            assert "<think>" not in block.thinking and "</think>" not in block.thinking
            thought += 1
        s = streamed(think, seed=seed, messages=ASK, max_tokens=200, thinking=ON)
        assert comparable(s) == comparable(m)
    assert thought >= 2


def test_thinking_disabled_gives_none(think: anthropic.Anthropic) -> None:
    on = think.messages.count_tokens(model="m", messages=ASK, thinking=ON).input_tokens
    off = think.messages.count_tokens(model="m", messages=ASK, thinking=OFF).input_tokens
    assert off > on  # the template closes an empty think block when thinking is off
    for seed in SEEDS:
        m = create(think, seed=seed, messages=ASK, max_tokens=60, thinking=OFF)
        assert "thinking" not in kinds(m)
        assert m.usage.input_tokens + m.usage.cache_read_input_tokens == off
        assert "thinking" not in kinds(streamed(think, seed=seed, messages=ASK,
                                                max_tokens=60, thinking=OFF))


def test_thinking_then_forced_tool(think: anthropic.Anthropic) -> None:
    tool = {"name": "get_weather", "input_schema": {
        "type": "object", "properties": {"city": {"type": "string", "maxLength": 8}},
        "required": ["city"], "additionalProperties": False}}
    thought = 0
    for seed in SEEDS:
        m = create(think, seed=seed, messages=ASK, max_tokens=200, thinking=ON, tools=[tool],
                   tool_choice={"type": "any", "disable_parallel_tool_use": True})
        thought += kinds(m)[0] == "thinking"
        assert kinds(m)[-1] == "tool_use" and m.stop_reason == "tool_use"
        jsonschema.validate(m.content[-1].input, tool["input_schema"])
    assert thought >= 2


# ---------------------------------------------------------------- a Claude-Code-shaped request
def _tool(name: str, description: str, properties: dict[str, Any],
          required: list[str]) -> dict[str, Any]:
    return {"name": name, "description": description, "input_schema": {
        "type": "object", "properties": properties, "required": required,
        "additionalProperties": False, "$schema": "http://json-schema.org/draft-07/schema#"}}


S = {"type": "string"}
CLAUDE_CODE_TOOLS = [
    _tool("Task", "Launch a sub-agent to handle a multi-step task on its own.",
          {"description": {**S, "description": "A 3-5 word task summary"},
           "prompt": {**S, "description": "The task for the agent"},
           "subagent_type": {**S, "description": "Which agent type to use"}},
          ["description", "prompt", "subagent_type"]),
    _tool("Bash", "Run a shell command in a persistent session, with an optional timeout.",
          {"command": {**S, "description": "The command to run"},
           "timeout": {"type": "number", "description": "Milliseconds, at most 600000"},
           "description": {**S, "description": "What the command does, in 5-10 words"},
           "run_in_background": {"type": "boolean"}},
          ["command"]),
    _tool("Glob", "Find files by glob pattern, newest first.",
          {"pattern": {**S, "description": "Glob such as src/**/*.ts"},
           "path": {**S, "description": "Directory to search (default: cwd)"}},
          ["pattern"]),
    _tool("Grep", "Search file contents with a regular expression (ripgrep).",
          {"pattern": S, "path": S, "glob": S,
           "output_mode": {"type": "string", "enum": ["content", "files_with_matches",
                                                      "count"]},
           "-B": {"type": "number"}, "-A": {"type": "number"}, "-C": {"type": "number"},
           "-n": {"type": "boolean"}, "-i": {"type": "boolean"}, "type": S,
           "head_limit": {"type": "number"}, "multiline": {"type": "boolean"}},
          ["pattern"]),
    _tool("LS", "List a directory.",
          {"path": {**S, "description": "Absolute path"},
           "ignore": {"type": "array", "items": S}},
          ["path"]),
    _tool("Read", "Read a file, optionally a line range.",
          {"file_path": S, "offset": {"type": "number"}, "limit": {"type": "number"}},
          ["file_path"]),
    _tool("Edit", "Replace an exact string in a file.",
          {"file_path": S, "old_string": S, "new_string": S,
           "replace_all": {"type": "boolean", "default": False}},
          ["file_path", "old_string", "new_string"]),
    _tool("MultiEdit", "Apply several exact-string replacements to one file.",
          {"file_path": S, "edits": {"type": "array", "minItems": 1, "items": {
              "type": "object", "properties": {"old_string": S, "new_string": S,
                                               "replace_all": {"type": "boolean"}},
              "required": ["old_string", "new_string"], "additionalProperties": False}}},
          ["file_path", "edits"]),
    _tool("Write", "Write a file, replacing it.", {"file_path": S, "content": S},
          ["file_path", "content"]),
    _tool("NotebookEdit", "Replace, insert or delete a Jupyter notebook cell.",
          {"notebook_path": S, "cell_id": S, "new_source": S,
           "cell_type": {"type": "string", "enum": ["code", "markdown"]},
           "edit_mode": {"type": "string", "enum": ["replace", "insert", "delete"]}},
          ["notebook_path", "new_source"]),
    _tool("WebFetch", "Fetch a URL and answer a prompt about its content.",
          {"url": {"type": "string", "format": "uri"}, "prompt": S}, ["url", "prompt"]),
    _tool("TodoWrite", "Update the session's task list.",
          {"todos": {"type": "array", "items": {
              "type": "object", "properties": {
                  "content": {"type": "string", "minLength": 1},
                  "status": {"type": "string", "enum": ["pending", "in_progress",
                                                        "completed"]},
                  "activeForm": {"type": "string", "minLength": 1}},
              "required": ["content", "status", "activeForm"],
              "additionalProperties": False}}},
          ["todos"]),
    _tool("WebSearch", "Search the web.",
          {"query": {"type": "string", "minLength": 2},
           "allowed_domains": {"type": "array", "items": S},
           "blocked_domains": {"type": "array", "items": S}},
          ["query"]),
]
CACHED = {"type": "ephemeral"}
CLAUDE_CODE = {
    "model": "claude-sonnet-4-5",
    "max_tokens": 32000,
    "stream": True,
    "system": [
        {"type": "text", "text": "You are Claude Code, Anthropic's official CLI for Claude.",
         "cache_control": CACHED},
        {"type": "text", "cache_control": CACHED, "text": (
            "You are an interactive CLI tool that helps users with software engineering tasks."
            " Use the tools available to you to assist the user. Keep answers short. "
            "<env>Working directory: /home/user/project\nPlatform: linux</env>")},
    ],
    "messages": [{"role": "user", "content": [
        {"type": "text", "text": "<system-reminder>This is a reminder.</system-reminder>"},
        {"type": "text", "text": "List the Python files and fix the failing test.",
         "cache_control": CACHED}]}],
    "tools": CLAUDE_CODE_TOOLS,
    "metadata": {"user_id": "user_0123abcd_account__session_4567"},
    "temperature": 1,
}
HEADERS = {"anthropic-version": "2023-06-01", "x-api-key": "sk-ant-local",
           "anthropic-beta": "claude-code-20250219,interleaved-thinking-2025-05-14,"
                             "fine-grained-tool-streaming-2025-05-14",
           "x-app": "cli", "user-agent": "claude-cli/2.0.0 (external, cli)"}


def test_claude_code_shaped_request_streams(server: LiveServer) -> None:
    """The request as Claude Code sends it (max_tokens 32000 is capped by the window), and
    with a forced tool: valid named-event streams whose usage adds up to the count."""
    assert len(CLAUDE_CODE_TOOLS) >= 12
    prompt = httpx.post(server.url + "/v1/messages/count_tokens", headers=HEADERS, json={
        k: CLAUDE_CODE[k] for k in ("model", "system", "messages", "tools")}).json()
    assert 1000 < prompt["input_tokens"] < 3800
    schemas = {t["name"]: t["input_schema"] for t in CLAUDE_CODE_TOOLS}
    for seed, extra in ((0, {}), (1, {"tool_choice": {"type": "any"}, "max_tokens": 200})):
        with httpx.stream("POST", server.url + "/v1/messages", headers=HEADERS, timeout=300,
                          json={**CLAUDE_CODE, "seed": seed, **extra}) as r:
            text = r.read().decode()
        assert r.status_code == 200, text
        assert stream_errors("post", "/v1/messages", text) == []
        events = [json.loads(data) for _, data in parse_sse_events(text)]
        assert events[-1] == {"type": "message_stop"}
        end = events[-2]
        assert end["type"] == "message_delta"
        assert end["usage"]["input_tokens"] + end["usage"]["cache_read_input_tokens"] \
            == prompt["input_tokens"]
        # random weights rarely close an unbounded string: a forced call cut by max_tokens ends
        # as a tool_use with the input written so far (a JSON object, not yet valid against
        # its schema); every call that did complete validates against its tool's schema
        starts = [e for e in events if e["type"] == "content_block_start"
                  and e["content_block"]["type"] == "tool_use"]
        for e in starts:
            raw = "".join(d["delta"]["partial_json"] for d in events
                          if d["type"] == "content_block_delta" and d["index"] == e["index"])
            cut = end["delta"]["stop_reason"] == "max_tokens" and e is starts[-1]
            if cut:
                assert isinstance(json.loads(raw), dict)
            else:
                jsonschema.validate(json.loads(raw), schemas[e["content_block"]["name"]])


def test_claude_code_follow_up_turn_through_the_sdk(server: LiveServer) -> None:
    """The next turn as Claude Code sends it: the assistant's thinking, text and tool_use
    blocks, then the tool_result; streamed and not, the same message; the shared prefix
    comes from the cache."""
    with sdk(server, default_headers={k: v for k, v in HEADERS.items()
                                      if k != "user-agent"}) as client:
        _follow_up(client)


def _follow_up(client: anthropic.Anthropic) -> None:
    follow = [*CLAUDE_CODE["messages"],
              {"role": "assistant", "content": [
                  {"type": "thinking", "thinking": "Find the Python files first.",
                   "signature": "EqQBCkYIBRgCIkB"},
                  {"type": "text", "text": "I'll list the Python files."},
                  {"type": "tool_use", "id": "toolu_01AbCdEf", "name": "Glob",
                   "input": {"pattern": "**/*.py"}}]},
              {"role": "user", "content": [
                  {"type": "tool_result", "tool_use_id": "toolu_01AbCdEf",
                   "content": "src/app.py\ntests/test_app.py", "cache_control": CACHED}]}]
    shared = {k: CLAUDE_CODE[k] for k in ("system", "tools", "metadata")}
    first = streamed(client, seed=2, max_tokens=60, messages=follow, **shared)
    assert first.stop_reason in ("end_turn", "max_tokens", "tool_use", "stop_sequence")
    again = create(client, seed=2, max_tokens=60, messages=follow, **shared)
    assert again.usage.cache_read_input_tokens > 0
    assert comparable(first) == comparable(again)
