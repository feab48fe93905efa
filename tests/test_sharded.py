"""`afm serve` sharded across 2 ranks (MLX ring backend on loopback) against one process.

The two ranks are started exactly as ``mlx.launch --backend ring -n 2`` starts them on one host
(``MLX_RANK`` and a ring hostfile in ``MLX_HOSTFILE``), but by the test itself, so it holds
each rank's process (to stop rank 0 cleanly, or to kill rank 1). Rank 0 serves HTTP; rank 1
only replays its steps. Output must match a single-process server on the same model.

The comparisons sample with a fixed seed at temperature 1 rather than greedily: the tiny
random-weight model's greedy output is one newline token repeated, which would match
trivially. Sampling happens on rank 0 only, from logits that equal the single-process ones up
to float summation order (about 1e-7 here), so seeded draws are the same tokens.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, BinaryIO

import httpx
import pytest

from tests.conftest import PINNED_SAMPLING, ROOT, LiveServer, free_port, wait_for_health
from tests.waiting import eventually

MESSAGES = [{"role": "user", "content": "Tell me about the sea and the sky."}]
STALL_SECONDS = 5  # rank 0's watchdog: a collective that hangs this long means a lost rank
TOKEN_SECONDS = 0.25  # each prompt token (8 per decode row) adds this to a step's budget
SEEDED: dict[str, Any] = {"temperature": 1.0, "seed": 7, "max_tokens": 24}


class ShardedServer:
    """Two ranks of `afm serve` on a loopback ring; rank 0 serves HTTP on ``port``."""

    def __init__(self, base: Path, args: list[str]) -> None:
        self.port = free_port()
        self.base = base
        hostfile = base / "hosts.json"
        hostfile.write_text(json.dumps([[f"127.0.0.1:{free_port()}"],
                                        [f"127.0.0.1:{free_port()}"]]))
        self.procs: list[subprocess.Popen[bytes]] = []
        self.log_files: list[BinaryIO] = []
        for rank in (1, 0):  # the worker first: rank 0 waits for it on the ring
            env = {**os.environ, "MLX_RANK": str(rank), "MLX_HOSTFILE": str(hostfile),
                   "AFM_SHARD_STALL_SECONDS": str(STALL_SECONDS),
                   "AFM_SHARD_TOKEN_SECONDS": str(TOKEN_SECONDS)}
            cmd = [sys.executable, "-m", "afm", "serve", "--port", str(self.port),
                   "--data-dir", str(base / "data"), *PINNED_SAMPLING, *args]
            log = (base / f"rank{rank}.log").open("wb")
            self.log_files.append(log)
            self.procs.append(subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log,
                                               stderr=subprocess.STDOUT))
        self.rank1, self.rank0 = self.procs

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def logs(self) -> str:
        return "\n".join(f"--- rank {r} ---\n" + (self.base / f"rank{r}.log").read_text(
            errors="replace")[-3000:] for r in (0, 1))

    def wait_healthy(self, timeout: float = 240.0) -> ShardedServer:
        state = wait_for_health(self.url, lambda: any(p.poll() is not None for p in self.procs),
                                timeout)
        if state == "healthy":
            return self
        if state == "exited":
            raise RuntimeError(f"a rank exited early:\n{self.logs()}")
        self.kill()
        raise RuntimeError(f"sharded server did not become healthy:\n{self.logs()}")

    def stop(self) -> list[int | None]:
        """SIGTERM rank 0 only: it tells rank 1 to stop; both exit."""
        if self.rank0.poll() is None:
            self.rank0.send_signal(signal.SIGTERM)
        codes = []
        for p in (self.rank0, self.rank1):
            try:
                codes.append(p.wait(timeout=30))
            except subprocess.TimeoutExpired:
                codes.append(None)
        self.kill()
        return codes

    def kill(self) -> None:
        for p in self.procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        for f in self.log_files:
            f.close()

    def openai(self) -> Any:
        import openai

        return openai.OpenAI(base_url=self.url + "/v1", api_key="unused", max_retries=0)


@pytest.fixture(scope="module")
def sharded(tmp_path_factory: pytest.TempPathFactory, tiny_model: Path
            ) -> Iterator[ShardedServer]:
    server = ShardedServer(tmp_path_factory.mktemp("sharded"),
                           ["--model", str(tiny_model), "--concurrent", "8"])
    try:
        yield server.wait_healthy()
    finally:
        codes = server.stop()
        # rank 0 drains and exits 0 as `afm serve` does on SIGTERM; rank 1 follows
        assert codes == [0, 0], f"exit codes {codes}\n{server.logs()}"


@pytest.fixture(scope="module")
def single(live_server: Callable[..., LiveServer]) -> LiveServer:
    return live_server("--concurrent", "8")


def _chat(server: Any, **kw: Any) -> Any:
    return server.openai().chat.completions.create(model="tiny", messages=MESSAGES,
                                                   **{**SEEDED, **kw})


def test_seeded_chat_matches_one_process(sharded: ShardedServer, single: LiveServer) -> None:
    a = _chat(sharded, logprobs=True, top_logprobs=3)
    b = _chat(single, logprobs=True, top_logprobs=3)
    tokens_a = [t.token for t in a.choices[0].logprobs.content]
    tokens_b = [t.token for t in b.choices[0].logprobs.content]
    assert tokens_a == tokens_b
    assert a.choices[0].message.content == b.choices[0].message.content
    assert len(set(tokens_a)) > 3  # a real draw, not a repeated token
    assert a.usage.completion_tokens == b.usage.completion_tokens == 24
    for x, y in zip(a.choices[0].logprobs.content, b.choices[0].logprobs.content, strict=True):
        assert x.logprob == pytest.approx(y.logprob, abs=1e-2)
        assert [t.token for t in x.top_logprobs][:1] == [t.token for t in y.top_logprobs][:1]


def test_streamed_chat_matches(sharded: ShardedServer, single: LiveServer) -> None:
    stream = sharded.openai().chat.completions.create(model="tiny", messages=MESSAGES,
                                                      stream=True, **SEEDED)
    text = "".join(c.choices[0].delta.content or "" for c in stream if c.choices)
    assert text == _chat(single).choices[0].message.content


def test_json_schema_and_tool_call_match(sharded: ShardedServer, single: LiveServer) -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    fmt = {"type": "json_schema", "json_schema": {"name": "x", "schema": schema}}
    a = _chat(sharded, response_format=fmt, max_tokens=40)
    b = _chat(single, response_format=fmt, max_tokens=40)
    assert a.choices[0].message.content == b.choices[0].message.content
    if a.choices[0].finish_reason == "stop":
        assert isinstance(json.loads(a.choices[0].message.content)["n"], int)
    tool = {"type": "function", "function": {
        "name": "lookup", "parameters": {"type": "object", "properties": {
            "q": {"type": "string", "maxLength": 8}}, "required": ["q"]}}}
    choice = {"type": "function", "function": {"name": "lookup"}}
    a = _chat(sharded, tools=[tool], tool_choice=choice, max_tokens=40)
    b = _chat(single, tools=[tool], tool_choice=choice, max_tokens=40)
    calls_a, calls_b = a.choices[0].message.tool_calls, b.choices[0].message.tool_calls
    assert calls_a and calls_a[0].function.name == "lookup"
    assert calls_a[0].function.arguments == calls_b[0].function.arguments


def test_completions_match(sharded: ShardedServer, single: LiveServer) -> None:
    def complete(server: Any) -> str:
        return server.openai().completions.create(model="tiny", prompt="Once upon a time",
                                                  temperature=1.0, seed=3,
                                                  max_tokens=16).choices[0].text

    text = complete(sharded)
    assert text.strip() and text == complete(single)


def test_eight_concurrent_streams_complete(sharded: ShardedServer, single: LiveServer) -> None:
    prompts = [f"Story number {i}: the sea" for i in range(8)]
    results: dict[int, str] = {}

    def run(i: int) -> None:
        stream = sharded.openai().chat.completions.create(
            model="tiny", messages=[{"role": "user", "content": prompts[i]}], stream=True,
            temperature=1.0, seed=i, max_tokens=12 + i)
        results[i] = "".join(c.choices[0].delta.content or "" for c in stream if c.choices)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert sorted(results) == list(range(8))
    # batched on the sharded ranks, one at a time here: the same seeded text
    for i in (0, 7):
        alone = single.openai().chat.completions.create(
            model="tiny", messages=[{"role": "user", "content": prompts[i]}], temperature=1.0,
            seed=i, max_tokens=12 + i).choices[0].message.content
        assert results[i] == alone


def _running(server: ShardedServer) -> float:
    text = httpx.get(server.url + "/metrics", timeout=10).text
    for line in text.splitlines():
        if line.startswith("afm:num_requests_running "):
            return float(line.split()[1])
    raise AssertionError("no afm:num_requests_running in /metrics")


def test_cancelled_stream_frees_its_slot(sharded: ShardedServer, single: LiveServer) -> None:
    events: list[dict[str, Any]] = []
    with httpx.stream("POST", sharded.url + "/v1/chat/completions", timeout=60,
                      headers={"X-Request-ID": "sharded-cancel-1"}, json={
            "model": "tiny", "messages": MESSAGES, "stream": True, "max_tokens": 4000,
            "temperature": 1.0, "ignore_eos": True}) as response:
        for line in response.iter_lines():
            if line.startswith("data: {"):
                events.append(json.loads(line[6:]))
                if len(events) == 3:
                    cancel = httpx.post(sharded.url + "/v1/chat/completions/sharded-cancel-1"
                                        "/cancel", timeout=30)
                    assert cancel.status_code == 200
            elif line == "data: [DONE]":
                break
    finishes = [e["choices"][0]["finish_reason"] for e in events if e["choices"]]
    assert finishes[-1] == "cancelled"
    assert _running(sharded) == 0
    # both ranks dropped the row: the next requests still match one process
    assert _chat(sharded).choices[0].message.content == _chat(single).choices[0].message.content
    metrics = httpx.get(sharded.url + "/metrics", timeout=10).text
    assert "afm:world_size 2.0" in metrics


def _metric(server: ShardedServer, name: str) -> float:
    for line in httpx.get(server.url + "/metrics", timeout=10).text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    raise AssertionError(f"no {name} in /metrics")


def test_health_and_profile_show_the_group(sharded: ShardedServer) -> None:
    health = httpx.get(sharded.url + "/health", timeout=10)
    assert health.status_code == 200 and health.json()["status"] == "healthy"
    group = health.json()["sharding"]
    assert {k: group[k] for k in ("world_size", "rank", "backend", "mode", "status", "reason")
            } == {"world_size": 2, "rank": 0, "backend": "ring", "mode": "tensor",
                  "status": "serving", "reason": None}
    assert group["ranks"] == [
        {"rank": 0, "host": "127.0.0.1", "role": "http", "status": "ok"},
        {"rank": 1, "host": "127.0.0.1", "role": "worker", "status": "ok"}]
    assert group["plan_ops"] > 0 and group["plan_collective_seconds"] > 0
    reply = httpx.post(sharded.url + "/v1/chat/completions", timeout=60,
                       headers={"X-AFM-Profile": "true"},
                       json={"model": "tiny", "messages": MESSAGES, "max_tokens": 4}).json()
    profile = reply["afm_profile"]["sharding"]
    assert profile["world_size"] == 2 and profile["ranks"] == group["ranks"]
    assert profile["plan_ops"] > group["plan_ops"]  # this request's steps went through it
    # time inside the plan collectives is a part of the whole time spent sending plans
    inside = _metric(sharded, "afm:shard_collective_seconds_total")
    assert 0 < inside <= _metric(sharded, "afm:shard_op_seconds_total")


def test_killed_worker_rank_stops_rank_0(tmp_path: Path, tiny_model: Path) -> None:
    server = ShardedServer(tmp_path, ["--model", str(tiny_model)]).wait_healthy()
    try:
        got: dict[str, httpx.Response | Exception] = {}

        def non_streamed() -> None:
            try:
                got["reply"] = httpx.post(server.url + "/v1/chat/completions", timeout=60,
                                          json={"model": "tiny", "messages": MESSAGES,
                                                "max_tokens": 100000, "temperature": 1.0,
                                                "ignore_eos": True})
            except httpx.HTTPError as exc:  # reported by the assertions below
                got["reply"] = exc

        waiter = threading.Thread(target=non_streamed)
        waiter.start()
        eventually(lambda: _running(server) >= 1, 30, "the request runs", interval=0.1)
        assert _running(server) == 1  # in flight when the rank dies
        events: list[str] = []
        with httpx.stream("POST", server.url + "/v1/chat/completions", timeout=60, json={
                "model": "tiny", "messages": MESSAGES, "stream": True, "max_tokens": 100000,
                "temperature": 1.0, "ignore_eos": True}) as response:
            tic = 0.0
            for line in response.iter_lines():
                if line.startswith("data: "):
                    events.append(line)
                    if len(events) == 3:
                        server.rank1.kill()
                        tic = time.monotonic()
        took = time.monotonic() - tic
        # the ring fails the step at once, or the watchdog notices the hang once the decode
        # step of two rows is past its budget (STALL_SECONDS + 2 rows x 8 x TOKEN_SECONDS)
        assert took < STALL_SECONDS + 2 * 8 * TOKEN_SECONDS + 10, took
        assert any('"error"' in e for e in events[3:]), events[-3:]
        # the non-streamed request in flight: 503 as for new requests, not 500
        waiter.join(timeout=30)
        reply = got["reply"]
        assert isinstance(reply, httpx.Response), reply
        assert reply.status_code == 503, reply.text
        assert reply.headers["Retry-After"] == "10"
        assert reply.json()["error"]["type"] == "backend_unavailable"
        # until rank 0 exits (about a second): /health 503 and new requests 503, Retry-After
        health = httpx.get(server.url + "/health", timeout=5)
        assert health.status_code == 503 and health.headers["Retry-After"] == "10"
        body = health.json()
        assert body["status"] == "unavailable" and body["backend"]["available"] is False
        assert body["sharding"]["status"] == "failed"
        assert "the sharded group failed" in body["sharding"]["reason"]
        assert [r["status"] for r in body["sharding"]["ranks"]] == ["stopping", "unreachable"]
        refused = httpx.post(server.url + "/v1/chat/completions", timeout=5, json={
            "model": "tiny", "messages": MESSAGES, "max_tokens": 4})
        assert refused.status_code == 503 and refused.headers["Retry-After"] == "10"
        assert refused.json()["error"]["type"] == "backend_unavailable"
        assert server.rank0.wait(timeout=30) == 1
        assert "the sharded group failed" in (tmp_path / "rank0.log").read_text()
    finally:
        server.kill()


def test_killed_rank_0_ends_the_worker_rank(tmp_path: Path, tiny_model: Path) -> None:
    server = ShardedServer(tmp_path, ["--model", str(tiny_model)]).wait_healthy()
    try:
        server.rank0.kill()
        assert server.rank1.wait(timeout=60) == 1  # no orphan: the worker leaves on its own
        assert "worker rank failed" in (tmp_path / "rank1.log").read_text()
    finally:
        server.kill()


def _gauge(server: ShardedServer, name: str) -> float:
    for line in httpx.get(server.url + "/metrics", timeout=10).text.splitlines():
        if line.startswith(f"afm:{name} "):
            return float(line.split()[1])
    return 0.0


def test_sigterm_drains_rank_0_and_the_worker_follows(tmp_path: Path,
                                                      tiny_model: Path) -> None:
    from tests.test_shutdown import assert_shutdown_503, draining, eventually

    server = ShardedServer(tmp_path, ["--model", str(tiny_model), "--concurrent", "1",
                                      "--shutdown-timeout", "3"]).wait_healthy()
    try:
        queued: dict[str, httpx.Response] = {}

        def ask() -> None:
            queued["r"] = httpx.post(server.url + "/v1/chat/completions", timeout=60, json={
                "model": "tiny", "messages": MESSAGES, "max_tokens": 4})

        asker = threading.Thread(target=ask)
        events: list[str] = []
        with httpx.stream("POST", server.url + "/v1/chat/completions", timeout=60, json={
                "model": "tiny", "messages": MESSAGES, "stream": True, "max_tokens": 4000,
                "temperature": 1.0, "ignore_eos": True}) as response:
            for line in response.iter_lines():
                if not line.startswith("data: "):
                    continue
                events.append(line[6:])
                if len(events) == 3:  # running on both ranks, another request queued
                    asker.start()
                    eventually(lambda: _gauge(server, "num_requests_waiting") >= 1, 30,
                               "a second request queues")
                    server.rank0.send_signal(signal.SIGTERM)
                    health = eventually(lambda: draining(server), 10, "rank 0 drains")
                    assert health.json()["status"] == "draining"
        asker.join(30)
        assert events[-1] == "[DONE]"
        finishes = [json.loads(e)["choices"][0]["finish_reason"] for e in events[:-1]
                    if json.loads(e)["choices"]]
        assert finishes[-1] == "cancelled"  # 4000 tokens outlast the 3 s drain
        assert_shutdown_503(queued["r"])
        codes = [p.wait(timeout=30) for p in (server.rank0, server.rank1)]
        assert codes == [0, 0], f"exit codes {codes}\n{server.logs()}"
        for rank in (0, 1):
            assert "Traceback" not in (tmp_path / f"rank{rank}.log").read_text(), server.logs()
    finally:
        server.kill()
