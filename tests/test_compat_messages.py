"""/v1/messages and /v1/messages/count_tokens through the official `anthropic` SDK against a real
`afm serve`: the message object, streaming (the SDK's accumulated message equals the
non-streamed one for the same seed), tools forced by the grammar, a tool_result round trip,
token counts, stop reasons, metrics, disconnects. The tiny model's text is noise: tests compare
outputs, never read them. anthropic 2.14's `messages.create` takes no `temperature`: it goes
in `extra_body`, with AFM's `seed`."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import anthropic
import httpx
import jsonschema
import pytest

from engine.model_runner import SOLO_PREFIX_REUSE
from tests.conftest import LiveServer
from tests.contract_support import parse_sse_events, stream_errors
from tests.waiting import eventually

pytestmark = pytest.mark.slow

MSGS = [{"role": "user", "content": "Tell me about the lighthouse."}]
SEEDS = (0, 1, 2)
WEATHER_SCHEMA = {"type": "object",
                  "properties": {"city": {"type": "string", "maxLength": 12},
                                 "unit": {"enum": ["c", "f"]},
                                 "days": {"type": "integer", "minimum": 1, "maximum": 7}},
                  "required": ["city", "unit"], "additionalProperties": False}
WEATHER = {"name": "get_weather", "description": "Weather forecast for a city.",
           "input_schema": WEATHER_SCHEMA}
TIME = {"name": "get_time", "description": "Local time in a city.",
        "input_schema": {"type": "object", "properties": {"city": {"type": "string",
                                                                   "maxLength": 12}},
                         "required": ["city"], "additionalProperties": False}}


def sdk(server: LiveServer, **kw: Any) -> anthropic.Anthropic:
    return anthropic.Anthropic(base_url=server.url, api_key="unused", max_retries=0, **kw)


@pytest.fixture(scope="module")
def client(server: LiveServer) -> Iterator[anthropic.Anthropic]:
    with sdk(server) as c:
        yield c


@pytest.fixture(scope="module")
def uncached(live_server: Callable[..., LiveServer]) -> Iterator[anthropic.Anthropic]:
    """A client of a server without the prefix cache."""
    with sdk(live_server("--disable-prefix-caching")) as c:
        yield c


BODY_ONLY = ("temperature", "top_p", "top_k", "seed")
"""Fields anthropic 2.14's `messages.create` has no argument for: sent in `extra_body`."""


def _args(seed: int | None, temperature: float, kw: dict[str, Any]) -> dict[str, Any]:
    kw.setdefault("model", "claude-local")
    kw.setdefault("messages", MSGS)
    kw.setdefault("max_tokens", 24)
    extra = {"temperature": temperature, **({"seed": seed} if seed is not None else {}),
             **{k: kw.pop(k) for k in BODY_ONLY if k in kw}}
    return {**kw, "extra_body": extra}


def create(client: anthropic.Anthropic, seed: int | None = 0, temperature: float = 1.0,
           **kw: Any) -> Any:
    return client.messages.create(**_args(seed, temperature, kw))


def streamed(client: anthropic.Anthropic, seed: int | None = 0, temperature: float = 1.0,
             **kw: Any) -> Any:
    """The SDK's accumulated final message of a stream."""
    with client.messages.stream(**_args(seed, temperature, kw)) as stream:
        for _ in stream:
            pass
        return stream.get_final_message()


def comparable(message: Any) -> dict[str, Any]:
    """A message without what differs between two runs of one request (ids; the split of
    prompt tokens between computed and read from the prefix cache)."""
    data = message.model_dump()
    data.pop("id")
    for block in data["content"]:
        block.pop("id", None)
    use = data.pop("usage")
    data["prompt"] = use["input_tokens"] + (use["cache_read_input_tokens"] or 0)
    data["output_tokens"] = use["output_tokens"]
    return data


def raw_stream(server: LiveServer, body: dict[str, Any],
               headers: dict[str, str] | None = None) -> tuple[httpx.Response, str]:
    with httpx.stream("POST", server.url + "/v1/messages", json={**body, "stream": True},
                      headers=headers or {}, timeout=120) as r:
        text = r.read().decode()
    return r, text


def test_message_shape(client: anthropic.Anthropic, server: LiveServer) -> None:
    raw = client.messages.with_raw_response.create(
        model="claude-local", max_tokens=8, messages=MSGS, extra_body={"seed": 1})
    m = raw.parse()
    assert m.id.startswith("msg_") and len(m.id) == 28
    assert (m.type, m.role, m.model) == ("message", "assistant",
                                        httpx.get(server.url + "/health").json()["model"])
    assert m.stop_reason in ("end_turn", "max_tokens") and m.stop_sequence is None
    assert all(b.type == "text" for b in m.content)
    assert 0 < m.usage.output_tokens <= 8
    assert m.usage.input_tokens + m.usage.cache_read_input_tokens > 0
    assert m.usage.cache_creation_input_tokens == 0
    assert m._request_id == raw.headers["request-id"] == raw.headers["x-request-id"]


def test_stream_equals_create(client: anthropic.Anthropic) -> None:
    for seed in SEEDS:
        whole = create(client, seed=seed, max_tokens=40)
        assert comparable(streamed(client, seed=seed, max_tokens=40)) == comparable(whole)
    assert len({json.dumps(comparable(create(client, seed=s))["content"]) for s in SEEDS}) > 1


def test_stream_events_follow_the_contract(server: LiveServer) -> None:
    r, body = raw_stream(server, {"model": "m", "max_tokens": 16, "messages": MSGS, "seed": 3})
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
    assert r.headers["request-id"] == r.headers["x-request-id"]
    assert stream_errors("post", "/v1/messages", body) == []
    names = [name for name, _ in parse_sse_events(body)]
    assert names[:2] == ["message_start", "ping"] and names[-2:] == ["message_delta",
                                                                    "message_stop"]
    assert "[DONE]" not in body
    events = [json.loads(data) for _, data in parse_sse_events(body)]
    start = events[0]["message"]
    assert start["content"] == [] and start["stop_reason"] is None
    blocks = [e for e in events if e["type"] == "content_block_start"]
    assert [e["index"] for e in blocks] == list(range(len(blocks)))
    assert sum(e["type"] == "content_block_stop" for e in events) == len(blocks)


def test_tool_choice_any_validates_against_input_schema(client: anthropic.Anthropic) -> None:
    """`any`: tool_use blocks whose input validates (one with parallel use disabled; with it,
    random weights may keep calling until max_tokens); streamed, the SDK accumulates the
    same blocks."""
    schemas = {"get_weather": WEATHER_SCHEMA, "get_time": TIME["input_schema"]}
    for seed in SEEDS:
        for single in (False, True):
            choice = {"type": "any", "disable_parallel_tool_use": single}
            m = create(client, seed=seed, max_tokens=300, tools=[WEATHER, TIME],
                       tool_choice=choice)
            uses = [b for b in m.content if b.type == "tool_use"]
            assert uses and all(b.id.startswith("toolu_") for b in uses)
            assert m.content[0].type == "tool_use"
            for block in uses:
                jsonschema.validate(block.input, schemas[block.name])
            if single:
                assert len(uses) == 1 and m.stop_reason == "tool_use"
            else:
                assert m.stop_reason in ("tool_use", "max_tokens")
            s = streamed(client, seed=seed, max_tokens=300, tools=[WEATHER, TIME],
                         tool_choice=choice)
            assert comparable(s) == comparable(m)


def test_tool_choice_named_and_single(client: anthropic.Anthropic) -> None:
    for seed in SEEDS:
        m = create(client, seed=seed, max_tokens=120, tools=[WEATHER, TIME],
                   tool_choice={"type": "tool", "name": "get_time",
                                "disable_parallel_tool_use": True})
        (use,) = [b for b in m.content if b.type == "tool_use"]
        assert use.name == "get_time" and m.stop_reason == "tool_use"
        jsonschema.validate(use.input, TIME["input_schema"])


def test_tool_choice_none_hides_tools(client: anthropic.Anthropic) -> None:
    def count(**kw: Any) -> int:
        return client.messages.count_tokens(model="m", messages=MSGS, **kw).input_tokens

    assert count(tools=[WEATHER]) > count()
    assert count(tools=[WEATHER], tool_choice={"type": "none"}) == count()


def test_tool_result_round_trip(client: anthropic.Anthropic) -> None:
    first = create(client, seed=1, max_tokens=120, tools=[WEATHER],
                   tool_choice={"type": "tool", "name": "get_weather"})
    use = next(b for b in first.content if b.type == "tool_use")
    history = [*MSGS, {"role": "assistant", "content": [b.model_dump() for b in first.content]}]

    def answer(result: dict[str, Any]) -> list[dict[str, Any]]:
        return [*history, {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": use.id, **result},
            {"type": "text", "text": "Summarise it."}]}]

    ok = answer({"content": "Sunny, 21 C"})
    blocks = answer({"content": [{"type": "text", "text": "Sunny, 21 C"}]})
    failed = answer({"content": "city not found", "is_error": True})
    reply = create(client, seed=2, messages=ok, tools=[WEATHER])
    assert reply.stop_reason in ("end_turn", "max_tokens", "tool_use")
    counts = [client.messages.count_tokens(model="m", messages=m, tools=[WEATHER]).input_tokens
              for m in (history, ok, blocks, failed)]
    assert counts[1] == counts[2] > counts[0] and counts[3] != counts[1]
    assert reply.usage.input_tokens + reply.usage.cache_read_input_tokens == counts[1]
    assert comparable(streamed(client, seed=2, messages=ok, tools=[WEATHER])) \
        == comparable(reply)


REQUESTS = [
    {"messages": MSGS},
    {"messages": MSGS, "system": "Be brief."},
    {"messages": MSGS, "system": [{"type": "text", "text": "Be brief.",
                                   "cache_control": {"type": "ephemeral"}},
                                  {"type": "text", "text": "Answer in French."}]},
    {"messages": MSGS, "tools": [WEATHER, TIME], "tool_choice": {"type": "auto"}},
    {"messages": [*MSGS, {"role": "assistant", "content": "It stands on a cliff."},
                  {"role": "user", "content": [{"type": "text", "text": "And then?"}]}]},
]


@pytest.mark.parametrize("request_", REQUESTS)
def test_count_tokens_equals_input_tokens(uncached: anthropic.Anthropic,
                                          client: anthropic.Anthropic,
                                          request_: dict[str, Any]) -> None:
    """Without a prefix cache, input_tokens is the whole prompt and equals the count; with
    it, the prompt splits into input_tokens and cache_read_input_tokens."""
    counted = uncached.messages.count_tokens(model="m", **request_).input_tokens
    m = create(uncached, max_tokens=2, **request_)
    assert m.usage.input_tokens == counted and m.usage.cache_read_input_tokens == 0
    assert client.messages.count_tokens(model="m", **request_).input_tokens == counted
    for _ in range(2):  # the second run reads the prompt (less its last token) from the cache
        m = create(client, max_tokens=2, **request_)
        assert m.usage.input_tokens + m.usage.cache_read_input_tokens == counted
    assert (m.usage.cache_read_input_tokens > 0) == (counted > SOLO_PREFIX_REUSE)


def test_stop_sequence_and_max_tokens(client: anthropic.Anthropic) -> None:
    hits = 0
    for seed in SEEDS:
        free = create(client, seed=seed, max_tokens=30)
        text = "".join(b.text for b in free.content if b.type == "text")
        if len(text) < 8:
            continue
        stop = text[4:7]
        cut = create(client, seed=seed, max_tokens=30, stop_sequences=["\x00never", stop])
        assert cut.stop_reason == "stop_sequence" and cut.stop_sequence == stop
        got = "".join(b.text for b in cut.content if b.type == "text")
        assert text.startswith(got) and stop not in got
        s = streamed(client, seed=seed, max_tokens=30, stop_sequences=["\x00never", stop])
        assert comparable(s) == comparable(cut)
        hits += 1
    assert hits >= 2
    short = create(client, seed=0, max_tokens=3)
    if short.usage.output_tokens == 3:
        assert short.stop_reason == "max_tokens"


def test_sampling_fields(client: anthropic.Anthropic) -> None:
    """top_k=1, a tiny top_p and temperature 0 all sample greedily, whatever the seed."""
    def run(**kw: Any) -> str:
        m = comparable(create(client, messages=[{"role": "user", "content": "Once upon"}],
                              max_tokens=12, **kw))
        return json.dumps([m["content"], m["stop_reason"], m["output_tokens"]])

    greedy = {run(seed=s, top_k=1) for s in SEEDS}
    assert len(greedy) == 1
    assert greedy == {run(seed=9, top_p=1e-9)} == {run(seed=5, temperature=0.0)}
    assert len({run(seed=s) for s in SEEDS}) > 1


def test_metadata_and_headers_accepted(server: LiveServer) -> None:
    with sdk(server, default_headers={"anthropic-beta": "prompt-caching-2024-07-31",
                                      "x-api-key": "sk-ant-local"}) as c:
        m = create(c, max_tokens=4, metadata={"user_id": "user-1"}, service_tier="auto")
    assert m.type == "message"


def _running(server: LiveServer) -> float:
    for line in httpx.get(server.url + "/metrics").text.splitlines():
        if line.startswith("afm:num_requests_running"):
            return float(line.split()[-1])
    raise AssertionError("no afm:num_requests_running in /metrics")


def _success(server: LiveServer) -> float:
    return sum(float(line.split()[-1]) for line in httpx.get(server.url + "/metrics").text
               .splitlines() if line.startswith("afm:request_success_total"))


LONG = {"model": "m", "max_tokens": 3000, "messages": MSGS,
        "tools": [{"name": "write", "input_schema": {
            "type": "object", "properties": {"text": {"type": "string", "minLength": 100000}},
            "required": ["text"]}}],
        "tool_choice": {"type": "tool", "name": "write"}}
"""A request that holds its slot for all of its 3000 tokens: the grammar forces a tool input
longer than they can spell (at 2500 characters the random model's long tokens ended it in 1.6 s,
inside a busy probe's one-second queue wait)."""


def test_counts_in_metrics_and_disconnect_frees_the_slot(server: LiveServer,
                                                         client: anthropic.Anthropic) -> None:
    before = _success(server)
    create(client, max_tokens=2)
    assert _success(server) == before + 1
    with httpx.stream("POST", server.url + "/v1/messages", json={**LONG, "stream": True},
                      headers={"X-Request-ID": "msg-disconnect-1"}, timeout=120) as r:
        for line in r.iter_lines():
            if line.startswith("event: message_start"):
                break
    eventually(lambda: httpx.post(server.url + "/v1/chat/completions/msg-disconnect-1/cancel")
               .status_code == 404 and _running(server) == 0, 10,
               "the generation ends after the client disconnected", interval=0.1)
