"""Responses API rules the contract states, refused by its validation before any translator
runs: 400 in OpenAI's envelope naming the field, with the request id; the valid shapes next to
each refused one are served (and echoed)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from tests.conftest import LiveServer

FUNCTION = {"type": "function", "name": "get_weather", "parameters": {"type": "object"}}
NAMESPACE = {"type": "namespace", "name": "ns", "description": "d",
             "tools": [{"type": "function", "name": "f", "parameters": {"type": "object"}}]}


@pytest.fixture(scope="module")
def server(live_server: Callable[..., LiveServer]) -> LiveServer:
    return live_server("--concurrent", "2")


def post(server: LiveServer, **fields: Any) -> httpx.Response:
    body = {"model": "m", "input": "hi", "max_output_tokens": 4, **fields}
    return httpx.post(server.url + "/v1/responses", json=body, timeout=120,
                      headers={"X-Request-ID": "req-contract"})


def assert_refused(r: httpx.Response, named: str) -> None:
    assert r.status_code == 400, r.text
    error = r.json()["error"]
    assert error["type"] == "invalid_request_error", error
    assert named in f"{error['message']} {error.get('param')}", error
    assert error["request_id"] == r.headers["x-request-id"] == "req-contract"


@pytest.mark.parametrize("choice", [
    {"type": "function"}, {"name": "get_weather"}, {"type": "function", "name": 3}, "any",
])
def test_malformed_tool_choice_is_400(server: LiveServer, choice: Any) -> None:
    assert_refused(post(server, tools=[FUNCTION], tool_choice=choice), "tool_choice")


@pytest.mark.parametrize(("tools", "choice"), [
    ([FUNCTION], "auto"), ([FUNCTION], None),
    ([FUNCTION], {"type": "function", "name": "get_weather"}),
    ([NAMESPACE], {"type": "function", "name": "f", "namespace": "ns"}),
])
def test_valid_tool_choices_are_served_and_echoed(server: LiveServer, tools: list[Any],
                                                  choice: Any) -> None:
    r = post(server, tools=tools, tool_choice=choice)
    assert r.status_code == 200, r.text
    assert r.json()["tool_choice"] == (choice or "auto")


def test_hosted_tool_choice_is_refused_by_the_server(server: LiveServer) -> None:
    r = post(server, tools=[{"type": "web_search"}], tool_choice={"type": "web_search"})
    assert_refused(r, "left out of the prompt")


@pytest.mark.parametrize(("item", "named"), [
    ({"type": "input_file", "file_id": "file-1"}, "input_file"),
    ({"type": "item_reference", "id": "msg_1"}, "item_reference"),
    ({"content": "hi"}, "input"),
    ({"type": "message", "content": "hi"}, "input"),
    ({"type": "function_call", "name": "f", "arguments": "{}"}, "input"),
    ({"type": "function_call", "call_id": "c1", "arguments": "{}"}, "input"),
    ({"type": "function_call", "call_id": "", "name": "f"}, "input"),
    ({"type": "function_call_output", "output": "x"}, "input"),
])
def test_malformed_input_items_are_400(server: LiveServer, item: dict[str, Any],
                                       named: str) -> None:
    assert_refused(post(server, input=[item]), named)


def test_each_input_item_type_is_served(server: LiveServer) -> None:
    items = [{"role": "developer", "content": "Be brief."},
             {"type": "message", "role": "user", "content": [{"type": "input_text",
                                                              "text": "Weather?"}]},
             {"type": "reasoning", "summary": [], "content": [{"type": "reasoning_text",
                                                               "text": "Call it."}]},
             {"type": "function_call", "call_id": "c1", "name": "get_weather",
              "arguments": "{}"},
             {"type": "function_call_output", "call_id": "c1", "output": "sunny"}]
    r = post(server, input=items, tools=[FUNCTION])
    assert r.status_code == 200, r.text
    listed = httpx.get(f"{server.url}/v1/responses/{r.json()['id']}/input_items", timeout=30,
                       params={"order": "asc"})
    assert [i["type"] for i in listed.json()["data"]] == [
        "message", "message", "reasoning", "function_call", "function_call_output"]


@pytest.mark.parametrize("tool", [
    {"type": "function"}, {"type": "function", "name": ""}, {"type": "namespace"},
    {"type": "namespace", "name": "ns", "tools": [{"type": "function"}]},
    {"type": "namespace", "name": "ns", "tools": [{"description": "no name"}]},
    {"name": "f"},
])
def test_tool_without_its_fields_is_400(server: LiveServer, tool: dict[str, Any]) -> None:
    assert_refused(post(server, tools=[tool]), "tools")


@pytest.mark.parametrize("part", [{"type": "input_text"}, {"type": "output_text", "text": 1}])
def test_text_part_without_text_is_400(server: LiveServer, part: dict[str, Any]) -> None:
    assert_refused(post(server, input=[{"role": "user", "content": [part]}]), "input")


def test_function_namespace_and_hosted_tools_are_served(server: LiveServer) -> None:
    namespace = {**NAMESPACE, "tools": [*NAMESPACE["tools"], {"name": "g"},
                                        {"type": "web_search"}]}
    tools = [FUNCTION, namespace, {"type": "web_search", "search_context_size": "low"},
             {"type": "mcp", "server_label": "x", "server_url": "http://127.0.0.1:1"}]
    r = post(server, tools=tools)
    assert r.status_code == 200, r.text
    warnings = r.headers["x-afm-warnings"]
    assert "tools[1].tools[2] (web_search) left out" in warnings, warnings
    assert "tools[2] (web_search) left out" in warnings and "tools[3] (mcp)" in warnings
    assert [t["type"] for t in r.json()["tools"]] == ["function", "namespace", "web_search",
                                                     "mcp"]
