"""Chat completions through the whole app on a scripted engine."""

from __future__ import annotations

import json

from tests.api.conftest import Api
from tests.scripted import script

CHAT = {"model": "tiny", "messages": [{"role": "user", "content": "Hi"}], "max_tokens": 8}


def sse(text: str) -> list[dict]:
    return [json.loads(line[6:]) for line in text.splitlines()
            if line.startswith("data: ") and line != "data: [DONE]"]


async def test_chat_json_reply(api: Api) -> None:
    api.engine.scripts.append(script("Hello", " there", finish="length"))
    r = await api.post("/v1/chat/completions", CHAT)
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["object"] == "chat.completion"
    assert body["choices"][0]["message"] == {"role": "assistant", "content": "Hello there"}
    assert body["choices"][0]["finish_reason"] == "length"
    assert body["usage"]["completion_tokens"] == 2 and r.headers["x-request-id"]
    (request,) = api.engine.requests
    assert request.params.max_tokens == 8 and request.prompt_tokens


async def test_chat_stream(api: Api) -> None:
    api.engine.scripts.append(script("Hel", "lo"))
    r = await api.post("/v1/chat/completions", {**CHAT, "stream": True})
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
    assert r.text.rstrip().endswith("data: [DONE]")
    chunks = sse(r.text)
    text = "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks if c["choices"])
    assert text == "Hello"
    assert [c["choices"][0]["finish_reason"] for c in chunks if c["choices"]][-1] == "stop"
    assert chunks[-1]["usage"]["total_tokens"] == 9


async def test_chat_engine_failure_mid_stream_is_an_error_chunk(api: Api) -> None:
    api.engine.scripts.append(script("par", finish="error", error="boom"))
    r = await api.post("/v1/chat/completions", {**CHAT, "stream": True})
    assert r.status_code == 200
    error = next(c for c in sse(r.text) if "error" in c)
    assert error["error"]["message"] == "Generation failed: boom"
    assert error["error"]["request_id"] == r.headers["x-request-id"]


async def test_chat_engine_failure_json_is_500(api: Api) -> None:
    api.engine.scripts.append(script("par", finish="error", error="boom"))
    r = await api.post("/v1/chat/completions", CHAT)
    assert r.status_code == 500 and "boom" in r.json()["error"]["message"]


async def test_busy_engine_is_503_before_the_stream(api: Api) -> None:
    api.engine.scripts.append("busy")
    r = await api.post("/v1/chat/completions", {**CHAT, "stream": True})
    assert r.status_code == 503 and r.json()["error"]["type"] == "server_busy"
    assert r.headers["retry-after"]


async def test_invalid_request_is_400_with_the_envelope(api: Api) -> None:
    r = await api.post("/v1/chat/completions", {**CHAT, "top_logprobs": 3})
    assert r.status_code == 400
    error = r.json()["error"]
    assert error["param"] == "top_logprobs" and error["request_id"] == r.headers["x-request-id"]
    assert api.engine.requests == []
