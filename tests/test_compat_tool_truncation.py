"""A forced tool call cut by `max_tokens` (1, 2, ... tokens, until past its name) never leaks
markup, on every surface, streamed and not: before the name is complete the reply has no text
and no call and ends as cut (`length`, `max_tokens`, `incomplete`/`max_output_tokens`); after
it, it is the call so far. Real `afm serve` processes on the random-weight test models."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from modelbuilder import ensure_model
from tests.conftest import LiveServer

MODELS = {"hermes": "tiny", "qwen3_xml": "tiny-qwen3-xml", "llama3_json": "tiny-llama3",
          "mistral": "tiny-mistral"}
MAX_CUT = 40
"""Cuts tried: the test models reach the end of the call's name well within this."""
PARAMS = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
MARKUP = ("<", "[TOOL", "{", "|")
CASES = [("chat", f) for f in sorted(MODELS)] + [("responses", "hermes"),
                                                 ("responses", "qwen3_xml"),
                                                 ("messages", "hermes"), ("messages", "mistral")]


def _body(surface: str, n: int, stream: bool) -> tuple[str, dict[str, Any]]:
    msg = [{"role": "user", "content": "Weather in Paris?"}]
    base: dict[str, Any] = {"model": "m", "stream": stream, "temperature": 0}
    if surface == "chat":
        return "/v1/chat/completions", base | {
            "messages": msg, "max_tokens": n,
            "tools": [{"type": "function", "function": {"name": "get_weather",
                                                        "parameters": PARAMS}}],
            "tool_choice": {"type": "function", "function": {"name": "get_weather"}}}
    if surface == "responses":
        return "/v1/responses", base | {
            "input": msg, "max_output_tokens": n, "store": False,
            "tools": [{"type": "function", "name": "get_weather", "parameters": PARAMS}],
            "tool_choice": {"type": "function", "name": "get_weather"}}
    return "/v1/messages", base | {
        "messages": msg, "max_tokens": n,
        "tools": [{"name": "get_weather", "input_schema": PARAMS}],
        "tool_choice": {"type": "tool", "name": "get_weather"}}


def _events(resp: httpx.Response) -> Iterator[dict[str, Any]]:
    for line in resp.iter_lines():
        if line.startswith("data: ") and line != "data: [DONE]":
            yield json.loads(line[6:])


def _outcome(surface: str, r: dict[str, Any]) -> tuple[str, list[str], str]:
    """(text, call names, how it ended) of a whole reply."""
    if surface == "chat":
        m = r["choices"][0]["message"]
        return (m["content"] or "", [c["function"]["name"] for c in m.get("tool_calls") or []],
                r["choices"][0]["finish_reason"])
    if surface == "responses":
        text = "".join(c.get("text", "") for o in r["output"] if o["type"] == "message"
                       for c in o["content"])
        ended = r["status"] + ":" + ((r.get("incomplete_details") or {}).get("reason") or "")
        return text, [o["name"] for o in r["output"] if o["type"] == "function_call"], ended
    text = "".join(b.get("text", "") for b in r["content"] if b["type"] == "text")
    return text, [b["name"] for b in r["content"] if b["type"] == "tool_use"], r["stop_reason"]


def _streamed(surface: str, events: list[dict[str, Any]]) -> tuple[str, list[str], str]:
    """(text, call names, how it ended) of a stream, from its deltas alone."""
    text, names, ended = "", [], ""
    for e in events:
        if surface == "chat":
            for c in e.get("choices", []):
                text += c["delta"].get("content") or ""
                names += [t["function"]["name"] for t in c["delta"].get("tool_calls") or []
                          if t.get("function", {}).get("name")]
                ended = c.get("finish_reason") or ended
        elif surface == "responses":
            if e["type"] == "response.output_text.delta":
                text += e["delta"]
            elif e["type"] == "response.output_item.added" and e["item"]["type"] == "function_call":
                names.append(e["item"]["name"])
            elif e["type"] in ("response.completed", "response.incomplete"):
                ended = _outcome(surface, e["response"])[2]
        elif e["type"] == "content_block_delta" and e["delta"]["type"] == "text_delta":
            text += e["delta"]["text"]
        elif e["type"] == "content_block_start" and e["content_block"]["type"] == "tool_use":
            names.append(e["content_block"]["name"])
        elif e["type"] == "content_block_start" and e["content_block"]["type"] == "text":
            text += e["content_block"]["text"] or "<empty text block>"
        elif e["type"] == "message_delta":
            ended = e["delta"]["stop_reason"]
    return text, names, ended


CUT = {"chat": "length", "responses": "incomplete:max_output_tokens", "messages": "max_tokens"}
CALLED = {"chat": ("tool_calls", "length"), "responses": ("completed:",
                                                           "incomplete:max_output_tokens"),
          "messages": ("tool_use", "max_tokens")}


@pytest.mark.parametrize(("surface", "fmt"), CASES)
def test_a_forced_call_cut_at_every_token_leaks_no_markup(
        live_server: Callable[..., LiveServer], surface: str, fmt: str) -> None:
    server = live_server(model=ensure_model(MODELS[fmt]))
    seen_call, after = False, 0
    with httpx.Client(base_url=server.url, timeout=60) as http:
        for n in range(1, MAX_CUT + 1):
            path, body = _body(surface, n, False)
            r = http.post(path, json=body)
            assert r.status_code == 200, r.text
            whole = _outcome(surface, r.json())
            with http.stream("POST", path, json=_body(surface, n, True)[1]) as s:
                assert s.status_code == 200
                streamed = _streamed(surface, list(_events(s)))
            for text, names, ended in (whole, streamed):
                assert text == "" and not any(m in text for m in MARKUP), (n, text)
                assert set(names) <= {"get_weather"}
                assert ended in (CALLED[surface] if names else (CUT[surface],)), (n, ended)
            assert whole[1] == streamed[1], n
            assert n > 1 or not whole[1], "a call from one token"
            seen_call = seen_call or bool(whole[1])
            assert bool(whole[1]) == seen_call, f"the call vanished at {n} tokens"
            after += seen_call
            if after == 3:  # a few cuts inside the arguments too
                break
    assert seen_call, f"no call within {MAX_CUT} tokens"
