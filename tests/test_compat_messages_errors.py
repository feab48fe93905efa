"""Errors on the Anthropic routes, against a real `afm serve`: Anthropic's envelope with the
right status for wrong types, a missing `max_tokens`, unknown and unsupported block types,
server tools, oversized bodies, unknown paths and a busy server; the anthropic SDK raises its
typed errors; the OpenAI envelope stays everywhere else; the server keeps serving."""

from __future__ import annotations

import socket
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import anthropic
import httpx
import pytest

from tests.conftest import LiveServer
from tests.test_compat_messages import LONG, MSGS, sdk

pytestmark = pytest.mark.slow

GOOD = {"model": "m", "max_tokens": 4, "messages": MSGS}


def assert_anthropic_error(r: httpx.Response, status: int, type_: str) -> str:
    """Anthropic's envelope, the request id in body and headers; returns the message."""
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith("application/json")
    body = r.json()
    assert body["type"] == "error" and body["error"]["type"] == type_, body
    assert isinstance(body["error"]["message"], str) and body["error"]["message"]
    assert body["request_id"] == r.headers["request-id"] == r.headers["x-request-id"]
    assert "Traceback" not in r.text
    return str(body["error"]["message"])


def post(server: LiveServer, body: Any, path: str = "/v1/messages") -> httpx.Response:
    return httpx.post(server.url + path, json=body, timeout=60)


@pytest.mark.parametrize("body", [
    {**GOOD, "max_tokens": "four"},
    {**GOOD, "max_tokens": 0},
    {**GOOD, "messages": "hello"},
    {**GOOD, "messages": []},
    {**GOOD, "messages": [{"role": "tool", "content": "x"}]},
    {**GOOD, "temperature": "hot"},
    {**GOOD, "stop_sequences": "END"},
    {**GOOD, "tool_choice": {"type": "sometimes"}},
    {**GOOD, "thinking": {"type": "maybe"}},
    {k: v for k, v in GOOD.items() if k != "max_tokens"},
    {k: v for k, v in GOOD.items() if k != "model"},
    {**GOOD, "messages": [{"role": "user", "content": [{"type": "hologram", "data": "x"}]}]},
])
def test_invalid_requests_are_400(server: LiveServer, body: dict[str, Any]) -> None:
    assert_anthropic_error(post(server, body), 400, "invalid_request_error")


@pytest.mark.parametrize("block, named", [
    ({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBO"}},
     "image"),
    ({"type": "document", "source": {"type": "text", "media_type": "text/plain",
                                     "data": "x"}}, "document"),
    ({"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}},
     "server_tool_use"),
])
def test_unsupported_blocks_name_their_type(server: LiveServer, block: dict[str, Any],
                                            named: str) -> None:
    body = {**GOOD, "messages": [{"role": "user", "content": [
        {"type": "text", "text": "Look:"}, block]}]}
    message = assert_anthropic_error(post(server, body), 400, "invalid_request_error")
    assert f"'{named}'" in message and "messages[0].content[1]" in message
    nested = {**GOOD, "messages": [
        {"role": "user", "content": "Call it."},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "f",
                                           "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1",
                                      "content": [block]}]}]}
    assert f"'{named}'" in assert_anthropic_error(post(server, nested), 400,
                                                  "invalid_request_error")
    counted = post(server, {k: v for k, v in body.items() if k != "max_tokens"},
                   "/v1/messages/count_tokens")
    assert_anthropic_error(counted, 400, "invalid_request_error")


def test_server_tools_and_tool_rules(server: LiveServer) -> None:
    search = {"type": "web_search_20250305", "name": "web_search", "max_uses": 3}
    left_out = post(server, {**GOOD, "tools": [search]})  # left out and reported, not refused
    assert left_out.status_code == 200
    assert "web_search_20250305" in left_out.headers["x-afm-warnings"]
    assert_anthropic_error(post(server, {**GOOD, "tools": [search], "tool_choice": {
        "type": "tool", "name": "web_search"}}), 400, "invalid_request_error")
    assert_anthropic_error(post(server, {**GOOD, "tools": [{"name": "f"}]}), 400,
                           "invalid_request_error")
    tool = {"name": "f", "input_schema": {"type": "object"}}
    for choice in ({"type": "tool"}, {"type": "tool", "name": "g"}):
        assert_anthropic_error(post(server, {**GOOD, "tools": [tool], "tool_choice": choice}),
                               400, "invalid_request_error")
    assert_anthropic_error(post(server, {**GOOD, "tool_choice": {"type": "any"}}), 400,
                           "invalid_request_error")
    misplaced = {**GOOD, "messages": [{"role": "user", "content": [
        {"type": "tool_use", "id": "t", "name": "f", "input": {}}]}]}
    # the contract's blocks per role refuse it, naming the block's type and what a user turn holds
    message = assert_anthropic_error(post(server, misplaced), 400, "invalid_request_error")
    assert message.startswith("'tool_use' is not one of ['text', 'tool_result'"), message
    assert message.endswith("'messages.0.content.0.type'"), message


@pytest.mark.parametrize("path", ["/v1/messages", "/v1/messages/count_tokens"])
@pytest.mark.parametrize(("choice", "says"), [
    ({"type": "tool"}, "'name' is a required property - 'tool_choice'"),
    ({"type": "sometimes"}, "'sometimes' is not one of ['auto', 'any', 'tool', 'none']"),
    ({"name": "f"}, "'type' is a required property - 'tool_choice'"),
    ({"type": "tool", "name": 3}, "3 is not of type 'string' - 'tool_choice.name'"),
])
def test_tool_choice_is_checked_by_its_type(server: LiveServer, path: str,
                                            choice: dict[str, Any], says: str) -> None:
    """The contract's oneOf by `type`: the message names what the chosen type lacks."""
    tool = {"name": "f", "input_schema": {"type": "object"}}
    body = {**GOOD, "tools": [tool], "tool_choice": choice}
    if path.endswith("count_tokens"):
        body.pop("max_tokens")
    message = assert_anthropic_error(post(server, body, path), 400, "invalid_request_error")
    assert says in message, message
    fine = {**body, "tool_choice": {"type": "tool", "name": "f",
                                    "disable_parallel_tool_use": True}}
    assert post(server, fine, path).status_code == 200


def test_sdk_raises_typed_errors(server: LiveServer) -> None:
    with sdk(server) as client, pytest.raises(anthropic.BadRequestError) as info:
        client.messages.create(model="m", max_tokens=4, messages=[
            {"role": "user", "content": [{"type": "image", "source": {
                "type": "base64", "media_type": "image/png", "data": "iVBO"}}]}])
    assert info.value.status_code == 400
    assert info.value.body["error"]["type"] == "invalid_request_error"
    assert info.value.request_id == info.value.response.headers["x-request-id"]


def test_oversized_body_is_413(server: LiveServer) -> None:
    """A declared length past the route's limit is refused before the body is read."""
    for path in ("/v1/messages", "/v1/messages/count_tokens"):
        with socket.create_connection(("127.0.0.1", server.port), timeout=30) as s:
            s.sendall(f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                      f"Content-Length: {200 * 2**20}\r\nConnection: close\r\n\r\n".encode())
            raw = b""
            while chunk := s.recv(65536):
                raw += chunk
        head, _, body = raw.partition(b"\r\n\r\n")
        headers = dict(line.split(": ", 1) for line in head.decode().split("\r\n")[1:])
        response = httpx.Response(int(head.split()[1]), content=body, headers=headers)
        assert_anthropic_error(response, 413, "request_too_large")


def test_unknown_path_and_method(server: LiveServer) -> None:
    assert_anthropic_error(post(server, GOOD, "/v1/messages/batches"), 404, "not_found_error")
    r = httpx.get(server.url + "/v1/messages")
    assert r.status_code == 405 and r.json()["type"] == "error"
    assert r.headers["allow"] == "POST"


def test_openai_envelope_elsewhere(server: LiveServer) -> None:
    r = httpx.post(server.url + "/v1/chat/completions", json={"messages": []})
    assert r.status_code == 400 and set(r.json()) == {"error"}
    assert "request-id" not in r.headers
    r = httpx.post(server.url + "/v1/count_tokens", json={"messages": []})
    assert r.status_code == 400 and r.json()["error"]["type"] == "invalid_request_error"


def test_cors_preflight_allows_anthropic_headers(server: LiveServer) -> None:
    r = httpx.options(server.url + "/v1/messages", headers={
        "Origin": "http://localhost:3000", "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "x-api-key, anthropic-version, x-stainless-os"})
    assert r.status_code == 204
    allowed = {h.strip().lower() for h in r.headers["access-control-allow-headers"].split(",")}
    assert {"x-api-key", "anthropic-version", "anthropic-beta", "content-type",
            "x-stainless-os"} <= allowed


def test_server_keeps_serving(server: LiveServer) -> None:
    for raw in (b"\x00\x01", b"[]", b"null", b'{"messages": null}', b"{not json"):
        r = httpx.post(server.url + "/v1/messages", content=raw,
                       headers={"content-type": "application/json"})
        assert_anthropic_error(r, 400, "invalid_request_error")
    assert post(server, GOOD).json()["type"] == "message"


def test_busy_server_is_529_overloaded(live_server: Callable[..., LiveServer]) -> None:
    from modelbuilder import ensure_model

    # the same server as test_compat_chat's busy test: one slot, a one-second queue
    server = live_server("--concurrent", "1", "--queue-timeout", "1",
                         model=ensure_model("default"))
    with httpx.stream("POST", server.url + "/v1/messages", json={**LONG, "stream": True},
                      headers={"X-Request-ID": "msg-hog-1"}, timeout=120) as r:
        lines = r.iter_lines()  # keep the generator open: breaking a loop over it disconnects
        while not next(lines).startswith("event: message_start"):
            pass
        # both probes at once: each waits out the one-second queue, and the hog must still
        # hold the slot when the second gives up (one after the other, a fast machine's hog
        # finished its tokens first)
        def timed_post() -> tuple[httpx.Response, float]:
            t0 = time.monotonic()
            return post(server, GOOD), time.monotonic() - t0

        with ThreadPoolExecutor(2) as pool:
            first = pool.submit(timed_post)
            second = pool.submit(httpx.post, server.url + "/v1/messages",
                                 json={**GOOD, "stream": True}, timeout=30)
            (busy, waited), streamed = first.result(), second.result()
        httpx.post(server.url + "/v1/chat/completions/msg-hog-1/cancel")
    assert_anthropic_error(busy, 529, "overloaded_error")
    assert busy.headers["retry-after"] == "2" and waited >= 0.9
    assert_anthropic_error(streamed, 529, "overloaded_error")  # before the stream's 200
    assert post(server, GOOD).status_code == 200
