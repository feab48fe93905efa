"""Anthropic Messages through the whole app on a scripted engine: the stop string comes from
the engine's final event; errors use Anthropic's envelope."""

from __future__ import annotations

import json
from typing import Any

import pytest

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


# ---------------------------------------------------------------- prompt-cache breakers
BILLING = "x-anthropic-billing-header: cc_version=2.1.337.{}; cc_entrypoint=sdk-cli;"
AGENT_SYSTEM = ("You are a coding agent. "
                + "Read files before editing them; keep changes small. " * 40)
TOOL = {"name": "Write", "description": "Write a file.",
        "input_schema": {"type": "object", "properties": {"file_path": {"type": "string"},
                                                          "content": {"type": "string"}},
                         "required": ["file_path", "content"]}}


def _claude_code_request(session_hex: str, task: str) -> dict:
    """The shape of Claude Code's first request: its billing-header block first."""
    return {"model": "tiny", "max_tokens": 16, "tools": [TOOL],
            "system": [{"type": "text", "text": BILLING.format(session_hex)},
                       {"type": "text", "text": "You are a Claude agent."},
                       {"type": "text", "text": AGENT_SYSTEM, "cache_control": {
                           "type": "ephemeral"}}],
            "messages": [{"role": "user", "content": task}]}


def _prefix_cache(api: Api) -> None:
    """The scripted engine reports as cached the tokens a prompt shares with the one before
    (as the prefix cache would; the last prompt token is always computed)."""
    seen: list[int] = []

    def reply(request: Any) -> list[Any]:
        tokens = list(request.prompt_tokens)
        pairs = enumerate(zip(seen, tokens, strict=False))
        shared = next((i for i, (a, b) in pairs if a != b), min(len(seen), len(tokens)))
        seen[:] = tokens
        return script("ok", prompt_tokens=len(tokens), cached_tokens=min(shared, len(tokens) - 1))

    api.engine.reply = reply


async def test_a_new_sessions_billing_header_leaves_the_prompt_cache_whole(
        api: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two Claude Code sessions (billing-header hex a1b, then f09; the same system prompt and
    tools): the header line is left out by rule and reported, so the second session's first
    request reads all of its prompt up to the new task from the cache, streamed too; with
    --keep-volatile-prompt-parts the line stays and the prompt parts at once."""
    _prefix_cache(api)
    first = await api.post("/v1/messages", _claude_code_request("a1b", "Create hello.py."))
    assert first.status_code == 200, first.text
    assert "x-anthropic-billing-header line left out" in first.headers["x-afm-warnings"]
    second = await api.post("/v1/messages", {**_claude_code_request("f09", "Fix calc.py."),
                                             "stream": True})
    assert "x-anthropic-billing-header line left out" in second.headers["x-afm-warnings"]
    usage = next(d for n, d in named_events(second.text) if n == "message_delta")["usage"]
    prompt = usage["input_tokens"] + usage["cache_read_input_tokens"]
    assert usage["cache_read_input_tokens"] >= 0.9 * prompt, usage
    rendered = api.engine.decode(api.engine.requests[1].prompt_tokens)
    assert "billing-header" not in rendered and "You are a Claude agent." in rendered
    counted = await api.post("/v1/messages/count_tokens",
                             {k: v for k, v in _claude_code_request("f09", "Fix calc.py.").items()
                              if k != "max_tokens"})
    assert counted.json()["input_tokens"] == prompt  # count_tokens follows the same rule

    # a proxy's chat completions request with the line at the start of its system message
    chat = await api.post("/v1/chat/completions", {"model": "tiny", "messages": [
        {"role": "system", "content": BILLING.format("c3d") + "\n" + AGENT_SYSTEM},
        {"role": "user", "content": "Create hello.py."}]})
    assert "x-anthropic-billing-header line left out" in chat.headers["x-afm-warnings"]

    monkeypatch.setattr(api.settings, "keep_volatile_prompt_parts", True)
    kept = await api.post("/v1/messages", _claude_code_request("777", "Create hello.py."))
    assert "x-afm-warnings" not in kept.headers
    assert kept.json()["usage"]["cache_read_input_tokens"] < 40  # parted at the header
    assert BILLING.format("777") in api.engine.decode(api.engine.requests[-1].prompt_tokens)
