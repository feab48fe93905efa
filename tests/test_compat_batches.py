"""Batch API against a real `afm serve`, through the official `openai` SDK: batches over chat,
completions and embeddings run to `completed` with one output line per custom_id, list pagination,
cancel with partial output kept, line-numbered validation failures, a SIGKILL in the middle of a
batch (resumed on restart, nothing lost or duplicated), batch priority below interactive traffic,
and `POST /v1/batch/completions` (one SSE stream, `batch.error` events, [DONE])."""

from __future__ import annotations

import io
import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import httpx
import openai
import pytest
from openai.types import Batch

from tests.conftest import LiveServer
from tests.test_compat_files import SERVER_FLAGS, assert_envelope, chat_line, jsonl
from tests.waiting import eventually

pytestmark = pytest.mark.slow

FINAL = ("completed", "failed", "cancelled", "expired")
SLOW_FLAGS = ("--concurrent", "1", "--batch-concurrency", "3")
"""One decode slot and three batch lanes: batch lines queue inside the engine, where an
interactive request (priority 0) must overtake them (priority 10)."""


@pytest.fixture(scope="module")
def batch_server(live_server: Callable[..., LiveServer]) -> LiveServer:
    return live_server(*SERVER_FLAGS)


@pytest.fixture(scope="module")
def sdk(batch_server: LiveServer) -> openai.OpenAI:
    return batch_server.openai()  # type: ignore[return-value]


@pytest.fixture(scope="module")
def slow_server(live_server: Callable[..., LiveServer]) -> LiveServer:
    return live_server(*SLOW_FLAGS)


def upload(sdk: openai.OpenAI, lines: list[dict] | bytes, name: str = "input.jsonl") -> str:
    content = lines if isinstance(lines, bytes) else jsonl(lines)
    return sdk.files.create(file=(name, io.BytesIO(content)), purpose="batch").id


def wait_for(sdk: openai.OpenAI, batch_id: str, until: Callable[[Batch], bool],
             timeout: float = 120.0) -> Batch:
    last: list[Batch] = []

    def reached() -> Batch | None:
        last[:] = [sdk.batches.retrieve(batch_id)]
        return last[0] if until(last[0]) else None

    return eventually(reached, timeout, f"batch {batch_id} moves on", interval=0.1,
                      detail=lambda: f"batch stuck: {last[0]}")


def finish(sdk: openai.OpenAI, batch_id: str, timeout: float = 120.0) -> Batch:
    return wait_for(sdk, batch_id, lambda b: b.status in FINAL, timeout)


def records(sdk: openai.OpenAI, file_id: str | None) -> list[dict]:
    if file_id is None:
        return []
    meta = sdk.files.retrieve(file_id)
    assert meta.purpose == "batch_output"
    text = sdk.files.content(file_id).text
    assert text.endswith("\n")
    return [json.loads(line) for line in text.splitlines()]


def slow_line(custom_id: str, max_tokens: int) -> dict:
    return chat_line(custom_id, f"story {custom_id}", max_tokens=max_tokens, ignore_eos=True)


# ---------------------------------------------------------------- happy paths


def test_chat_batch_completes_with_one_output_per_custom_id(sdk: openai.OpenAI) -> None:
    ids = [f"req-{i}" for i in range(6)]
    input_id = upload(sdk, [chat_line(cid, f"hello {cid}") for cid in ids])
    batch = sdk.batches.create(input_file_id=input_id, endpoint="/v1/chat/completions",
                               completion_window="24h", metadata={"job": "compat"})
    assert batch.id.startswith("batch_") and batch.object == "batch"
    assert batch.status in ("validating", "in_progress")
    assert batch.metadata == {"job": "compat"} and batch.input_file_id == input_id
    assert batch.expires_at == batch.created_at + 24 * 3600

    done = finish(sdk, batch.id)
    assert done.status == "completed", done
    assert done.request_counts.model_dump() == {"total": 6, "completed": 6, "failed": 0}
    assert done.errors is None and done.error_file_id is None and done.output_file_id
    assert done.created_at <= done.in_progress_at <= done.finalizing_at <= done.completed_at
    assert done.failed_at is None and done.cancelled_at is None and done.cancelling_at is None

    out = records(sdk, done.output_file_id)
    assert [r["custom_id"] for r in out] == ids  # one to one, in input order
    for r in out:
        assert r["id"].startswith("batch_req_") and r["error"] is None
        assert r["response"]["status_code"] == 200 and r["response"]["request_id"]
        body = r["response"]["body"]
        assert body["object"] == "chat.completion"
        assert body["choices"][0]["message"]["role"] == "assistant"
        assert body["usage"]["completion_tokens"] <= 4
    assert len({r["id"] for r in out}) == len(out)
    assert sdk.batches.retrieve(batch.id).model_dump() == done.model_dump()


def test_failed_lines_go_to_the_error_file(sdk: openai.OpenAI) -> None:
    lines = [chat_line("good-1"),
             chat_line("too-many-logprobs", logprobs=True, top_logprobs=50),
             chat_line("good-2"),
             chat_line("unknown-tool", tools=[{"type": "function", "function": {
                 "name": "f", "parameters": {"type": "object"}}}],
                 tool_choice={"type": "function", "function": {"name": "g"}})]
    batch = sdk.batches.create(input_file_id=upload(sdk, lines),
                               endpoint="/v1/chat/completions", completion_window="24h")
    done = finish(sdk, batch.id)
    assert done.status == "completed"  # line failures do not fail the batch
    assert done.request_counts.model_dump() == {"total": 4, "completed": 2, "failed": 2}
    out, err = records(sdk, done.output_file_id), records(sdk, done.error_file_id)
    assert [r["custom_id"] for r in out] == ["good-1", "good-2"]
    assert [r["custom_id"] for r in err] == ["too-many-logprobs", "unknown-tool"]
    for r in err:
        assert r["response"]["status_code"] == 400
        assert r["response"]["body"]["error"]["type"] == "invalid_request_error"
        assert r["error"]["message"]
    assert err[0]["response"]["body"]["error"]["param"] == "top_logprobs"


def test_completions_batch(sdk: openai.OpenAI) -> None:
    lines = [{"custom_id": f"c{i}", "method": "POST", "url": "/v1/completions",
              "body": {"prompt": f"Once upon {i}", "max_tokens": 3, "temperature": 0}}
             for i in range(3)]
    batch = sdk.batches.create(input_file_id=upload(sdk, lines), endpoint="/v1/completions",
                               completion_window="24h")
    done = finish(sdk, batch.id)
    assert done.status == "completed" and done.request_counts.completed == 3
    out = records(sdk, done.output_file_id)
    assert [r["custom_id"] for r in out] == ["c0", "c1", "c2"]
    assert all(r["response"]["body"]["object"] == "text_completion" for r in out)


def test_embeddings_batch(sdk: openai.OpenAI) -> None:
    lines = [{"custom_id": "e-one", "method": "POST", "url": "/v1/embeddings",
              "body": {"input": "hello"}},
             {"custom_id": "e-many", "method": "POST", "url": "/v1/embeddings",
              "body": {"input": ["a", "b"], "dimensions": 8}},
             {"custom_id": "e-unknown-model", "method": "POST", "url": "/v1/embeddings",
              "body": {"input": "x", "model": "no-such-embedder"}}]
    batch = sdk.batches.create(input_file_id=upload(sdk, lines), endpoint="/v1/embeddings",
                               completion_window="24h")
    done = finish(sdk, batch.id)
    assert done.status == "completed"
    assert done.request_counts.model_dump() == {"total": 3, "completed": 2, "failed": 1}
    out = {r["custom_id"]: r for r in records(sdk, done.output_file_id)}
    assert len(out["e-many"]["response"]["body"]["data"]) == 2
    assert len(out["e-many"]["response"]["body"]["data"][0]["embedding"]) == 8
    (err,) = records(sdk, done.error_file_id)
    assert err["custom_id"] == "e-unknown-model" and err["response"]["status_code"] == 404


def test_list_pagination(sdk: openai.OpenAI) -> None:
    input_id = upload(sdk, [chat_line("only")])
    ids = [sdk.batches.create(input_file_id=input_id, endpoint="/v1/chat/completions",
                              completion_window="24h").id for _ in range(3)]
    first = sdk.batches.list(limit=2)
    assert [b.id for b in first.data] == ids[::-1][:2] and first.has_more
    second = sdk.batches.list(limit=2, after=first.data[-1].id)
    assert second.data[0].id == ids[0]
    walked = [b.id for b in sdk.batches.list(limit=1)]  # SDK auto-pagination
    assert walked[:3] == ids[::-1] and len(walked) == len(set(walked))
    everything = sdk.batches.list(limit=100)
    assert not everything.has_more and len(everything.data) == len(walked)
    for batch_id in ids:
        finish(sdk, batch_id)


# ---------------------------------------------------------------- bad inputs


BAD_FILES: dict[str, tuple[bytes, list[tuple[int, str]]]] = {
    "not-json": (b'{"custom_id": "a"\n', [(1, "invalid_json_line")]),
    "not-an-object": (b"[1, 2]\n", [(1, "invalid_json_line")]),
    "duplicate-custom-id": (jsonl([chat_line("a"), chat_line("b"), chat_line("a")]),
                            [(3, "duplicate_custom_id")]),
    "wrong-url": (jsonl([chat_line("a"), {**chat_line("b"), "url": "/v1/embeddings"}]),
                  [(2, "invalid_url")]),
    "wrong-method": (jsonl([{**chat_line("a"), "method": "GET"}]), [(1, "invalid_method")]),
    "invalid-body": (jsonl([chat_line("a"), chat_line("b", temperature="hot"),
                            {**chat_line("c"), "body": {"messages": "nope"}}]),
                     [(2, "invalid_request"), (3, "invalid_request")]),
    "streaming-body": (jsonl([chat_line("a", stream=True)]), [(1, "invalid_request")]),
    "missing-custom-id": (jsonl([{k: v for k, v in chat_line("a").items() if k != "custom_id"}]),
                          [(1, "missing_required_parameter")]),
    "blank-lines-count": (b"\n" + jsonl([chat_line("a")]) + b"\nnope\n",
                          [(4, "invalid_json_line")]),
    "empty": (b"\n\n", [(None, "empty_file")]),  # type: ignore[list-item]
}


@pytest.mark.parametrize("name", list(BAD_FILES))
def test_bad_input_file_fails_with_line_numbered_errors(batch_server: LiveServer,
                                                        sdk: openai.OpenAI, name: str) -> None:
    content, expected = BAD_FILES[name]
    batch = sdk.batches.create(input_file_id=upload(sdk, content, f"{name}.jsonl"),
                               endpoint="/v1/chat/completions", completion_window="24h")
    done = finish(sdk, batch.id, timeout=30)
    assert done.status == "failed", done
    assert done.failed_at is not None and done.in_progress_at is None
    assert done.output_file_id is None and done.error_file_id is None
    assert done.request_counts.model_dump() == {"total": 0, "completed": 0, "failed": 0}
    assert done.errors is not None and done.errors.object == "list"
    got = [(e.line, e.code) for e in done.errors.data]
    assert got == expected
    assert all(e.message for e in done.errors.data)
    assert httpx.get(batch_server.url + "/health").status_code == 200


def test_create_errors(batch_server: LiveServer, sdk: openai.OpenAI) -> None:
    url = batch_server.url + "/v1/batches"
    good = {"endpoint": "/v1/chat/completions", "completion_window": "24h"}
    assert_envelope(httpx.post(url, json={**good, "input_file_id": "file-nope"}),
                    404, "not_found_error")
    with pytest.raises(openai.NotFoundError):
        sdk.batches.create(input_file_id="file-nope", endpoint="/v1/chat/completions",
                           completion_window="24h")
    input_id = upload(sdk, [chat_line("a")])
    for bad in ({"endpoint": "/v1/moderations"}, {"endpoint": "/v1/audio/speech"},
                {"completion_window": "1h"}, {"metadata": {"k": 1}}):
        assert_envelope(httpx.post(url, json={**good, "input_file_id": input_id, **bad}),
                        400, "invalid_request_error")
    # an output file (purpose batch_output) is not a batch input
    done = finish(sdk, sdk.batches.create(input_file_id=input_id, **good).id)  # type: ignore[arg-type]
    assert_envelope(httpx.post(url, json={**good, "input_file_id": done.output_file_id}),
                    400, "invalid_request_error")


def test_input_file_deleted_after_validation(sdk: openai.OpenAI) -> None:
    input_id = upload(sdk, [chat_line("a")])
    batch = sdk.batches.create(input_file_id=input_id, endpoint="/v1/chat/completions",
                               completion_window="24h")
    wait_for(sdk, batch.id, lambda b: b.status != "validating")  # its lines are stored now
    sdk.files.delete(input_id)
    done = finish(sdk, batch.id)
    assert done.status == "completed" and done.request_counts.completed == 1


def test_input_file_deleted_before_validation(tmp_path: Path, tiny_model: Path) -> None:
    """The file goes before the worker reads it: set up on disk (a batch still validating
    whose input file is deleted), then start a server on that data directory."""
    from afm.storage import Store

    with Store(tmp_path / "data") as store:
        file_id = store.files.create("input.jsonl", "batch", jsonl([chat_line("a")]))["id"]
        batch_id = store.batches.create(file_id, "/v1/chat/completions")["id"]
        store.files.delete(file_id)
    server = LiveServer(["--model", str(tiny_model)], tmp_path / "data", tmp_path / "log")
    try:
        done = finish(server.start().openai(), batch_id)  # type: ignore[arg-type]
    finally:
        server.stop()
    assert done.status == "failed" and done.request_counts.completed == 0
    assert done.errors is not None and done.errors.data[0].code == "invalid_file"


def test_unknown_batch_ids_are_404(batch_server: LiveServer, sdk: openai.OpenAI) -> None:
    for method, path in (("GET", "/v1/batches/batch_nope"),
                         ("POST", "/v1/batches/batch_nope/cancel"),
                         ("GET", "/v1/batches?after=batch_nope")):
        assert_envelope(httpx.request(method, batch_server.url + path), 404, "not_found_error")
    with pytest.raises(openai.NotFoundError):
        sdk.batches.retrieve("batch_nope")
    with pytest.raises(openai.NotFoundError):
        sdk.batches.cancel("batch_nope")


# ---------------------------------------------------------------- cancel and priority


def test_cancel_keeps_partial_output(slow_server: LiveServer) -> None:
    sdk: openai.OpenAI = slow_server.openai()  # type: ignore[assignment]
    ids = [f"s{i}" for i in range(30)]
    batch = sdk.batches.create(input_file_id=upload(sdk, [slow_line(c, 256) for c in ids]),
                               endpoint="/v1/chat/completions", completion_window="24h")
    wait_for(sdk, batch.id, lambda b: b.request_counts.completed >= 2)
    cancelling = sdk.batches.cancel(batch.id)
    assert cancelling.status in ("cancelling", "cancelled"), cancelling
    assert cancelling.cancelling_at is not None
    done = finish(sdk, batch.id, timeout=60)
    assert done.status == "cancelled" and done.cancelled_at is not None
    assert done.completed_at is None and done.cancelling_at <= done.cancelled_at
    counts = done.request_counts
    assert counts.total == 30 and 2 <= counts.completed < 30
    # interrupted lines are not recorded; the finished ones stay in the output file
    assert counts.failed == 0 and done.error_file_id is None
    out = [r["custom_id"] for r in records(sdk, done.output_file_id)]
    assert len(out) == len(set(out)) == counts.completed and set(out) <= set(ids)
    # cancelling again, or a finished batch, returns it unchanged
    assert sdk.batches.cancel(batch.id).status == "cancelled"
    # cancelled straight after creation (still validating, or just started)
    early = sdk.batches.create(input_file_id=upload(sdk, [slow_line("e", 1024)]),
                               endpoint="/v1/chat/completions", completion_window="24h")
    assert sdk.batches.cancel(early.id).status in ("cancelling", "cancelled")
    early_done = finish(sdk, early.id, timeout=60)
    assert early_done.status == "cancelled" and early_done.request_counts.completed == 0
    assert early_done.output_file_id is None and early_done.error_file_id is None
    assert httpx.get(slow_server.url + "/health").status_code == 200


def test_batch_lines_yield_to_interactive_requests(slow_server: LiveServer) -> None:
    """One decode slot, three batch lines in flight (one decoding, two queued at priority 10):
    an interactive request (priority 0) waits for the decoding line only, not the queued ones."""
    sdk: openai.OpenAI = slow_server.openai()  # type: ignore[assignment]
    lines = [slow_line(f"p{i}", 160) for i in range(20)]
    batch = sdk.batches.create(input_file_id=upload(sdk, lines),
                               endpoint="/v1/chat/completions", completion_window="24h")
    try:
        wait_for(sdk, batch.id, lambda b: b.request_counts.completed >= 1)
        r = httpx.post(slow_server.url + "/v1/chat/completions", timeout=60, json={
            "messages": [{"role": "user", "content": "interactive"}], "max_tokens": 160,
            "ignore_eos": True})
        assert r.status_code == 200, r.text
    finally:
        sdk.batches.cancel(batch.id)
        done = finish(sdk, batch.id, timeout=60)
    decode = sorted(rec["response"]["body"]["usage"]["completion_time"]
                    for rec in records(sdk, done.output_file_id))
    # measured against the batch lines' own decode times on this machine, not a clock limit:
    # FIFO would queue it behind the rest of the decoding line and two whole queued lines
    # (>= 2 line decodes); by priority it waits for the decoding line's rest only (< 1)
    assert r.json()["usage"]["queue_time"] < 2 * decode[len(decode) // 2], decode
    assert done.request_counts.completed < 20


# ---------------------------------------------------------------- crash and resume


def test_sigkill_mid_batch_resumes_without_loss(tmp_path: Path, tiny_model: Path) -> None:
    server = LiveServer(["--model", str(tiny_model), "--concurrent", "2",
                         "--batch-concurrency", "2"], tmp_path / "data", tmp_path / "server.log")
    server.start()
    try:
        sdk: openai.OpenAI = server.openai()  # type: ignore[assignment]
        keep = bytes(range(256)) * 64
        keep_id = sdk.files.create(file=("keep.bin", io.BytesIO(keep)), purpose="batch").id
        ids = [f"crash-{i:02d}" for i in range(50)]
        content = jsonl([slow_line(cid, 192) for cid in ids])
        input_id = upload(sdk, content)
        batch = sdk.batches.create(input_file_id=input_id, endpoint="/v1/chat/completions",
                                   completion_window="24h")
        at_kill = wait_for(sdk, batch.id, lambda b: b.request_counts.completed >= 4)
        # created just before the crash: killed while validating or queued behind the first
        late = sdk.batches.create(input_file_id=upload(sdk, [chat_line(f"late-{i}")
                                                             for i in range(3)]),
                                  endpoint="/v1/chat/completions", completion_window="24h")
        server.kill()
        assert at_kill.status == "in_progress" and at_kill.request_counts.completed < 50, \
            "the batch finished before the kill; raise max_tokens"

        server.start()
        resumed = sdk.batches.retrieve(batch.id)
        assert resumed.status in ("in_progress", "finalizing", "completed")
        assert resumed.request_counts.completed >= at_kill.request_counts.completed
        assert sdk.files.content(keep_id).content == keep
        assert sdk.files.content(input_id).content == content
        assert {keep_id, input_id} <= {f.id for f in sdk.files.list()}

        # a second interruption, graceful this time: in-flight lines are dropped and rerun
        mid = wait_for(sdk, batch.id, lambda b: b.request_counts.completed
                       >= resumed.request_counts.completed + 4 or b.status != "in_progress")
        server.stop()
        assert "Application shutdown complete" in server.log_tail(5), server.log_tail()
        server.start()
        assert sdk.batches.retrieve(batch.id).request_counts.completed \
            >= mid.request_counts.completed

        done = finish(sdk, batch.id, timeout=300)
        assert done.status == "completed", done
        assert done.in_progress_at == at_kill.in_progress_at
        counts = done.request_counts
        assert counts.total == 50 and counts.completed + counts.failed == 50
        out, err = records(sdk, done.output_file_id), records(sdk, done.error_file_id)
        seen = Counter(r["custom_id"] for r in out + err)
        assert seen == Counter(ids), seen  # every custom_id exactly once across both files
        assert len(out) == counts.completed and len(err) == counts.failed
        assert all(r["response"]["body"]["usage"]["completion_tokens"] == 192 for r in out)
        assert [r["custom_id"] for r in out] == sorted(r["custom_id"] for r in out)
        late_done = finish(sdk, late.id)
        assert late_done.status == "completed" and late_done.request_counts.completed == 3
        assert [r["custom_id"] for r in records(sdk, late_done.output_file_id)] == \
            ["late-0", "late-1", "late-2"]
    finally:
        server.stop()


# ---------------------------------------------------------------- multiplexed completions


def sse_events(r: httpx.Response) -> list[dict | str]:
    events: list[dict | str] = []
    for line in r.iter_lines():
        if line.startswith("data: "):
            data = line[len("data: "):]
            events.append(data if data == "[DONE]" else json.loads(data))
    return events


def test_batch_completions_multiplexed_sse(batch_server: LiveServer) -> None:
    msgs = [{"role": "user", "content": "hi"}]
    requests = [{"custom_id": f"ok-{i}", "body": {"messages": msgs, "max_tokens": 4}}
                for i in range(4)]
    requests.insert(1, {"custom_id": "bad-logprobs", "body": {
        "messages": msgs, "max_tokens": 4, "logprobs": True, "top_logprobs": 99}})
    requests.append({"custom_id": "bad-tool", "body": {
        "messages": msgs, "max_tokens": 4,
        "tools": [{"type": "function", "function": {"name": "f", "parameters": {}}}],
        "tool_choice": {"type": "function", "function": {"name": "missing"}}}})
    with httpx.stream("POST", batch_server.url + "/v1/batch/completions",
                      json={"requests": requests}, timeout=60) as r:
        assert r.status_code == 200
        assert r.headers["content-type"].startswith("text/event-stream")
        events = sse_events(r)
    assert events[-1] == "[DONE]" and "[DONE]" not in events[:-1]
    body = [e for e in events[:-1] if isinstance(e, dict)]
    assert all(e["custom_id"] for e in body)
    errors = {e["custom_id"]: e for e in body if e["object"] == "batch.error"}
    assert set(errors) == {"bad-logprobs", "bad-tool"}
    assert errors["bad-logprobs"]["status_code"] == 400
    assert errors["bad-logprobs"]["error"]["param"] == "top_logprobs"
    assert errors["bad-tool"]["error"]["type"] == "invalid_request_error"
    chunks = [e for e in body if e["object"] == "chat.completion.chunk"]
    assert {e["custom_id"] for e in chunks} == {f"ok-{i}" for i in range(4)}
    finished = [e["custom_id"] for e in chunks if e["choices"][0]["finish_reason"]]
    assert sorted(finished) == [f"ok-{i}" for i in range(4)]  # each finishes exactly once
    for e in chunks:
        assert e["id"].startswith("chatcmpl-")
    assert httpx.get(batch_server.url + "/health").status_code == 200


def test_batch_completions_limits(batch_server: LiveServer) -> None:
    url = batch_server.url + "/v1/batch/completions"
    one = {"body": {"messages": [{"role": "user", "content": "x"}], "max_tokens": 1}}
    r = httpx.post(url, json={"requests": [{"custom_id": str(i), **one} for i in range(65)]})
    assert_envelope(r, 400, "invalid_request_error")
    assert_envelope(httpx.post(url, json={"requests": []}), 400, "invalid_request_error")
    r = httpx.post(url, json={"requests": [{"custom_id": "a", **one}, {"custom_id": "a", **one}]})
    assert_envelope(r, 400, "invalid_request_error")
    with httpx.stream("POST", url, timeout=60, json={
            "requests": [{"custom_id": str(i), **one} for i in range(64)]}) as r:
        assert r.status_code == 200
        events = sse_events(r)
    assert events[-1] == "[DONE]" and len(events) == 65


def test_capacity_pressure_does_not_fail_lines(live_server: Callable[..., LiveServer]) -> None:
    """A line that waits past --queue-timeout for a slot (503 server_busy for interactive
    callers) is retried, not written to the error file."""
    server = live_server("--concurrent", "1", "--batch-concurrency", "2", "--queue-timeout", "0.2")
    sdk: openai.OpenAI = server.openai()  # type: ignore[assignment]
    ids = ["busy-0", "busy-1", "busy-2", "busy-3"]
    batch = sdk.batches.create(input_file_id=upload(sdk, [slow_line(c, 400) for c in ids]),
                               endpoint="/v1/chat/completions", completion_window="24h")
    done = finish(sdk, batch.id)
    assert done.status == "completed"
    assert done.request_counts.model_dump() == {"total": 4, "completed": 4, "failed": 0}, \
        records(sdk, done.error_file_id)[:1]
    assert [r["custom_id"] for r in records(sdk, done.output_file_id)] == ids
    assert "found the server busy; retrying" in server.log_path.read_text()  # it did happen


def test_windows_saved_file_is_accepted(sdk: openai.OpenAI) -> None:
    """A UTF-8 byte order mark and CRLF line ends, as Windows editors save JSONL."""
    content = b"\xef\xbb\xbf" + jsonl([chat_line("w1"), chat_line("w2")]).replace(b"\n", b"\r\n")
    batch = sdk.batches.create(input_file_id=upload(sdk, content),
                               endpoint="/v1/chat/completions", completion_window="24h")
    done = finish(sdk, batch.id)
    assert done.status == "completed", done.errors
    assert [r["custom_id"] for r in records(sdk, done.output_file_id)] == ["w1", "w2"]
