"""Messages API rules the contract states, refused by its validation before any translator
runs: 400 in Anthropic's envelope naming the field, with the request id; the valid shapes next
to each refused one are served."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from tests.conftest import LiveServer

MSGS = [{"role": "user", "content": "hi"}]
SCHEMA = {"type": "object", "properties": {"a": {"type": "integer"}}}


@pytest.fixture(scope="module")
def server(live_server: Callable[..., LiveServer]) -> LiveServer:
    return live_server("--concurrent", "2")


def post(server: LiveServer, path: str, **fields: Any) -> httpx.Response:
    body = {"model": "m", "messages": MSGS, **fields}
    if path == "/v1/messages":
        body["max_tokens"] = 4
    return httpx.post(server.url + path, json=body, timeout=120)


def assert_refused(r: httpx.Response, named: str) -> None:
    assert r.status_code == 400, r.text
    body = r.json()
    assert body["type"] == "error" and body["error"]["type"] == "invalid_request_error", body
    assert named in body["error"]["message"], body
    assert body["request_id"] == r.headers["request-id"] == r.headers["x-request-id"]


@pytest.mark.parametrize("path", ["/v1/messages", "/v1/messages/count_tokens"])
@pytest.mark.parametrize("tool", [
    {"name": "f"},
    {"type": None, "name": "f", "description": "d"},
    {"type": "custom", "name": "f"},
])
def test_client_tool_without_input_schema_is_400(server: LiveServer, path: str,
                                                 tool: dict[str, Any]) -> None:
    assert_refused(post(server, path, tools=[tool]), "tools")


@pytest.mark.parametrize("path", ["/v1/messages", "/v1/messages/count_tokens"])
def test_client_and_server_tools_are_served(server: LiveServer, path: str) -> None:
    tools = [{"name": "f", "input_schema": SCHEMA},
             {"type": "custom", "name": "g", "input_schema": SCHEMA},
             {"type": None, "name": "h", "input_schema": SCHEMA},
             {"type": "web_search_20250305", "name": "web_search", "max_uses": 2}]
    r = post(server, path, tools=tools)
    assert r.status_code == 200, r.text
    if path == "/v1/messages":
        assert "tools[3] (web_search_20250305) left out" in r.headers["x-afm-warnings"]


TOOL_USE = {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}}
TOOL_RESULT = {"type": "tool_result", "tool_use_id": "toolu_1", "content": "ok"}
THINKING = {"type": "thinking", "thinking": "hm", "signature": "s"}


@pytest.mark.parametrize("path", ["/v1/messages", "/v1/messages/count_tokens"])
@pytest.mark.parametrize(("role", "block"), [
    ("user", TOOL_USE), ("user", THINKING), ("user", {"type": "redacted_thinking"}),
    ("assistant", TOOL_RESULT), ("system", TOOL_USE), ("system", TOOL_RESULT),
    ("system", THINKING),
])
def test_block_in_the_wrong_turn_is_400(server: LiveServer, path: str, role: str,
                                        block: dict[str, Any]) -> None:
    messages = [{"role": role, "content": [block]}, *MSGS]
    assert_refused(post(server, path, messages=messages), "messages")


def test_each_role_takes_its_blocks(server: LiveServer) -> None:
    tools = [{"name": "f", "input_schema": SCHEMA}]
    messages = [{"role": "system", "content": [{"type": "text", "text": "Be brief."}]},
                {"role": "user", "content": [{"type": "text", "text": "Call f."}]},
                {"role": "assistant", "content": [THINKING, {"type": "redacted_thinking",
                                                             "data": "x"},
                                                  {"type": "text", "text": "Calling."},
                                                  TOOL_USE]},
                {"role": "user", "content": [TOOL_RESULT, {"type": "text", "text": "Go on."}]}]
    r = post(server, "/v1/messages", messages=messages, tools=tools)
    assert r.status_code == 200, r.text
    assert r.json()["type"] == "message"


@pytest.mark.parametrize(("path", "tool"), [
    ("/v1/messages", {"type": "\b", "name": ""}),
    ("/v1/messages", {"type": "web_search_\x01é", "name": "w"}),
    ("/v1/responses", {"type": "\x7fsearch"}),
])
def test_server_tool_types_with_control_characters_are_reported(
        server: LiveServer, path: str, tool: dict[str, Any]) -> None:
    """A tool type is echoed in X-AFM-Warnings as printable ASCII (a control character there
    broke the header, and the connection, found by Schemathesis)."""
    body: dict[str, Any] = {"model": "m", "tools": [tool]}
    body.update({"messages": MSGS, "max_tokens": 4} if path == "/v1/messages"
                else {"input": "hi", "max_output_tokens": 4})
    r = httpx.post(server.url + path, json=body, timeout=120)
    assert r.status_code == 200, r.text
    warning = r.headers["x-afm-warnings"]
    assert "left out" in warning and warning.isascii() and warning.isprintable(), warning
