"""/v1/tokenize, /v1/detokenize and /v1/count_tokens against a real `afm serve`: round trips,
chat-template rendering, counts equal to what chat reports, and the 400s."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import LiveServer
from tests.test_api_http import assert_envelope

TEXTS = [
    "Hello, world",
    "Привет, мир! Как дела?",
    "日本語の文章と中文句子",
    "emoji 🙂🍕🔥 and accents: café, naïve, Ærø",
    "  leading and trailing spaces  \n\tand\ttabs\n",
    "def f(x):\n    return x ** 2",
]
MESSAGES = [
    {"role": "user", "content": "What is the capital of France?"},
    {"role": "assistant", "content": "Paris."},
    {"role": "user", "content": [{"type": "text", "text": "And of "},
                                 {"type": "text", "text": "Норвегия?"}]},
]
TOOLS = [{"type": "function", "function": {
    "name": "get_weather", "description": "Weather for a city",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                   "required": ["city"]}}}]


def post(server: LiveServer, path: str, body: dict[str, Any]) -> httpx.Response:
    return httpx.post(server.url + path, json=body, timeout=60)


def tokenize(server: LiveServer, **body: Any) -> dict[str, Any]:
    r = post(server, "/v1/tokenize", body)
    assert r.status_code == 200, r.text
    return r.json()


def detokenize(server: LiveServer, tokens: list[int]) -> str:
    r = post(server, "/v1/detokenize", {"tokens": tokens})
    assert r.status_code == 200, r.text
    return r.json()["text"]


def chat_prompt_tokens(server: LiveServer, messages: list[dict[str, Any]], **kw: Any) -> int:
    r = server.openai().chat.completions.create(model="any", messages=messages, max_tokens=1,
                                                temperature=0, **kw)
    return r.usage.prompt_tokens


@pytest.mark.parametrize("text", TEXTS)
def test_tokenize_detokenize_round_trip(server: LiveServer, text: str) -> None:
    out = tokenize(server, text=text)
    assert out["count"] == len(out["tokens"]) > 0
    assert all(isinstance(t, int) for t in out["tokens"])
    assert detokenize(server, out["tokens"]) == text
    assert tokenize(server, prompt=text)["tokens"] == out["tokens"]  # vLLM's field name


def test_tokenize_reports_model_and_window(server: LiveServer, tiny_model: Path) -> None:
    out = tokenize(server, text="x")
    models = httpx.get(server.url + "/v1/models").json()["data"]
    assert out["model"] == models[0]["id"]
    config = json.loads((tiny_model / "config.json").read_text())
    assert out["max_model_len"] == models[0]["max_context_length"]
    assert out["max_model_len"] == config["max_position_embeddings"]


def test_detokenize_matches_vllm_shape(server: LiveServer) -> None:
    ids = tokenize(server, text=TEXTS[1])["tokens"]
    body = post(server, "/v1/detokenize", {"model": "whatever", "tokens": ids}).json()
    assert body["text"] == body["prompt"] == TEXTS[1]  # vLLM clients read `prompt`
    assert detokenize(server, []) == ""


def test_messages_render_the_chat_template(server: LiveServer) -> None:
    with_prompt = tokenize(server, messages=MESSAGES)
    without = tokenize(server, messages=MESSAGES, add_generation_prompt=False)
    assert with_prompt["tokens"] != without["tokens"]
    assert with_prompt["tokens"][: without["count"]] == without["tokens"]
    assert with_prompt["count"] > without["count"]
    text = detokenize(server, with_prompt["tokens"])
    assert "capital of France?" in text and "And of Норвегия?" in text
    assert text != "".join(m["content"] for m in MESSAGES[:2])  # template markup was added
    assert with_prompt["count"] == chat_prompt_tokens(server, MESSAGES)
    with_tools = tokenize(server, messages=MESSAGES, tools=TOOLS)
    assert with_tools["count"] > with_prompt["count"]
    assert "get_weather" in detokenize(server, with_tools["tokens"])


@pytest.mark.parametrize("extra", [{}, {"tools": TOOLS}])
def test_count_tokens_equals_chat_prompt_tokens(server: LiveServer, extra: dict[str, Any]) -> None:
    r = post(server, "/v1/count_tokens", {"model": "any", "messages": MESSAGES, **extra})
    assert r.status_code == 200, r.text
    assert r.json()["input_tokens"] == chat_prompt_tokens(server, MESSAGES, **extra)
    assert r.json()["model"] == tokenize(server, text="x")["model"]


@pytest.mark.parametrize("system", [
    "You are terse. Answer in one word.",
    [{"type": "text", "text": "You are terse. "}, {"type": "text", "text": "Answer in one word."}],
])
def test_count_tokens_anthropic_system(server: LiveServer, system: Any) -> None:
    r = post(server, "/v1/count_tokens", {"system": system, "messages": MESSAGES})
    assert r.status_code == 200, r.text
    as_chat = [{"role": "system", "content": "You are terse. Answer in one word."}, *MESSAGES]
    assert r.json()["input_tokens"] == chat_prompt_tokens(server, as_chat)
    assert r.json()["input_tokens"] > post(server, "/v1/count_tokens",
                                           {"messages": MESSAGES}).json()["input_tokens"]


def test_counts_include_the_servers_default_instructions(
        live_server: Callable[..., LiveServer]) -> None:
    srv = live_server("--concurrent", "2", "--instructions", "Always answer in French.")
    msgs = MESSAGES[:1]
    counted = post(srv, "/v1/count_tokens", {"messages": msgs}).json()["input_tokens"]
    tokenized = tokenize(srv, messages=msgs)
    assert counted == tokenized["count"] == chat_prompt_tokens(srv, msgs)
    assert "Always answer in French." in detokenize(srv, tokenized["tokens"])


@pytest.mark.parametrize("body", [
    {},
    {"model": "x"},
    {"text": "a", "prompt": "b"},
    {"text": "a", "messages": MESSAGES},
    {"prompt": "a", "messages": MESSAGES},
    {"text": "a", "prompt": "b", "messages": MESSAGES},
    {"messages": []},
    {"messages": [{"role": "robot", "content": "x"}]},
    {"text": 5},
])
def test_tokenize_needs_exactly_one_input(server: LiveServer, body: dict[str, Any]) -> None:
    assert_envelope(post(server, "/v1/tokenize", body), 400, "invalid_request_error")


@pytest.mark.parametrize("tokens", [[-1], [0, 4096], [10**9], [1.5], ["a"], None])
def test_detokenize_rejects_bad_ids(server: LiveServer, tokens: Any) -> None:
    body = {} if tokens is None else {"tokens": tokens}
    err = assert_envelope(post(server, "/v1/detokenize", body), 400, "invalid_request_error")
    if tokens in ([-1], [0, 4096]):
        assert "vocabulary" in err["message"] and err["param"] == "tokens"


@pytest.mark.parametrize("body", [{}, {"messages": []}, {"system": "x"},
                                  {"messages": MESSAGES, "system": 3}])
def test_count_tokens_validation(server: LiveServer, body: dict[str, Any]) -> None:
    assert_envelope(post(server, "/v1/count_tokens", body), 400, "invalid_request_error")


def test_token_endpoints_echo_request_ids(server: LiveServer) -> None:
    for path, body in (("/v1/tokenize", {"text": "x"}), ("/v1/detokenize", {"tokens": [1]}),
                       ("/v1/count_tokens", {"messages": MESSAGES})):
        r = httpx.post(server.url + path, json=body, headers={"X-Request-ID": "tok-1"})
        assert r.status_code == 200 and r.headers["x-request-id"] == "tok-1"
