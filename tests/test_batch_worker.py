"""The batch worker and batch file validation, on a real SQLite store in a temporary directory.

``execute`` here is a fake: it stands in for the inference engine, which is wired in later by the
HTTP layer. It echoes the request, or fails for chosen inputs.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from afm.batch_validation import validate_batch_file
from afm.batch_worker import BatchWorker
from afm.storage import Store
from tests.waiting import eventually_async

EP = "/v1/chat/completions"
REPO = Path(__file__).resolve().parents[1]


def no_body_errors(endpoint: str, body: dict[str, Any]) -> list[str]:
    """Stand-in for the OpenAPI body validator: requires a list of messages."""
    return [] if isinstance(body.get("messages"), list) else ["'messages' is required"]


def line(custom_id: str, text: str = "hi", **over: Any) -> dict[str, Any]:
    req = {"custom_id": custom_id, "method": "POST", "url": EP,
           "body": {"model": "m", "messages": [{"role": "user", "content": text}]}}
    return {**req, **over}


def jsonl(*objs: Any) -> bytes:
    return b"".join(json.dumps(o).encode() + b"\n" for o in objs)


async def fake_execute(endpoint: str, body: dict[str, Any], request_id: str
                       ) -> tuple[int, dict[str, Any]]:
    """Fake engine: 'bad' -> 400, 'boom' -> exception, else an echo completion."""
    await asyncio.sleep(0)
    text = body["messages"][0]["content"]
    if text == "bad":
        return 400, {"error": {"message": "nope", "type": "invalid_request_error",
                               "code": "bad_thing"}}
    if text == "boom":
        raise RuntimeError("engine exploded")
    return 200, {"object": "chat.completion", "echo": text, "request_id": request_id}


def read_jsonl(store: Store, file_id: str | None) -> list[dict[str, Any]]:
    if file_id is None:
        return []
    return [json.loads(x) for x in store.files.content(file_id).decode().splitlines()]


async def run_batch(store: Store, content: bytes, execute=fake_execute) -> dict[str, Any]:
    f = store.files.create("in.jsonl", "batch", content)
    b = store.batches.create(f["id"], EP)
    worker = BatchWorker(store, execute, no_body_errors, concurrency=2)
    await worker.start()
    try:
        worker.wake()
        await worker.wait_idle(timeout=30)
    finally:
        await worker.stop()
    return store.batches.get(b["id"])


@pytest.fixture
def store(tmp_path: Path):
    with Store(tmp_path / "data") as s:
        yield s


async def test_full_lifecycle(store: Store) -> None:
    content = jsonl(line("r1", "one"), line("r2", "bad"), line("r3", "three"),
                    line("r4", "boom"), line("r5", "five"))
    b = await run_batch(store, content)
    assert b["status"] == "completed" and b["errors"] is None
    assert b["request_counts"] == {"total": 5, "completed": 3, "failed": 2}
    assert b["created_at"] <= b["in_progress_at"] <= b["finalizing_at"] <= b["completed_at"]
    out, err = read_jsonl(store, b["output_file_id"]), read_jsonl(store, b["error_file_id"])
    assert [o["custom_id"] for o in out] == ["r1", "r3", "r5"]
    for o in out:
        assert o["id"].startswith("batch_req_") and o["error"] is None
        assert o["response"]["status_code"] == 200
        assert o["response"]["request_id"] == o["response"]["body"]["request_id"]
    assert out[0]["response"]["body"]["echo"] == "one"
    assert [e["custom_id"] for e in err] == ["r2", "r4"]
    assert err[0]["response"]["status_code"] == 400
    assert err[0]["error"] == {"code": "bad_thing", "message": "nope"}
    assert err[1]["response"] is None and err[1]["error"]["code"] == "internal_error"
    assert "engine exploded" in err[1]["error"]["message"]
    for fid in (b["output_file_id"], b["error_file_id"]):
        assert store.files.get(fid)["purpose"] == "batch_output"


async def test_all_ok_has_no_error_file(store: Store) -> None:
    b = await run_batch(store, jsonl(line("a"), line("b")))
    assert b["status"] == "completed" and b["error_file_id"] is None
    assert len(read_jsonl(store, b["output_file_id"])) == 2


BAD_FILES = {
    "not_json": (b'{"custom_id": "a"\n', "invalid_json_line", 1),
    "not_object": (b"[1, 2]\n", "invalid_json_line", 1),
    "duplicate": (jsonl(line("a"), line("b"), line("a")), "duplicate_custom_id", 3),
    "wrong_url": (jsonl(line("a"), line("b", url="/v1/embeddings")), "invalid_url", 2),
    "wrong_method": (jsonl(line("a", method="GET")), "invalid_method", 1),
    "invalid_body": (jsonl(line("a"), line("b", body={"model": "m"})), "invalid_request", 2),
    "body_not_object": (jsonl(line("a", body="text")), "invalid_request", 1),
    "stream": (jsonl(line("a", body={"messages": [], "stream": True})), "invalid_request", 1),
    "no_custom_id": (jsonl({"method": "POST", "url": EP, "body": {"messages": []}}),
                     "missing_required_parameter", 1),
    "empty": (b"", "empty_file", None),
    "blank_lines": (b"\n\n  \n", "empty_file", None),
}


@pytest.mark.parametrize("name", list(BAD_FILES))
async def test_bad_files_fail_with_line_numbers(store: Store, name: str) -> None:
    content, code, line_no = BAD_FILES[name]
    b = await run_batch(store, content)
    assert b["status"] == "failed" and b["failed_at"] is not None
    assert b["output_file_id"] is None and b["in_progress_at"] is None
    assert b["errors"]["object"] == "list"
    errors = b["errors"]["data"]
    assert {"code": code, "line": line_no} in [{"code": e["code"], "line": e["line"]}
                                               for e in errors]
    assert all(set(e) == {"code", "message", "param", "line"} for e in errors)


def test_validation_reports_every_bad_line() -> None:
    content = jsonl(line("a"), line("b", method="PUT"), line("c")) + b"oops\n" + jsonl(line("a"))
    lines, errors = validate_batch_file(content, EP, no_body_errors)
    assert [ln["custom_id"] for ln in lines] == ["a", "c"]
    assert [ln["line"] for ln in lines] == [1, 3]
    assert [(e["line"], e["code"], e["param"]) for e in errors] == [
        (2, "invalid_method", "method"), (4, "invalid_json_line", None),
        (5, "duplicate_custom_id", "custom_id")]


async def test_cancel_midway(store: Store) -> None:
    release = asyncio.Event()
    started: list[str] = []

    async def slow_execute(endpoint: str, body: dict[str, Any], request_id: str):
        started.append(body["messages"][0]["content"])
        if len(started) > 3:
            await release.wait()  # blocks until cancelled
        return 200, {"echo": body["messages"][0]["content"]}

    f = store.files.create("in.jsonl", "batch", jsonl(*(line(f"c{i}", str(i)) for i in range(10))))
    bid = store.batches.create(f["id"], EP)["id"]
    worker = BatchWorker(store, slow_execute, no_body_errors, concurrency=2)
    await worker.start()
    try:
        worker.wake()
        await eventually_async(lambda: store.batches.get(bid)["request_counts"]["completed"]
                               >= 3, 20, "three lines completed")
        assert store.batches.cancel(bid)["status"] == "cancelling"
        worker.wake()
        await worker.wait_idle(timeout=20)
    finally:
        await worker.stop()
    b = store.batches.get(bid)
    assert b["status"] == "cancelled" and b["cancelled_at"] >= b["cancelling_at"]
    assert b["request_counts"] == {"total": 10, "completed": 3, "failed": 0}
    out = read_jsonl(store, b["output_file_id"])
    assert [o["custom_id"] for o in out] == ["c0", "c1", "c2"]
    assert b["error_file_id"] is None
    assert len(started) < 10  # the rest never ran


async def test_stop_and_resume_in_process(tmp_path: Path) -> None:
    calls: list[str] = []
    gate = asyncio.Event()

    async def gated(endpoint: str, body: dict[str, Any], request_id: str):
        cid = body["messages"][0]["content"]
        if len(calls) >= 4:
            await gate.wait()
        calls.append(cid)
        return 200, {"echo": cid}

    with Store(tmp_path) as s:
        f = s.files.create("in.jsonl", "batch", jsonl(*(line(f"c{i}", f"c{i}") for i in range(8))))
        bid = s.batches.create(f["id"], EP)["id"]
        w = BatchWorker(s, gated, no_body_errors)
        await w.start()
        w.wake()
        await eventually_async(lambda: s.batches.get(bid)["request_counts"]["completed"]
                               >= 4, 20, "four lines completed")
        await w.stop()  # in-flight lines are cancelled, unrecorded
    gate.set()
    with Store(tmp_path) as s:
        first = list(calls)
        w = BatchWorker(s, gated, no_body_errors)
        await w.start()
        await w.wait_idle(timeout=20)
        await w.stop()
        b = s.batches.get(bid)
        assert b["status"] == "completed"
        ids = [o["custom_id"] for o in read_jsonl(s, b["output_file_id"])]
        assert ids == [f"c{i}" for i in range(8)]
        assert set(calls[len(first):]).isdisjoint(first)


async def test_expired_batch(tmp_path: Path) -> None:
    now = [1_000_000.0]
    with Store(tmp_path, clock=lambda: now[0]) as s:
        f = s.files.create("in.jsonl", "batch", jsonl(line("a"), line("b")))
        bid = s.batches.create(f["id"], EP)["id"]
        assert s.batches.start(bid, [(1, "a", line("a")["body"]), (2, "b", line("b")["body"])])
        assert s.batches.record_result(bid, "a", True, {"custom_id": "a"})
        now[0] += 24 * 3600
        w = BatchWorker(s, fake_execute, no_body_errors)
        await w.start()
        await w.wait_idle(timeout=20)
        await w.stop()
        b = s.batches.get(bid)
        assert b["status"] == "expired" and b["expired_at"] == int(now[0])
        assert [o["custom_id"] for o in read_jsonl(s, b["output_file_id"])] == ["a"]
        err = read_jsonl(s, b["error_file_id"])
        assert [(e["custom_id"], e["error"]["code"]) for e in err] == [("b", "batch_expired")]


CHILD = textwrap.dedent("""
    import asyncio, sys
    from afm.batch_worker import BatchWorker
    from afm.storage import Store

    async def execute(endpoint, body, request_id):
        await asyncio.sleep(0.08)
        n = int(body["messages"][0]["content"])
        if n % 7 == 0:
            return 429, {"error": {"message": "busy", "type": "server_busy"}}
        return 200, {"n": n}

    async def main():
        store = Store(sys.argv[1])
        worker = BatchWorker(store, execute, lambda endpoint, body: [], concurrency=2)
        await worker.start()
        await asyncio.Event().wait()

    asyncio.run(main())
""")


def recorded_ids(data: Path, bid: str) -> set[str]:
    db = sqlite3.connect(data / "afm.sqlite3")
    try:
        rows = db.execute("SELECT custom_id FROM batch_results WHERE batch_id = ?", (bid,))
        return {r[0] for r in rows}
    finally:
        db.close()


async def test_crash_restart_every_custom_id_exactly_once(tmp_path: Path) -> None:
    data = tmp_path / "data"
    all_ids = [f"id-{i}" for i in range(50)]
    with Store(data) as s:
        f = s.files.create("in.jsonl", "batch",
                           jsonl(*(line(cid, str(i)) for i, cid in enumerate(all_ids))))
        bid = s.batches.create(f["id"], EP)["id"]
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen([sys.executable, str(script), str(data)], env=env)
    try:
        def progressed() -> bool:
            if len(recorded_ids(data, bid)) >= 10:
                return True
            assert proc.poll() is None, "worker process died"
            return False

        await eventually_async(progressed, 60, "the worker records ten lines", interval=0.02)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    before = recorded_ids(data, bid)
    assert 10 <= len(before) < 50, "the crash should land mid-batch"

    rerun: list[str] = []

    async def execute(endpoint: str, body: dict[str, Any], request_id: str):
        n = int(body["messages"][0]["content"])
        rerun.append(all_ids[n])
        return (429, {"error": {"message": "busy"}}) if n % 7 == 0 else (200, {"n": n})

    with Store(data) as s:
        assert s.batches.get(bid)["status"] == "in_progress"
        w = BatchWorker(s, execute, no_body_errors)
        await w.start()
        await w.wait_idle(timeout=60)
        await w.stop()
        b = s.batches.get(bid)
        assert b["status"] == "completed"
        out, err = read_jsonl(s, b["output_file_id"]), read_jsonl(s, b["error_file_id"])
    seen = [r["custom_id"] for r in out + err]
    assert sorted(seen) == sorted(all_ids)  # each exactly once
    assert sorted(rerun) == sorted(set(all_ids) - before)  # recorded lines never rerun
    assert {r["custom_id"] for r in err} == {all_ids[i] for i in range(0, 50, 7)}
    assert b["request_counts"] == {"total": 50, "completed": len(out), "failed": len(err)}
