"""Anthropic Messages through the whole app on a scripted engine: the stop string comes from
the engine's final event; errors use Anthropic's envelope."""

from __future__ import annotations

import json

from tests.api.conftest import Api
from tests.scripted import script

MESSAGE = {"model": "tiny", "max_tokens": 16, "messages": [{"role": "user", "content": "Hi"}]}


def named_events(text: str) -> list[tuple[str, dict]]:
    out, name = [], None
    for line in text.splitlines():
        if line.startswith("event: "):
            name = line[7:]
        elif line.startswith("data: "):
            out.append((name, json.loads(line[6:])))
    return out


async def test_stop_sequence_is_the_one_the_engine_matched(api: Api) -> None:
    api.engine.scripts.append(script("one ", "two", stop_sequence="###", text_exact=False))
    r = await api.post("/v1/messages", {**MESSAGE, "stop_sequences": ["@@", "###"]})
    assert r.status_code == 200, r.text
    body = r.json()
    assert (body["stop_reason"], body["stop_sequence"]) == ("stop_sequence", "###")
    assert body["content"] == [{"type": "text", "text": "one two"}]
    assert api.engine.requests[0].params.stop == ("@@", "###")


async def test_a_natural_end_has_no_stop_sequence(api: Api) -> None:
    api.engine.scripts.append(script("done"))
    body = (await api.post("/v1/messages", {**MESSAGE, "stop_sequences": ["###"]})).json()
    assert (body["stop_reason"], body["stop_sequence"]) == ("end_turn", None)
    api.engine.scripts.append(script("cut", finish="length"))
    body = (await api.post("/v1/messages", MESSAGE)).json()
    assert (body["stop_reason"], body["stop_sequence"]) == ("max_tokens", None)


async def test_stream_events_and_usage(api: Api) -> None:
    api.engine.scripts.append(script("He", "llo", stop_sequence="!", prompt_tokens=11,
                                     cached_tokens=4))
    r = await api.post("/v1/messages", {**MESSAGE, "stream": True})
    assert r.status_code == 200
    events = named_events(r.text)
    names = [n for n, _ in events]
    assert names[:2] == ["message_start", "ping"] and names[-1] == "message_stop"
    assert all(n == d["type"] for n, d in events)
    text = "".join(d["delta"]["text"] for n, d in events if n == "content_block_delta")
    assert text == "Hello"
    (delta,) = [d for n, d in events if n == "message_delta"]
    assert delta["delta"] == {"stop_reason": "stop_sequence", "stop_sequence": "!"}
    assert delta["usage"]["input_tokens"] == 7 and delta["usage"]["cache_read_input_tokens"] == 4


async def test_engine_failure_mid_stream_is_an_error_event(api: Api) -> None:
    api.engine.scripts.append(script("x", finish="error", error="boom"))
    events = named_events((await api.post("/v1/messages", {**MESSAGE, "stream": True})).text)
    assert events[-1][0] == "error"
    assert events[-1][1]["error"] == {"type": "api_error", "message": "Generation failed: boom"}


async def test_errors_use_anthropics_envelope(api: Api) -> None:
    r = await api.post("/v1/messages", {**MESSAGE, "messages": [
        {"role": "user", "content": [{"type": "image", "source": {
            "type": "base64", "media_type": "image/png", "data": "AA=="}}]}]})
    assert r.status_code == 400
    body = r.json()
    assert body["type"] == "error" and body["error"]["type"] == "invalid_request_error"
    assert body["request_id"] == r.headers["x-request-id"]
    api.engine.scripts.append("busy")
    r = await api.post("/v1/messages", MESSAGE)
    assert r.status_code == 529 and r.json()["error"]["type"] == "overloaded_error"
