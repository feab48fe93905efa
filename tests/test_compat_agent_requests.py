"""What today's coding agents send, accepted by rule, against a real `afm serve` (the tiny model
and the project's thinking model): `system` turns inside Anthropic `messages`, server and hosted
tools left out and reported (`X-AFM-Warnings`, the access log), `thinking` / `output_config` /
`context_management`, deferred tools, `?beta=true`, Responses `namespace` tools and calls, and
reasoning sealed for `store: false` clients (`encrypted_content`, thinking `signature`), read
back on the next turn. Prompt lengths (count_tokens, usage) show what reached the model."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from tests.conftest import LiveServer
from tests.contract_support import parse_sse
from tests.test_compat_reasoning import build_think_model
from tests.waiting import eventually

pytestmark = pytest.mark.slow

USER = [{"role": "user", "content": "hi"}]
TOOL = {"name": "f", "description": "Do f.", "input_schema": {"type": "object"}}
SEARCH = {"type": "web_search_20250305", "name": "web_search", "max_uses": 2}
SEEDS = (0, 1, 2, 3, 4, 5)


@pytest.fixture(scope="module")
def think(live_server: Callable[..., LiveServer],
          tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    yield live_server(model=build_think_model(tmp_path_factory.mktemp("models") / "think"))


def count(server: LiveServer, messages: list[Any], **kw: Any) -> int:
    r = httpx.post(server.url + "/v1/messages/count_tokens?beta=true",
                   json={"model": "m", "messages": messages, **kw}, timeout=30)
    assert r.status_code == 200, r.text
    return int(r.json()["input_tokens"])


def message(server: LiveServer, request_id: str | None = None, **body: Any) -> httpx.Response:
    headers = {"X-Request-ID": request_id} if request_id else {}
    return httpx.post(server.url + "/v1/messages?beta=true", headers=headers, timeout=60,
                      json={"model": "m", "max_tokens": 4, "messages": USER, **body})


def events(body: str) -> list[dict[str, Any]]:
    return [json.loads(data) for data in parse_sse(body) if data != "[DONE]"]


def access_line(server: LiveServer, request_id: str, wait: float = 10.0) -> str:
    def found() -> str | None:
        return next((line for line in server.log_path.read_text(errors="replace").splitlines()
                     if "afm.access" in line and request_id in line), None)

    return eventually(found, wait, f"an access line for {request_id}", interval=0.1)


def test_system_turns_render_in_place_as_chat_renders_them(server: LiveServer) -> None:
    turns = [{"role": "user", "content": "hi"},
             {"role": "system", "content": [{"type": "text", "text": "Be brief.",
                                             "cache_control": {"type": "ephemeral"}}]}]
    chat = httpx.post(server.url + "/v1/tokenize", timeout=30, json={"messages": [
        {"role": "user", "content": "hi"}, {"role": "system", "content": "Be brief."}]})
    assert count(server, turns) == chat.json()["count"] > count(server, USER)
    r = message(server, messages=turns)
    assert r.status_code == 200, r.text
    assert "x-afm-warnings" not in r.headers


def test_server_tools_are_left_out_and_reported(server: LiveServer) -> None:
    r = message(server, "req-agents-search", tools=[TOOL, SEARCH])
    assert r.status_code == 200, r.text
    warning = r.headers["x-afm-warnings"]
    assert "tools[1] (web_search_20250305) left out" in warning
    used = r.json()["usage"]
    assert used["input_tokens"] + used["cache_read_input_tokens"] == count(server, USER,
                                                                          tools=[TOOL])
    assert count(server, USER, tools=[TOOL, SEARCH]) == count(server, USER, tools=[TOOL])
    assert "web_search_20250305" in access_line(server, "req-agents-search")
    plain = message(server, "req-agents-plain", tools=[TOOL])
    assert "x-afm-warnings" not in plain.headers
    assert "warnings=" not in access_line(server, "req-agents-plain")


def test_thinking_types_and_effort(server: LiveServer) -> None:
    on = count(server, USER, thinking={"type": "enabled", "budget_tokens": 1024})
    for kind in ({"type": "adaptive"}, {"type": "adaptive", "display": "omitted"},
                 {"type": "between_tools"}):
        assert count(server, USER, thinking=kind) == on
    assert count(server, USER, thinking={"type": "disabled"}) != on
    # An effort turns thinking on, but an explicit `disabled` stays authoritative.
    assert count(server, USER, thinking={"type": "disabled"}, output_config={"effort": "high"}) \
        == count(server, USER, thinking={"type": "disabled"})
    for effort in ("low", "medium", "high", "xhigh", "max"):
        r = message(server, output_config={"effort": effort},
                    thinking={"type": "adaptive", "display": "omitted"},
                    context_management={"edits": [{"type": "clear_thinking_20251015",
                                                   "keep": "all"}]},
                    metadata={"user_id": json.dumps({"session_id": "s"})})
        assert r.status_code == 200, r.text
    bad = message(server, output_config={"effort": "extreme"})
    assert bad.status_code == 400 and bad.json()["type"] == "error"


def _tool_turn(thinking: dict[str, Any] | None) -> list[dict[str, Any]]:
    blocks = [thinking] if thinking else []
    return [{"role": "user", "content": "hi"},
            {"role": "assistant", "content": [
                *blocks, {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1",
                                          "content": "ok"}]}]


def test_clear_thinking_drops_older_thinking(server: LiveServer) -> None:
    thought = {"type": "thinking", "thinking": "I should call f.", "signature": ""}
    kept, bare = (count(server, _tool_turn(t), tools=[TOOL]) for t in (thought, None))
    assert kept > bare

    def edited(keep: Any) -> int:
        return count(server, _tool_turn(thought), tools=[TOOL], context_management={
            "edits": [{"type": "clear_thinking_20251015", "keep": keep}]})

    assert edited({"type": "thinking_turns", "value": 0}) == bare
    assert edited("all") == edited({"type": "thinking_turns", "value": 1}) == kept
    other = message(server, context_management={"edits": [
        {"type": "clear_tool_uses_20250919", "trigger": {"type": "input_tokens", "value": 9}}]})
    assert other.status_code == 200
    assert "context_management.edits[0] (clear_tool_uses_20250919) not applied" in \
        other.headers["x-afm-warnings"]


def test_deferred_tools_join_once_referenced(server: LiveServer) -> None:
    later = {"name": "g", "description": "Do g.", "input_schema": {"type": "object"}}
    deferred = {**later, "defer_loading": True}
    assert count(server, USER, tools=[TOOL, deferred]) == count(server, USER, tools=[TOOL])
    found = [{"role": "user", "content": "find g"},
             {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1",
                                                "name": "f", "input": {}}]},
             {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1",
                                           "content": [{"type": "tool_reference",
                                                        "tool_name": "g"}]}]}]
    assert count(server, found, tools=[TOOL, deferred]) == count(server, found,
                                                                 tools=[TOOL, later])


def test_omitted_thinking_is_sealed_and_read_back(think: LiveServer) -> None:
    omitted = {"type": "enabled", "budget_tokens": 1024, "display": "omitted"}
    for seed in SEEDS:
        r = message(think, thinking=omitted, max_tokens=60, seed=seed)
        blocks = r.json()["content"]
        if blocks and blocks[0]["type"] == "thinking":
            break
    else:
        pytest.fail("the thinking model never thought")
    block = blocks[0]
    assert block["thinking"] == "" and block["signature"].startswith("afm1.")
    shown = message(think, thinking={"type": "enabled", "budget_tokens": 1024}, max_tokens=60,
                    seed=seed).json()["content"][0]
    assert shown["thinking"] and shown["signature"] == block["signature"]
    tools = {"tools": [TOOL]}
    sealed = count(think, _tool_turn(block), **tools)
    assert sealed == count(think, _tool_turn(shown), **tools) > count(think, _tool_turn(None),
                                                                      **tools)
    forged = {**block, "signature": block["signature"][:-4] + "0000"}
    assert count(think, _tool_turn(forged), **tools) == count(think, _tool_turn(None), **tools)

    streamed = httpx.post(think.url + "/v1/messages", timeout=60, json={
        "model": "m", "max_tokens": 60, "messages": USER, "thinking": omitted, "seed": seed,
        "stream": True})
    deltas = [e["delta"] for e in events(streamed.text) if e["type"] == "content_block_delta"]
    kinds = {d["type"] for d in deltas}
    assert "thinking_delta" not in kinds
    assert [d["signature"] for d in deltas if d["type"] == "signature_delta"] == \
        [block["signature"]]


# ---------------------------------------------------------------- Responses
NAMESPACE = {"type": "namespace", "name": "agents", "description": "Sub-agents.",
             "tools": [{"type": "function", "name": "close_agent", "strict": False,
                        "description": "Close an agent.",
                        "parameters": {"type": "object",
                                       "properties": {"id": {"type": "string", "maxLength": 8}},
                                       "required": ["id"], "additionalProperties": False}}]}
HOSTED = {"type": "web_search", "external_web_access": False}


def respond(server: LiveServer, **body: Any) -> httpx.Response:
    return httpx.post(server.url + "/v1/responses", timeout=60,
                      json={"model": "m", "max_output_tokens": 40, **body})


def test_namespace_tools_and_hosted_tools(server: LiveServer) -> None:
    # a random-weight model may reason past the token limit before it calls: try a few seeds
    for seed in SEEDS:
        r = respond(server, input="Close agent a1.", tools=[NAMESPACE, HOSTED], seed=seed,
                    tool_choice="required", parallel_tool_calls=False, store=False,
                    prompt_cache_key="session-1",
                    client_metadata={"x-codex-turn-metadata": "{}"},
                    include=["reasoning.encrypted_content"], reasoning={"summary": "auto"})
        assert r.status_code == 200, r.text
        assert "tools[1] (web_search) left out: a hosted tool" in r.headers["x-afm-warnings"]
        calls = [i for i in r.json()["output"] if i["type"] == "function_call"]
        if calls:
            break
    else:
        pytest.fail("no seed gave a call within the token limit")
    [call] = calls
    assert (call["name"], call["namespace"]) == ("close_agent", "agents")
    assert set(json.loads(call["arguments"])) <= {"id"}  # the arguments so far when cut

    streamed = respond(server, input="Close agent a1.", tools=[NAMESPACE, HOSTED], seed=seed,
                       tool_choice="required", parallel_tool_calls=False, stream=True)
    added = [e["item"] for e in events(streamed.text)
             if e["type"] == "response.output_item.added"]
    assert [(i["name"], i["namespace"]) for i in added if i["type"] == "function_call"] == \
        [("close_agent", "agents")]

    history = [{"type": "message", "role": "user", "content": "Close agent a1."},
               {k: call[k] for k in ("type", "call_id", "name", "namespace", "arguments")},
               {"type": "function_call_output", "call_id": call["call_id"], "output": "closed"}]
    back = respond(server, input=history, tools=[NAMESPACE, HOSTED], max_output_tokens=1)
    assert back.status_code == 200, back.text
    unqualified = [*history[:1], {**history[1], "namespace": None}, history[2]]
    other = respond(server, input=unqualified, tools=[NAMESPACE], max_output_tokens=1)
    assert other.json()["usage"]["input_tokens"] != back.json()["usage"]["input_tokens"]

    refused = respond(server, input="Search.", tools=[NAMESPACE, HOSTED],
                      tool_choice={"type": "web_search"})
    assert refused.status_code == 400
    assert "web_search" in refused.json()["error"]["message"]
    assert "left out" in refused.json()["error"]["message"]


def test_encrypted_reasoning_round_trip(think: LiveServer) -> None:
    ask = {"input": "Is it raining?", "store": False,
           "include": ["reasoning.encrypted_content"], "max_output_tokens": 60}
    for seed in SEEDS:
        out = respond(think, seed=seed, **ask).json()["output"]
        reasoning = [i for i in out if i["type"] == "reasoning"]
        if reasoning:
            break
    else:
        pytest.fail("the thinking model never reasoned")
    [item] = reasoning
    text = item["content"][0]["text"]
    assert item["encrypted_content"].startswith("afm1.") and text
    assert "encrypted_content" not in respond(think, seed=seed, input="Is it raining?",
                                              max_output_tokens=60).json()["output"][0]

    def prompt(reasoning_item: dict[str, Any] | None) -> httpx.Response:
        turn = [{"type": "message", "role": "user", "content": "Is it raining?"},
                *([reasoning_item] if reasoning_item else []),
                {"type": "function_call", "call_id": "call_1", "name": "f", "arguments": "{}"},
                {"type": "function_call_output", "call_id": "call_1", "output": "dry"}]
        return respond(think, input=turn, max_output_tokens=1, store=False,
                       tools=[{"type": "function", "name": "f", "parameters": {}}])

    def used(reply: httpx.Response) -> int:
        assert reply.status_code == 200, reply.text
        return int(reply.json()["usage"]["input_tokens"])

    opaque = {"type": "reasoning", "id": item["id"], "summary": [],
              "encrypted_content": item["encrypted_content"]}
    readable = {"type": "reasoning", "summary": [],
                "content": [{"type": "reasoning_text", "text": text}]}
    assert used(prompt(opaque)) == used(prompt(readable)) > used(prompt(None))
    forged = prompt({**opaque, "encrypted_content": "gAAAAAB-from-elsewhere"})
    assert used(forged) == used(prompt(None))
    assert "input[1].encrypted_content left out" in forged.headers["x-afm-warnings"]


# ---------------------------------------------------------------- context honesty
def test_models_report_context_and_capabilities(server: LiveServer) -> None:
    [chat] = [m for m in httpx.get(server.url + "/v1/models").json()["data"]
              if m["type"] == "chat"]
    assert chat["max_context_length"] == 4096
    assert chat["capabilities"] == {"tools": True, "reasoning": True, "vision": False}


def test_prompt_that_cannot_fit_is_refused_and_output_clipped(server: LiveServer) -> None:
    words = "lighthouse " * 900  # ~4.5k tokens on the tiny model's tokenizer
    r = message(server, messages=[{"role": "user", "content": words}])
    assert r.status_code == 400
    body = r.json()
    assert body["type"] == "error" and "context" in body["error"]["message"]
    chat = httpx.post(server.url + "/v1/chat/completions", timeout=30, json={
        "model": "m", "messages": [{"role": "user", "content": words}], "max_tokens": 4})
    assert chat.status_code == 400 and chat.json()["error"]["code"] == "context_length_exceeded"
    # A prompt that leaves a few tokens: the output limit is clipped to them.
    text = "lighthouse " * 800
    n = count(server, [{"role": "user", "content": text}])
    room = 4096 - n
    assert 0 < room < 400
    fits = message(server, messages=[{"role": "user", "content": text}], max_tokens=5000,
                   seed=0)
    assert fits.status_code == 200, fits.text
    assert fits.json()["usage"]["output_tokens"] <= room


# ---------------------------------------------------------------- agent turns are cheap
def _streamed_usage(server: LiveServer, path: str, body: dict[str, Any]) -> dict[str, Any]:
    r = httpx.post(server.url + path, json={**body, "stream": True}, timeout=120)
    assert r.status_code == 200, r.text
    for event in reversed(events(r.text)):
        if event["type"] == "message_delta":
            return dict(event["usage"])
        if event["type"] in ("response.completed", "response.incomplete"):
            return dict(event["response"]["usage"])
    raise AssertionError(r.text)


def test_second_agent_turn_reads_its_prompt_from_the_cache(server: LiveServer) -> None:
    """A session's next request resends the whole conversation (Claude Code always, Codex with
    `store: false`): the prefix cache serves >= 90% of it, streamed."""
    system = "You are a coding agent. " + "Keep the lighthouse lit. " * 150
    first = {"model": "m", "max_tokens": 4, "system": system, "tools": [TOOL],
             "thinking": {"type": "adaptive"},
             "messages": [{"role": "user", "content": "Create hello.py."},
                          {"role": "system", "content": "Working directory: /tmp/w"}]}
    _streamed_usage(server, "/v1/messages", first)
    second = {**first, "messages": [
        *first["messages"],
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "f",
                                           "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1",
                                      "content": "File created."}]}]}
    used = _streamed_usage(server, "/v1/messages", second)
    prompt = used["input_tokens"] + used["cache_read_input_tokens"]
    assert used["cache_read_input_tokens"] >= 0.9 * prompt, used

    turn = [{"type": "message", "role": "developer", "content": system},
            {"type": "message", "role": "user", "content": "Create hello.py."}]
    body = {"model": "m", "max_output_tokens": 4, "store": False, "tools": [NAMESPACE, HOSTED],
            "include": ["reasoning.encrypted_content"], "input": turn}
    _streamed_usage(server, "/v1/responses", body)
    follow = {**body, "input": [
        *turn, {"type": "function_call", "call_id": "call_1", "name": "close_agent",
                "namespace": "agents", "arguments": "{\"id\": \"a1\"}"},
        {"type": "function_call_output", "call_id": "call_1", "output": "closed"}]}
    used = _streamed_usage(server, "/v1/responses", follow)
    assert used["input_tokens_details"]["cached_tokens"] >= 0.9 * used["input_tokens"], used
