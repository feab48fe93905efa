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
