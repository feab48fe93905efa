"""The access log of a real `afm serve`: one line per request once its response has ended
(streams included), with method, path, status, duration, request id, model and tokens in/out
equal to the usage the client was sent; `--log-format json` makes every line a JSON object."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx

from tests.conftest import LiveServer
from tests.waiting import eventually

CHAT = {"messages": [{"role": "user", "content": "Say hi"}], "max_tokens": 8, "seed": 3}


def access_lines(server: LiveServer, request_id: str, wait: float = 10.0) -> list[dict[str, Any]]:
    """The JSON access lines of ``request_id`` (the line follows the response's last byte)."""
    def found() -> list[dict[str, Any]]:
        entries = [json.loads(line) for line in
                   server.log_path.read_text(errors="replace").splitlines()
                   if line.startswith("{")]
        return [e for e in entries
                if e.get("logger") == "afm.access" and e["request_id"] == request_id]

    return eventually(found, wait, f"an access line for {request_id}", interval=0.1)


def test_json_access_lines(live_server: Callable[..., LiveServer]) -> None:
    server = live_server("--log-format", "json")
    whole = httpx.post(server.url + "/v1/chat/completions", json=CHAT,
                       headers={"X-Request-ID": "req-log-whole"}, timeout=120).json()
    [line] = access_lines(server, "req-log-whole")
    assert line["method"] == "POST" and line["path"] == "/v1/chat/completions"
    assert line["status"] == 200 and line["duration_ms"] > 0
    assert line["level"] == "info" and line["message"].startswith("POST /v1/chat/completions 200")
    assert line["model"] == whole["model"]
    assert line["tokens_in"] == whole["usage"]["prompt_tokens"]
    assert line["tokens_out"] == whole["usage"]["completion_tokens"]

    usage = None
    with httpx.stream("POST", server.url + "/v1/chat/completions",
                      json={**CHAT, "stream": True}, headers={"X-Request-ID": "req-log-stream"},
                      timeout=120) as r:
        for raw in r.iter_lines():
            if raw.startswith("data: {"):
                chunk = json.loads(raw[6:])
                usage = chunk.get("usage") or usage
    assert usage is not None
    [line] = access_lines(server, "req-log-stream")
    assert line["status"] == 200
    # logged at the stream's end: its duration spans the whole generation, and its token
    # counts are those of the usage chunk, which only exists once generation has finished
    assert line["duration_ms"] >= usage["total_time"] * 1000
    assert (line["tokens_in"], line["tokens_out"]) == (usage["prompt_tokens"],
                                                       usage["completion_tokens"])

    missing = httpx.get(server.url + "/v1/files/nope", headers={"X-Request-ID": "req-log-404"})
    assert missing.status_code == 404
    [line] = access_lines(server, "req-log-404")
    assert (line["method"], line["path"], line["status"]) == ("GET", "/v1/files/nope", 404)
    assert line["model"] is None and line["tokens_in"] is None and line["tokens_out"] is None

    embedded = httpx.post(server.url + "/v1/embeddings", json={"input": ["one two three"]},
                          headers={"X-Request-ID": "req-log-emb"}, timeout=120).json()
    [line] = access_lines(server, "req-log-emb")
    assert line["model"] == embedded["model"]
    assert line["tokens_in"] == embedded["usage"]["prompt_tokens"]

    # every line of the log is a JSON object, the server's own lines included
    text = server.log_path.read_text().splitlines()
    assert any('"AFM listening on' in line for line in text)
    for line in text:
        json.loads(line)


def test_text_access_line(server: LiveServer) -> None:
    client = server.openai()
    reply = client.chat.completions.with_raw_response.create(  # type: ignore[attr-defined]
        model="x", extra_headers={"X-Request-ID": "req-text-line"}, **CHAT)
    usage = reply.parse().usage
    [line] = eventually(lambda: [line for line in server.log_path.read_text().splitlines()
                                 if "afm.access" in line and "req-text-line" in line], 10,
                        "the access line of req-text-line", interval=0.1)
    assert "POST /v1/chat/completions 200 " in line
    assert f" in={usage.prompt_tokens} out={usage.completion_tokens}" in line
