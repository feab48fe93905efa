"""Every value a client reads, asserted by value through a real `afm serve`.

usage (and ``cached_tokens`` on a repeated or shared prefix), ``timings``, ``afm_profile``, each
``/metrics`` family moving by the amount a known request implies, the prefix-cache flags, CORS
headers and body limits. Each test that counts uses a server of its own (distinct flags), so
no other test's requests move its counters; pytest runs tests one at a time.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from tests.conftest import LiveServer

pytestmark = pytest.mark.slow

from engine.model_runner import MIN_PREFIX_REUSE  # noqa: E402 - shorter hits are recomputed

HISTOGRAMS = ("afm:e2e_request_latency_seconds", "afm:request_queue_time_seconds",
              "afm:request_prefill_time_seconds", "afm:request_decode_time_seconds",
              "afm:time_to_first_token_seconds", "afm:time_per_output_token_seconds")
EXPOSED = ("X-Request-ID, OpenAI-Request-ID, X-Grammar-Constraints, X-Embedding-Truncated, "
           "Retry-After, Request-ID")  # Request-ID: Anthropic's SDK reads it on /v1/messages
_SAMPLE = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*(?:\{[^}]*\})?) (\S+)$")


def metrics(server: LiveServer) -> dict[str, float]:
    """Every sample of /metrics, keyed by name with labels."""
    out = {}
    for line in httpx.get(server.url + "/metrics").text.splitlines():
        m = _SAMPLE.match(line)
        if m:
            out[m.group(1)] = float(m.group(2))
    return out


def delta(before: dict[str, float], after: dict[str, float], key: str) -> float:
    return after.get(key, 0.0) - before.get(key, 0.0)


def messages(session: str, question: str = "Tell me about lighthouses.") -> list[dict[str, str]]:
    """A system prompt unique to ``session`` (longer than MIN_PREFIX_REUSE tokens), then a
    question: no earlier request shares more than the template's first tokens with it."""
    system = f"Session {session}. " + "You answer briefly and kindly about the sea. " * 8
    return [{"role": "system", "content": system}, {"role": "user", "content": question}]


def post_chat(server: LiveServer, msgs: list[dict[str, str]], **kw: Any) -> dict[str, Any]:
    headers = kw.pop("headers", None) or {}
    body = {"messages": msgs, "max_tokens": 5, "temperature": 0, "ignore_eos": True, **kw}
    r = httpx.post(server.url + "/v1/chat/completions", json=body, timeout=120, headers=headers)
    assert r.status_code == 200, r.text
    return r.json()


def prompt_ids(server: LiveServer, msgs: list[dict[str, str]]) -> list[int]:
    r = httpx.post(server.url + "/v1/tokenize", json={"messages": msgs}, timeout=60)
    return r.json()["tokens"]


def common_prefix(a: list[int], b: list[int]) -> int:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n


@pytest.fixture(scope="module")
def counting_server(live_server: Callable[..., LiveServer]) -> LiveServer:
    return live_server("--concurrent", "3")


# ---------------------------------------------------------------------------- usage and metrics


def test_usage_cache_and_every_metric_family(counting_server: LiveServer) -> None:
    server = counting_server
    session = uuid.uuid4().hex
    msgs = messages(session)
    n_prompt = len(prompt_ids(server, msgs))
    assert n_prompt > MIN_PREFIX_REUSE

    m0 = metrics(server)
    first = post_chat(server, msgs)
    m1 = metrics(server)
    u = first["usage"]
    assert u["prompt_tokens"] == n_prompt and u["completion_tokens"] == 5
    assert u["total_tokens"] == n_prompt + 5
    assert u["prompt_tokens_details"]["cached_tokens"] == 0  # the session id starts the prompt
    assert first["choices"][0]["finish_reason"] == "length"
    assert delta(m0, m1, "afm:prompt_tokens_total") == n_prompt
    assert delta(m0, m1, "afm:generation_tokens_total") == 5
    assert delta(m0, m1, 'afm:request_success_total{finished_reason="length"}') == 1
    assert delta(m0, m1, "afm:prefix_cache_queries_total") == n_prompt
    assert delta(m0, m1, "afm:prefix_cache_hits_total") == 0
    for family in HISTOGRAMS:
        assert delta(m0, m1, family + "_count") == 1, family
    # one request observed: its end-to-end latency covers its time to first token and decode
    e2e = delta(m0, m1, "afm:e2e_request_latency_seconds_sum")
    assert e2e >= delta(m0, m1, "afm:time_to_first_token_seconds_sum")
    assert e2e >= delta(m0, m1, "afm:request_decode_time_seconds_sum") > 0
    assert m1["afm:num_requests_running"] == 0 and m1["afm:num_requests_waiting"] == 0

    # the same prompt again: everything but the last prompt token comes from the cache
    again = post_chat(server, msgs)
    m2 = metrics(server)
    cached = again["usage"]["prompt_tokens_details"]["cached_tokens"]
    assert cached == n_prompt - 1
    assert again["usage"]["prompt_tokens"] == n_prompt
    assert delta(m1, m2, "afm:prefix_cache_hits_total") == n_prompt - 1
    assert delta(m1, m2, "afm:prefix_cache_queries_total") == n_prompt
    assert delta(m1, m2, "afm:prompt_tokens_total") == n_prompt
    t = again["timings"]
    assert t["cache_n"] == cached and t["prompt_n"] == n_prompt - cached == 1
    assert t["prompt_n"] < first["timings"]["prompt_n"] == n_prompt  # fewer tokens prefilled
    assert again["choices"][0]["message"] == first["choices"][0]["message"]


def test_streamed_usage_reports_the_shared_prefix(counting_server: LiveServer) -> None:
    server = counting_server
    session = uuid.uuid4().hex
    msgs, other = messages(session), messages(session, "Why is the sky blue at noon?")
    shared = common_prefix(prompt_ids(server, msgs), prompt_ids(server, other))
    assert shared > MIN_PREFIX_REUSE
    post_chat(server, msgs)
    body = {"messages": other, "max_tokens": 4, "temperature": 0, "ignore_eos": True,
            "stream": True, "stream_options": {"include_usage": True}}
    usage = timings = None
    with httpx.stream("POST", server.url + "/v1/chat/completions", json=body, timeout=120) as r:
        for line in r.iter_lines():
            if line.startswith("data: {"):
                event = json.loads(line[6:])
                usage = event.get("usage") or usage
                timings = event.get("timings") or timings
    assert usage is not None and timings is not None
    assert usage["prompt_tokens_details"]["cached_tokens"] == shared
    assert usage["prompt_tokens"] == len(prompt_ids(server, other))
    assert usage["completion_tokens"] == 4
    assert timings["cache_n"] == shared
    assert timings["prompt_n"] == usage["prompt_tokens"] - shared


def test_profile_and_timings_agree_with_usage(counting_server: LiveServer) -> None:
    msgs = messages(uuid.uuid4().hex)
    r = post_chat(counting_server, msgs, max_tokens=6, headers={"X-AFM-Profile": "true"})
    u, t, prof = r["usage"], r["timings"], r["afm_profile"]
    assert t["predicted_n"] == u["completion_tokens"] == 6
    assert t["prompt_n"] == u["prompt_tokens"] - u["prompt_tokens_details"]["cached_tokens"]
    assert t["prompt_ms"] == pytest.approx(u["prompt_time"] * 1000, abs=1e-2)
    assert t["predicted_ms"] == pytest.approx(u["completion_time"] * 1000, abs=1e-2)
    assert u["completion_tokens_per_second"] == pytest.approx(
        u["completion_tokens"] / u["completion_time"], rel=1e-3)
    assert u["prompt_tokens_per_second"] == pytest.approx(t["prompt_n"] / u["prompt_time"],
                                                          rel=1e-3)
    assert t["predicted_per_second"] == pytest.approx(u["completion_tokens_per_second"],
                                                      rel=1e-3)
    assert prof["object"] == "afm_profile"
    assert prof["decode_tokens_per_second"] == u["completion_tokens_per_second"]
    assert prof["prefill_tokens_per_second"] == u["prompt_tokens_per_second"]
    assert prof["peak_memory_gib"] == u["peak_memory_gib"]
    assert u["total_time"] >= u["prompt_time"] and u["total_time"] >= u["completion_time"]
    assert prof["weights_memory_gib"] > 0
    assert prof["sharding"] is None  # one process


def test_cancelled_request_counted_by_reason(counting_server: LiveServer) -> None:
    server = counting_server
    before = metrics(server)
    body = {"messages": messages(uuid.uuid4().hex), "max_tokens": 3000, "stream": True,
            "ignore_eos": True}
    finish = None
    with httpx.stream("POST", server.url + "/v1/chat/completions", json=body, timeout=120,
                      headers={"X-Request-ID": "obs-cancel-1"}) as r:
        for line in r.iter_lines():
            if line.startswith("data: {"):
                event = json.loads(line[6:])
                if finish is None and event["choices"]:
                    c = httpx.post(server.url + "/v1/chat/completions/obs-cancel-1/cancel")
                    assert c.status_code == 200
                    finish = "asked"
                if event["choices"] and event["choices"][0]["finish_reason"]:
                    finish = event["choices"][0]["finish_reason"]
    after = metrics(server)
    assert finish == "cancelled"
    assert delta(before, after, 'afm:request_success_total{finished_reason="cancelled"}') == 1
    assert delta(before, after, 'afm:request_success_total{finished_reason="stop"}') == 0


# ---------------------------------------------------------------------------- prefix-cache flags


def test_disable_prefix_caching(live_server: Callable[..., LiveServer]) -> None:
    server = live_server("--disable-prefix-caching")
    msgs = messages(uuid.uuid4().hex)
    before = metrics(server)
    first, again = post_chat(server, msgs), post_chat(server, msgs)
    after = metrics(server)
    for r in (first, again):
        assert r["usage"]["prompt_tokens_details"]["cached_tokens"] == 0
        assert r["timings"]["cache_n"] == 0
        assert r["timings"]["prompt_n"] == r["usage"]["prompt_tokens"]
    assert again["choices"][0]["message"] == first["choices"][0]["message"]
    assert delta(before, after, "afm:prefix_cache_hits_total") == 0


def test_prefix_cache_bytes_bounds_the_cache(live_server: Callable[..., LiveServer]) -> None:
    # 1 KiB holds no entry of even the tiny model (a few KiB of KV per token): nothing is reused
    small = live_server("--prefix-cache-bytes", "1024")
    msgs = messages(uuid.uuid4().hex)
    post_chat(small, msgs)
    assert post_chat(small, msgs)["usage"]["prompt_tokens_details"]["cached_tokens"] == 0
    # 64 MiB holds it: the repeat is served from the cache
    big = live_server("--prefix-cache-bytes", str(64 * 2**20))
    post_chat(big, msgs)
    cached = post_chat(big, msgs)["usage"]["prompt_tokens_details"]["cached_tokens"]
    assert cached == len(prompt_ids(big, msgs)) - 1


# ---------------------------------------------------------------------------- headers and limits


def test_cors_headers_by_value(server: LiveServer) -> None:
    r = httpx.get(server.url + "/v1/models", headers={"Origin": "http://localhost:3000",
                                                      "X-Request-ID": "cors-7"})
    assert r.status_code == 200
    assert r.headers["access-control-allow-origin"] == "*"
    assert r.headers["access-control-expose-headers"] == EXPOSED
    assert r.headers["x-request-id"] == r.headers["openai-request-id"] == "cors-7"
    pre = httpx.options(server.url + "/v1/chat/completions", headers={
        "Origin": "http://localhost:3000", "Access-Control-Request-Method": "POST"})
    assert pre.status_code == 204
    assert pre.headers["access-control-allow-methods"] == "GET, POST, DELETE, OPTIONS"
    assert pre.headers["access-control-allow-headers"] == (
        "Content-Type, Authorization, X-AFM-Profile")
    assert pre.headers["access-control-max-age"] == "600"
    assert "access-control-expose-headers" not in httpx.get(server.url + "/v1/models").headers


@pytest.mark.parametrize("path", ["/v1/chat/completions", "/v1/audio/transcriptions",
                                  "/v1/vision/ocr"])
def test_413_per_route_limit(live_server: Callable[..., LiveServer], path: str) -> None:
    server = live_server("--max-body-bytes", "4096", "--max-audio-body-bytes", "4096",
                         "--max-vision-body-bytes", "4096")
    big = b'{"messages": [{"role": "user", "content": "' + b"a" * 5000 + b'"}]}'
    r = httpx.post(server.url + path, content=big, headers={
        "content-type": "application/json", "x-request-id": "big-1"})
    assert r.status_code == 413, r.text
    err = r.json()["error"]
    assert err["type"] == "payload_too_large" and err["request_id"] == "big-1"
    assert "4096" in err["message"]
    # just under the limit reaches the handler
    ok = httpx.post(server.url + "/v1/chat/completions", timeout=60, json={
        "messages": [{"role": "user", "content": "a" * 100}], "max_tokens": 1})
    assert ok.status_code == 200
