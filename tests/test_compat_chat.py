"""/v1/chat/completions through the official openai SDK against a real `afm serve`: every
field of chat-completions.md's request table shows its effect, plus streaming, logprobs,
cancellation, capacity and profiling. The model is the project's tiny random-weight test model:
its text is noise, so effects are shown by comparing outputs, never by reading them."""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

import httpx
import openai
import pytest

from tests.conftest import LiveServer
from tests.waiting import eventually

MSG = [{"role": "user", "content": "Tell me a story about a lighthouse."}]


def chat(client: Any, **kw: Any) -> Any:
    kw.setdefault("model", "afm-test")
    kw.setdefault("messages", MSG)
    kw.setdefault("max_tokens", 16)
    return client.chat.completions.create(**kw)


def text_of(client: Any, **kw: Any) -> str:
    return chat(client, **kw).choices[0].message.content


def sse_events(server: LiveServer, body: dict[str, Any],
               headers: dict[str, str] | None = None) -> tuple[httpx.Response, list[Any]]:
    """Raw SSE: (response, decoded events; '[DONE]' kept as a string)."""
    events: list[Any] = []
    with httpx.stream("POST", server.url + "/v1/chat/completions", json=body,
                      headers=headers or {}, timeout=60) as r:
        for line in r.iter_lines():
            if line.startswith("data: "):
                data = line[6:]
                events.append(data if data == "[DONE]" else json.loads(data))
    return r, events


# ---------------------------------------------------------------------------- response shape


def test_plain_response_shape(client: Any, tiny_model: Any) -> None:
    # a prompt opening unlike any earlier one (fewer shared leading tokens than the engine's
    # SOLO_PREFIX_REUSE): nothing of it is read from the prefix cache
    unique = [{"role": "user", "content": f"{uuid.uuid4().hex} Tell me a story."}]
    r = chat(client, model="mlx-community/Some-Other-Model", max_tokens=8, temperature=0,
             messages=unique)
    assert r.id.startswith("chatcmpl-")
    assert r.object == "chat.completion"
    assert r.model == tiny_model.name  # the model that actually ran (its folder), not the request's
    assert r.system_fingerprint == "afm_mlx__" + r.model.replace("/", "__")
    choice = r.choices[0]
    assert choice.message.role == "assistant" and isinstance(choice.message.content, str)
    assert choice.finish_reason == "length"
    u = r.usage
    assert u.completion_tokens == 8 and u.total_tokens == u.prompt_tokens + 8
    extra = u.model_extra or {}
    for key in ("prompt_time", "completion_time", "total_time", "prompt_tokens_per_second",
                "completion_tokens_per_second", "peak_memory_gib"):
        assert extra[key] > 0, key  # values and their relations: test_compat_observables.py
    assert u.prompt_tokens_details.cached_tokens == 0
    timings = r.model_extra["timings"]
    assert timings["predicted_n"] == 8 and timings["prompt_n"] == u.prompt_tokens
    assert timings["cache_n"] == 0


def test_content_key_always_present(server: LiveServer) -> None:
    r = httpx.post(server.url + "/v1/chat/completions",
                   json={"messages": MSG, "max_tokens": 2}, timeout=60)
    assert "content" in r.json()["choices"][0]["message"]


def test_stream_framing(server: LiveServer) -> None:
    body = {"messages": MSG, "max_tokens": 6, "stream": True, "temperature": 0}
    r, events = sse_events(server, body)
    assert r.headers["content-type"].startswith("text/event-stream")
    assert r.headers["cache-control"] == "no-cache" and r.headers["x-accel-buffering"] == "no"
    assert events[-1] == "[DONE]"
    chunks = events[:-1]
    assert len({c["id"] for c in chunks}) == 1
    roles = [c["choices"][0]["delta"].get("role") for c in chunks if c["choices"]]
    assert roles[0] == "assistant" and not any(roles[1:])
    finish = [c for c in chunks if c["choices"] and c["choices"][0]["finish_reason"]]
    assert len(finish) == 1 and finish[0]["choices"][0]["finish_reason"] == "length"
    usage = chunks[-1]
    assert usage["choices"] == [] and usage["usage"]["completion_tokens"] == 6
    streamed = "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks
                       if c["choices"])
    plain = httpx.post(server.url + "/v1/chat/completions",
                       json={**body, "stream": False}, timeout=60).json()
    assert streamed == plain["choices"][0]["message"]["content"]


def test_stream_without_usage_chunk(server: LiveServer) -> None:
    _, events = sse_events(server, {"messages": MSG, "max_tokens": 3, "stream": True,
                                    "stream_options": {"include_usage": False}})
    assert not any(isinstance(e, dict) and "usage" in e for e in events)
    assert events[-1] == "[DONE]"


def test_sdk_stream(client: Any) -> None:
    stream = chat(client, stream=True, max_tokens=5, temperature=0)
    chunks = list(stream)
    assert chunks[-1].usage.completion_tokens == 5
    assert chunks[0].choices[0].delta.role == "assistant"


# ---------------------------------------------------------------------------- sampling fields


def test_seed_reproducible_and_temperature_varies(client: Any) -> None:
    a = text_of(client, temperature=1.0, seed=11, max_tokens=12)
    b = text_of(client, temperature=1.0, seed=11, max_tokens=12)
    c = text_of(client, temperature=1.0, seed=12, max_tokens=12)
    assert a == b
    assert a != c


def test_greedy_equivalents(client: Any) -> None:
    greedy = text_of(client, temperature=0, max_tokens=12)
    assert text_of(client, temperature=1.5, extra_body={"top_k": 1}, seed=3,
                   max_tokens=12) == greedy
    assert text_of(client, temperature=1.5, top_p=1e-6, seed=3, max_tokens=12) == greedy
    assert text_of(client, temperature=1.5, extra_body={"min_p": 1.0}, seed=3,
                   max_tokens=12) == greedy
    sampled = {text_of(client, temperature=1.5, seed=s, max_tokens=12) for s in range(3)}
    assert sampled != {greedy}


def test_max_tokens_precedence(client: Any) -> None:
    """max_tokens wins over max_completion_tokens; alone, max_completion_tokens is the limit
    (EOS ignored: a sampled EOS before the limit would end the answer early)."""
    r = chat(client, max_tokens=3, extra_body={"max_completion_tokens": 7, "ignore_eos": True})
    assert r.usage.completion_tokens == 3
    r = chat(client, max_tokens=None, max_completion_tokens=5, extra_body={"ignore_eos": True})
    assert r.usage.completion_tokens == 5 and r.choices[0].finish_reason == "length"


def _distinct(client: Any, **kw: Any) -> int:
    r = chat(client, temperature=0, max_tokens=40, logprobs=True, **kw)
    return len({t.token for t in r.choices[0].logprobs.content})


def test_repetition_penalty_and_alias(client: Any) -> None:
    base = text_of(client, temperature=0, max_tokens=30)
    pen = text_of(client, temperature=0, max_tokens=30, extra_body={"repetition_penalty": 1.8})
    alias = text_of(client, temperature=0, max_tokens=30, extra_body={"repeat_penalty": 1.8})
    primary_wins = text_of(client, temperature=0, max_tokens=30,
                           extra_body={"repetition_penalty": 1.0, "repeat_penalty": 1.8})
    assert pen != base and alias == pen and primary_wins == base


def test_presence_and_frequency_penalties(client: Any) -> None:
    base = _distinct(client)
    assert _distinct(client, frequency_penalty=2.0) > base
    assert _distinct(client, presence_penalty=2.0) > base


def test_ignore_eos_and_user_accepted(client: Any) -> None:
    for seed in range(3):
        r = chat(client, temperature=1.0, seed=seed, max_tokens=20, user="someone",
                 extra_body={"ignore_eos": True})
        assert r.usage.completion_tokens == 20 and r.choices[0].finish_reason == "length"


def test_stop_sequence_across_tokens(client: Any, server: LiveServer) -> None:
    # seeded sampling (same seed -> same tokens) gives varied tokens to cut between
    kw: dict[str, Any] = {"temperature": 1.0, "seed": 5, "max_tokens": 30}
    full = chat(client, logprobs=True, **kw)
    tokens = [t.token for t in full.choices[0].logprobs.content]
    text = full.choices[0].message.content
    # a stop string straddling the boundary between two tokens in the middle of the output
    i = next(i for i in range(3, len(tokens) - 1)
             if len(tokens[i].strip()) >= 2 and len(tokens[i + 1].strip()) >= 2)
    stop = tokens[i][-2:] + tokens[i + 1][:2]
    cut = text[: text.index(stop)].strip()
    r = chat(client, stop=[stop], **kw)
    assert r.choices[0].message.content == cut and r.choices[0].finish_reason == "stop"
    _, events = sse_events(server, {"messages": MSG, "stream": True, "stop": stop, **kw})
    deltas = [e["choices"][0]["delta"].get("content") or "" for e in events
              if isinstance(e, dict) and e["choices"]]
    assert "".join(deltas).strip() == cut
    assert all(stop not in d for d in deltas)


def test_earliest_of_two_stop_strings_wins(client: Any, server: LiveServer) -> None:
    """Two stop strings completing on the same token: the one that starts first cuts the text,
    whatever their order in the list (``late`` is a suffix of ``early`` and listed first)."""
    kw: dict[str, Any] = {"temperature": 1.0, "seed": 5, "max_tokens": 30}
    text = chat(client, **kw).choices[0].message.content
    k = next(k for k in range(2, len(text) - 4)
             if text[k:k + 4].strip() == text[k:k + 4] and text.find(text[k:k + 4]) == k
             and text.find(text[k + 2:k + 4]) == k + 2)
    early, late = text[k:k + 4], text[k + 2:k + 4]
    for stream in (False, True):
        if stream:
            _, events = sse_events(server, {"messages": MSG, "stream": True,
                                            "stop": [late, early], **kw})
            got = "".join(e["choices"][0]["delta"].get("content") or "" for e in events
                          if isinstance(e, dict) and e["choices"])
        else:
            got = chat(client, stop=[late, early], **kw).choices[0].message.content
        assert got.strip() == text[:k].strip(), (stream, early, late, got)


def test_cli_stop_merged_first(live_server: Callable[..., LiveServer]) -> None:
    server = live_server("--temperature", "0", "--max-tokens", "30")
    client = server.openai()
    text = chat(client, max_tokens=30).choices[0].message.content  # server defaults apply
    assert chat(client, max_tokens=30, temperature=0).choices[0].message.content == text
    cli_stop, req_stop = text[10:13], text[20:23]
    stopped = live_server("--temperature", "0", "--max-tokens", "30", "--stop", cli_stop)
    r = chat(stopped.openai(), max_tokens=30, stop=[req_stop, cli_stop])
    assert r.choices[0].message.content == text[: text.index(cli_stop)]


# ---------------------------------------------------------------------------- logprobs


def test_logprobs(client: Any, server: LiveServer) -> None:
    r = chat(client, temperature=0, max_tokens=6, logprobs=True, top_logprobs=3)
    content = r.choices[0].logprobs.content
    assert len(content) == 6
    for tok in content:
        assert tok.logprob <= 0 and len(tok.top_logprobs) == 3
        assert tok.top_logprobs[0].logprob >= tok.top_logprobs[-1].logprob
        assert tok.logprob == pytest.approx(tok.top_logprobs[0].logprob, abs=1e-4)  # greedy
        assert isinstance(tok.bytes, list)
    assert r.choices[0].message.content.strip() == "".join(t.token for t in content).strip()
    _, events = sse_events(server, {"messages": MSG, "max_tokens": 5, "stream": True,
                                    "logprobs": True, "top_logprobs": 2, "temperature": 0})
    streamed = [lp for e in events if isinstance(e, dict) and e["choices"]
                for lp in (e["choices"][0].get("logprobs") or {}).get("content") or []]
    assert len(streamed) == 5 and all(len(lp["top_logprobs"]) == 2 for lp in streamed)


def test_logprobs_ceiling(client: Any) -> None:
    with pytest.raises(openai.BadRequestError) as info:
        chat(client, logprobs=True, top_logprobs=21)
    assert info.value.body["type"] == "invalid_request_error"
    assert "20" in info.value.body["message"]


# ---------------------------------------------------------------------------- messages


def test_message_roles_and_parts(client: Any, server: LiveServer) -> None:
    msgs = [
        {"role": "developer", "content": "Be brief."},
        {"role": "user", "content": [{"type": "text", "text": "What is the "},
                                     {"type": "text", "text": "weather?"}]},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1", "type": "function",
             "function": {"name": "get_weather", "arguments": "{\"city\": \"Oslo\"}"}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "{\"temp\": 3}"},
    ]
    r = chat(client, messages=msgs, max_tokens=4)
    assert r.usage.prompt_tokens > 0
    tok = httpx.post(server.url + "/v1/tokenize", json={"messages": msgs}).json()
    text = httpx.post(server.url + "/v1/detokenize", json={"tokens": tok["tokens"]}).json()["text"]
    assert "<tool_call>" in text and "Oslo" in text and "<tool_response>" in text
    assert "Be brief." in text and "What is the weather?" in text
    counted = httpx.post(server.url + "/v1/count_tokens", json={"messages": msgs}).json()
    assert counted["input_tokens"] == r.usage.prompt_tokens == tok["count"]


@pytest.mark.parametrize("part", [
    {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}},
    {"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}},
])
def test_multimodal_part_on_text_model_is_400(client: Any, part: dict[str, Any]) -> None:
    msgs = [{"role": "user", "content": [{"type": "text", "text": "see"}, part]}]
    with pytest.raises(openai.BadRequestError) as info:
        chat(client, messages=msgs)
    assert "messages[0].content[1]" in info.value.body["message"]
    assert part["type"] in info.value.body["message"]


def test_empty_messages_and_n(client: Any) -> None:
    with pytest.raises(openai.BadRequestError):
        chat(client, messages=[])
    with pytest.raises(openai.BadRequestError) as info:
        chat(client, n=2)
    assert info.value.body["param"] == "n"


def test_template_kwargs_and_reasoning_effort(client: Any) -> None:
    on = chat(client, max_tokens=1).usage.prompt_tokens
    off = chat(client, max_tokens=1,
               extra_body={"chat_template_kwargs": {"enable_thinking": False}}).usage.prompt_tokens
    assert off > on  # the template closes an empty think block when thinking is off
    effort_off = chat(client, max_tokens=1, reasoning_effort="high",
                      extra_body={"chat_template_kwargs": {"enable_thinking": False}})
    assert effort_off.usage.prompt_tokens == off  # explicit enable_thinking=false wins
    assert chat(client, max_tokens=1, reasoning_effort="low").usage.prompt_tokens == on


def test_no_streaming_flag(live_server: Callable[..., LiveServer]) -> None:
    client = live_server("--no-streaming").openai()
    with pytest.raises(openai.BadRequestError) as info:
        list(chat(client, stream=True))
    assert "--no-streaming" in info.value.body["message"]
    assert chat(client, max_tokens=2).choices[0].message.content is not None


# ---------------------------------------------------------------------------- cancellation


def _long_stream(server: LiveServer, request_id: str) -> httpx.Response:
    body = {"messages": MSG, "max_tokens": 3000, "stream": True,
            "extra": 1, "ignore_eos": True}
    return httpx.stream("POST", server.url + "/v1/chat/completions", json=body,
                        headers={"X-Request-ID": request_id}, timeout=120)


def test_cancel_streaming_by_endpoint(server: LiveServer) -> None:
    events: list[Any] = []
    with _long_stream(server, "cancel-stream-1") as r:
        lines = r.iter_lines()
        for line in lines:
            if line.startswith("data: {"):
                events.append(json.loads(line[6:]))
                if len(events) == 3:
                    c = httpx.post(server.url + "/v1/chat/completions/cancel-stream-1/cancel")
                    assert c.status_code == 200
                    assert c.json() == {"id": "cancel-stream-1",
                                        "object": "chat.completion.cancellation",
                                        "cancelled": True}
            elif line == "data: [DONE]":
                break
    finishes = [e["choices"][0]["finish_reason"] for e in events if e["choices"]]
    assert finishes[-1] == "cancelled"
    contents = " ".join(e["choices"][0]["delta"].get("content") or "" for e in events
                        if e["choices"])
    assert "cancel" not in contents.lower()
    assert httpx.post(server.url + "/v1/chat/completions/cancel-stream-1/cancel"
                      ).status_code == 404


def test_cancel_non_streaming(server: LiveServer, client: Any) -> None:
    result: dict[str, Any] = {}

    def run() -> None:
        result["r"] = client.chat.completions.create(
            model="m", messages=MSG, max_tokens=3000, extra_body={"ignore_eos": True},
            extra_headers={"X-Request-ID": "cancel-json-1"})

    t = threading.Thread(target=run)
    t.start()
    eventually(lambda: httpx.post(server.url + "/v1/chat/completions/cancel-json-1/cancel")
               .status_code == 200, 30, "the request is cancelled by id")
    t.join(60)
    assert result["r"].choices[0].finish_reason == "cancelled"
    assert result["r"].usage.completion_tokens < 3000


def test_unknown_cancel_is_404(server: LiveServer) -> None:
    r = httpx.post(server.url + "/v1/chat/completions/nobody/cancel")
    assert r.status_code == 404 and r.json()["error"]["type"] == "not_found_error"


def _running(server: LiveServer) -> float:
    text = httpx.get(server.url + "/metrics").text
    for line in text.splitlines():
        if line.startswith("afm:num_requests_running"):
            return float(line.split()[-1])
    raise AssertionError("no afm:num_requests_running in /metrics")


def test_disconnect_frees_the_engine(server: LiveServer) -> None:
    with _long_stream(server, "disconnect-1") as r:
        for line in r.iter_lines():
            if line.startswith("data: {"):
                break
    # the client is gone: within moments the request is no longer in flight
    eventually(lambda: httpx.post(server.url + "/v1/chat/completions/disconnect-1/cancel")
               .status_code == 404 and _running(server) == 0, 10,
               "the generation ends after the client disconnected", interval=0.1)


def test_server_busy_after_queue_timeout(live_server: Callable[..., LiveServer]) -> None:
    from modelbuilder import ensure_model

    # the "default" model is slow enough that a 3000-token request holds the only slot
    server = live_server("--concurrent", "1", "--queue-timeout", "1",
                         model=ensure_model("default"))
    with _long_stream(server, "hog-1") as r:
        lines = r.iter_lines()  # keep the generator open: breaking a loop over it disconnects
        while not next(lines).startswith("data: {"):
            pass
        t0 = time.monotonic()
        busy = httpx.post(server.url + "/v1/chat/completions",
                          json={"messages": MSG, "max_tokens": 2}, timeout=30)
        waited = time.monotonic() - t0
        httpx.post(server.url + "/v1/chat/completions/hog-1/cancel")
    assert busy.status_code == 503, busy.text
    assert busy.json()["error"]["type"] == "server_busy"
    assert busy.headers["retry-after"] == "2"
    assert waited >= 0.9  # it waited out the 1 s queue timeout (an upper bound is the bench's)
    ok = httpx.post(server.url + "/v1/chat/completions",
                    json={"messages": MSG, "max_tokens": 2}, timeout=30)
    assert ok.status_code == 200


# ---------------------------------------------------------------------------- profile, metrics


def test_afm_profile(server: LiveServer) -> None:
    r = httpx.post(server.url + "/v1/chat/completions", json={"messages": MSG, "max_tokens": 3},
                   headers={"X-AFM-Profile": "true"}, timeout=60).json()
    prof = r["afm_profile"]
    assert prof["decode_tokens_per_second"] > 0 and prof["gpu_utilization"] is None
    assert prof["host"]["machine"]
    _, events = sse_events(server, {"messages": MSG, "max_tokens": 3, "stream": True},
                           headers={"X-AFM-Profile": "extended"})
    assert events[-1] == "[DONE]" and "afm_profile" in events[-2]
    assert "samples" in events[-2]["afm_profile"]


def test_metrics_families(server: LiveServer, client: Any) -> None:
    chat(client, max_tokens=2)
    text = httpx.get(server.url + "/metrics").text
    for family in ("afm:num_requests_running", "afm:num_requests_waiting",
                   "afm:prompt_tokens_total", "afm:generation_tokens_total",
                   "afm:request_success_total", "afm:e2e_request_latency_seconds",
                   "afm:time_to_first_token_seconds", "afm:time_per_output_token_seconds",
                   "afm:request_queue_time_seconds", "afm:prefix_cache_hits_total"):
        assert family in text, family
