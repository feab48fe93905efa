"""Stopping a real `afm serve` under load (issue 36): SIGTERM drains. Running generations
finish up to `--shutdown-timeout`, then end as cancelled with their streams' terminal events;
queued and new requests get 503 `shutting_down` in the route's envelope; `/health` answers 503
`draining`; the process exits 0 with no 500 and no traceback; a restart serves what was stored.
A second signal exits at once."""

from __future__ import annotations

import contextlib
import io
import json
import re
import signal
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anthropic
import httpx
import openai
import pytest

from tests.conftest import LiveServer
from tests.contract_support import component, schema_errors
from tests.waiting import eventually

pytestmark = pytest.mark.slow

MSG = [{"role": "user", "content": "tell me a long story"}]
LONG = 4000  # tokens: seconds of generation on the tiny model, more than a 3 s drain allows


def gauge(server: LiveServer, name: str) -> float:
    text = httpx.get(server.url + "/metrics", timeout=5).text
    match = re.search(rf"^afm:{name} (\S+)$", text, re.M)
    return float(match.group(1)) if match else 0.0


def health(server: LiveServer) -> httpx.Response | None:
    try:
        return httpx.get(server.url + "/health", timeout=5)
    except httpx.HTTPError:
        return None


def draining(server: LiveServer) -> httpx.Response | None:
    r = health(server)
    return r if r is not None and r.status_code == 503 else None


def sse_data(lines: Iterator[str]) -> Iterator[str]:
    for line in lines:
        if line.startswith("data: "):
            yield line[6:]


def assert_clean_exit(server: LiveServer, signalled_at: float, within: float) -> None:
    """Exit code 0 within ``within`` seconds of the signal; no 500, no traceback logged."""
    assert server.proc is not None
    eventually(lambda: server.proc.poll() is not None, within, "the server exits")
    took = time.monotonic() - signalled_at
    log = server.log_path.read_text(errors="replace")
    assert server.proc.returncode == 0, log[-4000:]
    assert took < within, took
    assert "Traceback" not in log, log[-4000:]
    assert "graceful shutdown exceeded" not in log
    assert not re.search(r"afm\.access: \S+ \S+ 500 ", log), log[-4000:]


def assert_shutdown_503(r: httpx.Response, anthropic_route: bool = False) -> None:
    assert r.status_code == 503, r.text
    assert r.headers["retry-after"] == "5"
    assert r.headers["x-request-id"]
    body = r.json()
    if anthropic_route:
        assert body["type"] == "error" and body["error"]["type"] == "overloaded_error", body
        assert "shutting down" in body["error"]["message"]
    else:
        assert body["error"]["type"] == "server_busy", body
        assert body["error"]["code"] == "shutting_down", body
        assert "shutting down" in body["error"]["message"]
        assert body["error"]["request_id"] == r.headers["x-request-id"]


def _start(tmp_path: Path, model: Path, *flags: str) -> LiveServer:
    return LiveServer(["--model", str(model), *flags], tmp_path / "data",
                      tmp_path / "server.log").start()


# ---------------------------------------------------------------- one stream, watched closely


def _open_stream(server: LiveServer, max_tokens: int) -> tuple[Any, Iterator[str]]:
    """A chat stream with its first chunk read (the request is running)."""
    cm = httpx.stream("POST", server.url + "/v1/chat/completions", timeout=120, json={
        "messages": MSG, "max_tokens": max_tokens, "ignore_eos": True, "stream": True})
    r = cm.__enter__()
    assert r.status_code == 200
    data = sse_data(r.iter_lines())
    assert json.loads(next(data))["choices"][0]["delta"]["role"] == "assistant"
    return cm, data


def test_running_stream_finishes_while_health_says_draining(tmp_path: Path,
                                                            tiny_model: Path) -> None:
    server = _start(tmp_path, tiny_model, "--concurrent", "1", "--shutdown-timeout", "120")
    try:
        schema = component("Health")  # loaded before the signal: the checks below are quick
        cm, data = _open_stream(server, LONG)
        assert server.proc is not None
        server.proc.send_signal(signal.SIGTERM)
        signalled = time.monotonic()
        # the stream (seconds of generation) is not read meanwhile: the drain waits for it
        r = eventually(lambda: draining(server), 30, "/health answers 503")
        body = r.json()
        assert body["status"] == "draining" and r.headers["retry-after"] == "5", body
        assert_shutdown_503(httpx.post(server.url + "/v1/chat/completions", timeout=10,
                                       json={"messages": MSG, "max_tokens": 2}))
        assert_shutdown_503(httpx.post(server.url + "/v1/messages", timeout=10, json={
            "model": "m", "max_tokens": 2, "messages": MSG}), anthropic_route=True)
        assert httpx.get(server.url + "/v1/models", timeout=10).status_code == 200  # reads
        assert not schema_errors(schema, body)
        rest = list(data)
        cm.__exit__(None, None, None)
        assert rest[-1] == "[DONE]"
        chunks = [json.loads(d) for d in rest[:-1]]
        finishes = [c["choices"][0]["finish_reason"] for c in chunks if c["choices"]]
        assert finishes[-1] == "length"  # it ran to its end: the drain let it finish
        assert chunks[-1]["usage"]["completion_tokens"] == LONG
        assert_clean_exit(server, signalled, 60)
    finally:
        server.kill()


def test_second_signal_exits_at_once(tmp_path: Path, tiny_model: Path) -> None:
    server = _start(tmp_path, tiny_model, "--concurrent", "1", "--shutdown-timeout", "120")
    try:
        cm, data = _open_stream(server, LONG)

        def read() -> None:
            with contextlib.suppress(httpx.HTTPError):  # the connection drops at the exit
                list(data)

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        assert server.proc is not None
        server.proc.send_signal(signal.SIGTERM)
        eventually(lambda: draining(server), 30, "the server drains")
        assert server.proc.poll() is None  # the stream still runs: the drain waits for it
        server.proc.send_signal(signal.SIGTERM)
        second = time.monotonic()
        eventually(lambda: server.proc.poll() is not None, 5, "exit after a second signal")
        assert time.monotonic() - second < 5
        assert server.proc.returncode == 0
        log = server.log_path.read_text(errors="replace")
        assert "SIGTERM again: exiting at once" in log
        assert "Traceback" not in log, log[-4000:]
        reader.join(10)
        cm.__exit__(None, None, None)
    finally:
        server.kill()


# ---------------------------------------------------------------- background responses


def test_background_response_ends_cancelled_across_a_restart(tmp_path: Path,
                                                             tiny_model: Path) -> None:
    """A background response running at SIGTERM is stored `cancelled` (the server's state
    owns the runs and ends them at the stop); after a restart on the same data directory it
    reads back in that terminal state, never `in_progress`."""
    server = _start(tmp_path, tiny_model, "--shutdown-timeout", "1")
    try:
        sdk: openai.OpenAI = server.openai(timeout=60)  # type: ignore[assignment]
        running = sdk.responses.create(model="m", input="tell me a long story", background=True,
                                       max_output_tokens=LONG, temperature=0)
        assert running.status == "queued"
        eventually(lambda: sdk.responses.retrieve(running.id).status == "in_progress", 60,
                   "the background response runs")
        assert server.proc is not None
        server.proc.send_signal(signal.SIGTERM)
        assert_clean_exit(server, time.monotonic(), 30)
        server.start()
        after = httpx.get(f"{server.url}/v1/responses/{running.id}", timeout=10).json()
        assert after["status"] == "cancelled" and after["error"] is None, after
        assert not schema_errors(component("ResponseObject"), after)
    finally:
        server.kill()


# ---------------------------------------------------------------- every surface under load


class Calls:
    """Client calls on threads, each outcome recorded by name."""

    def __init__(self) -> None:
        self.results: dict[str, Any] = {}
        self.threads: list[threading.Thread] = []

    def run(self, name: str, fn: Callable[[], Any]) -> None:
        def target() -> None:
            try:
                self.results[name] = fn()
            except Exception as exc:  # noqa: BLE001 - the test asserts on it
                self.results[name] = exc

        thread = threading.Thread(target=target, name=name, daemon=True)
        thread.start()
        self.threads.append(thread)

    def join(self, timeout: float) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        for thread in self.threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        alive = [t.name for t in self.threads if t.is_alive()]
        assert not alive, f"clients still waiting: {alive}"
        return self.results


def _stream(server: LiveServer, path: str, body: dict[str, Any],
            named: bool = False) -> tuple[int, list[Any]]:
    """Status and events of a streamed request (the error body when it is refused)."""
    with httpx.stream("POST", server.url + path, json={**body, "stream": True},
                      timeout=120) as r:
        if r.status_code != 200:
            r.read()
            return r.status_code, [r]
        out: list[Any] = []
        for data in sse_data(r.iter_lines()):
            out.append(data if data == "[DONE]" else json.loads(data))
        return 200, out


def _batch(sdk: openai.OpenAI, name: str, lines: int, max_tokens: int) -> str:
    content = "".join(json.dumps({
        "custom_id": f"{name}-{i}", "method": "POST", "url": "/v1/chat/completions",
        "body": {"messages": MSG, "max_tokens": max_tokens, "ignore_eos": True}}) + "\n"
        for i in range(lines)).encode()
    file_id = sdk.files.create(file=(f"{name}.jsonl", io.BytesIO(content)),
                               purpose="batch").id
    return sdk.batches.create(input_file_id=file_id, endpoint="/v1/chat/completions",
                              completion_window="24h").id


def _batch_lines(sdk: openai.OpenAI, file_id: str | None) -> list[dict[str, Any]]:
    if file_id is None:
        return []
    return [json.loads(line) for line in sdk.files.content(file_id).text.splitlines() if line]


def test_sigterm_under_load_on_every_surface(tmp_path: Path, tiny_model: Path) -> None:
    timeout = 3.0
    server = _start(tmp_path, tiny_model, "--concurrent", "6", "--shutdown-timeout",
                    str(timeout), "--batch-concurrency", "2")
    try:
        _under_load(server, timeout)
    finally:
        server.kill()


def _under_load(server: LiveServer, timeout: float) -> None:
    # closed at the end: a pooled connection to the stopped server would otherwise be left to
    # the garbage collector (an unclosed-socket warning in whichever test runs then)
    sdk: openai.OpenAI = server.openai(timeout=120)  # type: ignore[assignment]
    claude = anthropic.Anthropic(base_url=server.url, api_key="unused", max_retries=0,
                                 timeout=120)
    with sdk, claude:
        _stop_and_restart_under_load(server, timeout, sdk, claude)


def _stop_and_restart_under_load(server: LiveServer, timeout: float, sdk: openai.OpenAI,
                                 claude: anthropic.Anthropic) -> None:
    # stored before the stop: a response and a finished batch, read back after the restart
    stored = sdk.responses.create(model="m", input="hello", max_output_tokens=8)
    done_batch = _batch(sdk, "done", 2, 4)
    eventually(lambda: sdk.batches.retrieve(done_batch).status == "completed", 120,
               "the first batch completes")
    before = {"response": sdk.responses.retrieve(stored.id).model_dump(),
              "batch": sdk.batches.retrieve(done_batch).model_dump()}
    before["output"] = sdk.files.content(before["batch"]["output_file_id"]).text

    calls = Calls()
    # six running: every slot
    calls.run("chat_stream", lambda: _stream(server, "/v1/chat/completions", {
        "messages": MSG, "max_tokens": LONG, "ignore_eos": True}))
    calls.run("completion", lambda: sdk.completions.create(
        model="m", prompt="Once upon a time", max_tokens=LONG,
        extra_body={"ignore_eos": True}))
    # (greedy: the tiny model repeats one token and never ends early; these take no ignore_eos)
    calls.run("responses_stream", lambda: _stream(server, "/v1/responses", {
        "input": "tell me a long story", "max_output_tokens": LONG, "temperature": 0}))
    calls.run("messages_stream", lambda: _stream(server, "/v1/messages", {
        "model": "m", "max_tokens": LONG, "messages": MSG, "temperature": 0}))
    running_bg = sdk.responses.create(model="m", input="tell me a long story",
                                      max_output_tokens=LONG, temperature=0, background=True)
    calls.run("chat", lambda: sdk.chat.completions.create(
        model="m", messages=MSG, max_tokens=LONG, extra_body={"ignore_eos": True}))  # type: ignore[arg-type]
    eventually(lambda: gauge(server, "num_requests_running") >= 6, 60, "six requests run")

    # queued behind them: one per surface, a background response and two batch lines
    pending_batch = _batch(sdk, "pending", 3, 16)
    calls.run("queued_chat", lambda: sdk.chat.completions.create(
        model="m", messages=MSG, max_tokens=4))  # type: ignore[arg-type]
    calls.run("queued_completion_stream", lambda: _stream(server, "/v1/completions", {
        "prompt": "hi", "max_tokens": 4}))
    calls.run("queued_response", lambda: sdk.responses.create(
        model="m", input="hi", max_output_tokens=4))
    calls.run("queued_message", lambda: claude.messages.create(
        model="m", max_tokens=4, messages=MSG))  # type: ignore[arg-type]
    queued_bg = sdk.responses.create(model="m", input="hi", max_output_tokens=4,
                                     background=True)
    eventually(lambda: gauge(server, "num_requests_waiting") >= 7, 60,
               "five requests and two batch lines queue")

    assert server.proc is not None
    server.proc.send_signal(signal.SIGTERM)
    signalled = time.monotonic()
    eventually(lambda: draining(server), 10, "/health says draining")
    assert_shutdown_503(httpx.post(server.url + "/v1/chat/completions", timeout=10,
                                   json={"messages": MSG, "max_tokens": 2}))
    assert_shutdown_503(httpx.post(server.url + "/v1/messages", timeout=10, json={
        "model": "m", "max_tokens": 2, "messages": MSG}), anthropic_route=True)
    assert httpx.get(f"{server.url}/v1/responses/{stored.id}", timeout=10).status_code == 200
    results = calls.join(timeout + 30)
    assert_clean_exit(server, signalled, timeout + 15)

    # running: finished or cancelled, streams closed by their terminal events
    status, events = results["chat_stream"]
    assert status == 200 and events[-1] == "[DONE]"
    finishes = [e["choices"][0]["finish_reason"] for e in events[:-1] if e["choices"]]
    assert finishes[-1] == "cancelled", finishes[-3:]
    completion = results["completion"]
    assert completion.choices[0].finish_reason == "cancelled", completion
    assert completion.usage.completion_tokens < LONG
    chat = results["chat"]
    assert chat.choices[0].finish_reason == "cancelled", chat
    status, events = results["responses_stream"]
    assert status == 200 and events[-1] == "[DONE]"
    final = events[-2]
    # cut at the deadline: `cancelled`, in the project's terminal event for it
    assert final["type"] == "response.completed", final
    assert final["response"]["status"] == "cancelled", final
    streamed_id = final["response"]["id"]
    status, events = results["messages_stream"]
    assert status == 200 and events[-1]["type"] == "message_stop", events[-3:]
    assert not [e for e in events if e["type"] == "error"]

    # queued: the shutdown 503, in the route's envelope
    for name in ("queued_chat", "queued_response"):
        exc = results[name]
        assert isinstance(exc, openai.APIStatusError), (name, exc)
        assert_shutdown_503(exc.response)
    exc = results["queued_message"]
    assert isinstance(exc, anthropic.APIStatusError), exc
    assert_shutdown_503(exc.response, anthropic_route=True)
    status, (refused,) = results["queued_completion_stream"]
    assert_shutdown_503(refused)

    # restart on the same data directory: what was stored is served unchanged
    server.start()
    assert sdk.responses.retrieve(stored.id).model_dump() == before["response"]
    assert sdk.batches.retrieve(done_batch).model_dump() == before["batch"]
    assert sdk.files.content(before["batch"]["output_file_id"]).text == before["output"]
    assert sdk.responses.retrieve(streamed_id).status == final["response"]["status"]
    assert sdk.responses.retrieve(queued_bg.id).status == "cancelled"
    assert sdk.responses.retrieve(running_bg.id).status == "cancelled"
    # the pending batch resumes: every line once, none failed by the stop
    eventually(lambda: sdk.batches.retrieve(pending_batch).status == "completed", 120,
               "the pending batch completes after the restart")
    batch = sdk.batches.retrieve(pending_batch)
    lines = _batch_lines(sdk, batch.output_file_id)
    assert sorted(line["custom_id"] for line in lines) == [f"pending-{i}" for i in range(3)]
    assert _batch_lines(sdk, batch.error_file_id) == []
    server.stop()
