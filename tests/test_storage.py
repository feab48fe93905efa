"""Durable Files/Batch storage on a real SQLite database in a temporary directory."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import pytest

from afm.storage import (
    OUTPUT_PURPOSE,
    UPLOAD_PURPOSES,
    Conflict,
    Missing,
    Rejected,
    Store,
    StoreInUse,
    error_record,
    output_record,
)

BATCH_KEYS = {
    "id", "object", "endpoint", "errors", "input_file_id", "completion_window", "status",
    "output_file_id", "error_file_id", "created_at", "in_progress_at", "expires_at",
    "finalizing_at", "completed_at", "failed_at", "expired_at", "cancelling_at", "cancelled_at",
    "request_counts", "metadata",
}


@pytest.fixture
def store(tmp_path: Path):
    with Store(tmp_path / "data") as s:
        yield s


def test_file_roundtrip_and_shape(store: Store) -> None:
    f = store.files.create("in.jsonl", "batch", b"hello\n")
    assert re.fullmatch(r"file-[0-9a-f]{24}", f["id"])
    assert f == {"id": f["id"], "object": "file", "bytes": 6, "created_at": f["created_at"],
                 "filename": "in.jsonl", "purpose": "batch", "status": "processed",
                 "expires_at": None}
    assert store.files.get(f["id"]) == f
    assert store.files.content(f["id"]) == b"hello\n"
    assert store.files.delete(f["id"]) == {"id": f["id"], "object": "file", "deleted": True}
    for call in (store.files.get, store.files.content, store.files.delete):
        with pytest.raises(Missing):
            call(f["id"])
    assert not any(store.blob_dir.iterdir())
    assert "batch" in UPLOAD_PURPOSES and OUTPUT_PURPOSE not in UPLOAD_PURPOSES


def test_files_survive_reopen(tmp_path: Path) -> None:
    with Store(tmp_path) as s:
        f = s.files.create("a.jsonl", "batch", b"x" * 1000)
    with Store(tmp_path) as s:
        assert s.files.get(f["id"]) == f
        assert s.files.content(f["id"]) == b"x" * 1000


def test_file_list_order_filter_pagination(store: Store) -> None:
    ids = [store.files.create(f"{i}.jsonl", "batch" if i % 2 else "batch_output", b"{}")["id"]
           for i in range(5)]
    items, more = store.files.list()
    assert [f["id"] for f in items] == ids[::-1] and not more
    items, more = store.files.list(limit=2)
    assert [f["id"] for f in items] == [ids[4], ids[3]] and more
    items, more = store.files.list(limit=2, after=ids[3])
    assert [f["id"] for f in items] == [ids[2], ids[1]] and more
    items, more = store.files.list(limit=2, after=ids[1])
    assert [f["id"] for f in items] == [ids[0]] and not more
    items, _ = store.files.list(order="asc", after=ids[1])
    assert [f["id"] for f in items] == ids[2:]
    items, _ = store.files.list(purpose="batch")
    assert [f["id"] for f in items] == [ids[3], ids[1]]
    with pytest.raises(Missing):
        store.files.list(after="file-unknown")
    with pytest.raises(Rejected):
        store.files.list(order="sideways")


def test_torn_and_orphan_blobs_are_collected_at_open(tmp_path: Path) -> None:
    with Store(tmp_path) as s:
        kept = s.files.create("keep.jsonl", "batch", b"keep")
        gone = s.files.create("gone.jsonl", "batch", b"gone")
        blob_dir = s.blob_dir
    # A crash mid-write leaves a temp file; a crash between rename and commit leaves a blob
    # with no row. Simulate both, plus a delete that committed but never unlinked.
    (blob_dir / ".tmp-file-0123-abcd").write_bytes(b"torn half of a fi")
    (blob_dir / "file-000000000000000000000000").write_bytes(b"never committed")
    db = sqlite3.connect(tmp_path / "afm.sqlite3")
    with db:
        db.execute("DELETE FROM files WHERE id = ?", (gone["id"],))
    db.close()
    with Store(tmp_path) as s:
        assert sorted(p.name for p in s.blob_dir.iterdir()) == [kept["id"]]
        assert s.files.content(kept["id"]) == b"keep"
        assert [f["id"] for f in s.files.list()[0]] == [kept["id"]]


def test_directory_lock(tmp_path: Path) -> None:
    with Store(tmp_path), pytest.raises(StoreInUse, match="in use"):
        Store(tmp_path)
    Store(tmp_path).close()  # released on close


def test_sqlite_is_wal_and_full_sync(store: Store) -> None:
    assert store.query("PRAGMA journal_mode")[0][0] == "wal"
    assert store.query("PRAGMA synchronous")[0][0] == 2  # FULL


def test_batch_create_shape_and_errors(store: Store) -> None:
    f = store.files.create("in.jsonl", "batch", b"{}\n")
    b = store.batches.create(f["id"], "/v1/chat/completions", "24h", {"job": "x"})
    assert set(b) == BATCH_KEYS
    assert re.fullmatch(r"batch_[0-9a-f]{24}", b["id"])
    assert b["object"] == "batch" and b["status"] == "validating" and b["errors"] is None
    assert b["expires_at"] == b["created_at"] + 24 * 3600
    assert b["request_counts"] == {"total": 0, "completed": 0, "failed": 0}
    assert b["metadata"] == {"job": "x"}
    assert all(b[k] is None for k in ("output_file_id", "error_file_id", "in_progress_at",
                                      "completed_at", "failed_at", "cancelled_at"))
    assert store.batches.get(b["id"]) == b
    with pytest.raises(Missing):
        store.batches.create("file-nope", "/v1/chat/completions")
    out = store.files.create("o.jsonl", "batch_output", b"{}\n")
    with pytest.raises(Rejected):
        store.batches.create(out["id"], "/v1/chat/completions")
    with pytest.raises(Rejected):
        store.batches.create(f["id"], "/v1/chat/completions", "1h")
    with pytest.raises(Missing):
        store.batches.get("batch_nope")


def test_batch_list_pagination(store: Store) -> None:
    f = store.files.create("in.jsonl", "batch", b"{}\n")
    ids = [store.batches.create(f["id"], "/v1/chat/completions")["id"] for _ in range(5)]
    items, more = store.batches.list(limit=2)
    assert [b["id"] for b in items] == [ids[4], ids[3]] and more
    items, more = store.batches.list(limit=2, after=ids[3])
    assert [b["id"] for b in items] == [ids[2], ids[1]] and more
    items, more = store.batches.list(limit=2, after=ids[1])
    assert [b["id"] for b in items] == [ids[0]] and not more
    items, more = store.batches.list()
    assert len(items) == 5 and not more
    with pytest.raises(Missing):
        store.batches.list(after="batch_nope")


def test_batch_state_machine_and_results(store: Store) -> None:
    f = store.files.create("in.jsonl", "batch", b"{}\n")
    bid = store.batches.create(f["id"], "/v1/chat/completions")["id"]
    reqs = [(1, "a", {"x": 1}), (2, "b", {"x": 2}), (4, "c", {"x": 3})]
    assert store.batches.record_result(bid, "a", True, {}) is False  # not started yet
    assert store.batches.start(bid, reqs)
    assert store.batches.start(bid, reqs) is False
    assert store.batches.get(bid)["request_counts"]["total"] == 3
    assert store.batches.pending(bid) == [("a", {"x": 1}), ("b", {"x": 2}), ("c", {"x": 3})]
    rec_b = error_record("b", "boom", "failed")
    assert store.batches.record_result(bid, "b", False, rec_b)
    assert store.batches.record_result(bid, "b", True, {}) is False  # never twice
    assert store.batches.record_result(bid, "zzz", True, {}) is False  # unknown custom_id
    rec_a = output_record("a", 200, "req_1", {"ok": True})
    assert store.batches.record_result(bid, "a", True, rec_a)
    assert [c for c, _ in store.batches.pending(bid)] == ["c"]
    assert store.batches.mark_finalizing(bid) and not store.batches.mark_finalizing(bid)
    with pytest.raises(Conflict):
        store.batches.cancel(bid)
    assert store.batches.finalize(bid, "completed")
    assert store.batches.finalize(bid, "completed") is False
    b = store.batches.get(bid)
    assert b["status"] == "completed" and b["completed_at"] is not None
    assert b["request_counts"] == {"total": 3, "completed": 1, "failed": 1}
    out = store.files.get(b["output_file_id"])
    assert out["purpose"] == "batch_output"
    assert [json.loads(x) for x in store.files.content(out["id"]).splitlines()] == [
        {"id": rec_a["id"], "custom_id": "a", "error": None,
         "response": {"status_code": 200, "request_id": "req_1", "body": {"ok": True}}}]
    assert b"boom" in store.files.content(b["error_file_id"])


def test_cancel_transitions(store: Store) -> None:
    f = store.files.create("in.jsonl", "batch", b"{}\n")
    bid = store.batches.create(f["id"], "/v1/chat/completions")["id"]
    b = store.batches.cancel(bid)
    assert b["status"] == "cancelling" and b["cancelling_at"] is not None
    assert store.batches.cancel(bid)["status"] == "cancelling"  # idempotent
    assert store.batches.start(bid, [(1, "a", {})]) is False  # cancel wins over validation
    assert store.batches.finalize(bid, "cancelled")
    b = store.batches.get(bid)
    assert b["status"] == "cancelled" and b["output_file_id"] is None
    assert store.batches.cancel(bid)["status"] == "cancelled"
    with pytest.raises(Missing):
        store.batches.cancel("batch_nope")
