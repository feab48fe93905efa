"""Durable storage for the Files, Batch and Responses APIs: SQLite metadata plus file blobs.

Layout of a data directory::

    afm.sqlite3 (+ -wal, -shm)   metadata: files, batches, batch requests, per-line results,
                                 stored responses (object, input items, continuation)
    files/<file-id>              one blob per file, written temp -> fsync -> rename -> fsync dir
    lock                         flock held while a Store is open (one process per directory)

Crash safety. A blob is made durable (fsync of the file and of its directory) *before* the
transaction that inserts its row commits, so a committed row always has its bytes; a blob whose
row never committed (crash in between) and any leftover ``.tmp-*`` file are removed at open.
Deleting a file commits the row deletion first and unlinks after, so a crash leaves at worst an
orphan blob, again collected at open. Every state change is one SQLite transaction.

SQLite runs in WAL mode with ``synchronous=FULL``: with WAL, NORMAL is already safe against an
application crash but may roll back the last transactions on power loss or an OS crash, and this
store promises callers (HTTP 200 for an upload, a recorded batch line) that what it acknowledged
survives. FULL costs one WAL fsync per commit, which is small next to the inference work that
produces each commit. ``fullfsync`` is turned on too, for macOS, where plain fsync does not reach
the disk.

Thread safety: one connection, guarded by a lock, so methods may be called from the event loop
and from worker threads (``asyncio.to_thread``). Methods block for a disk write at most; the
batch finalization (which writes whole output files) is meant to be called from a thread.

Errors are the stores' own (:mod:`serving.store`: Missing, Conflict, Rejected, StoreInUse),
with no HTTP status or request parameter; the serving operations and handlers map them to API
errors.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import secrets
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from serving.store import Conflict, Missing, Rejected, StoreInUse

UPLOAD_PURPOSES: frozenset[str] = frozenset({"batch"})
"""Purposes a client may upload with; the HTTP layer rejects the others."""
OUTPUT_PURPOSE = "batch_output"
COMPLETION_WINDOWS: dict[str, int] = {"24h": 24 * 3600}
"""Valid completion windows and their length in seconds."""

BATCH_STATUSES = (
    "validating", "failed", "in_progress", "finalizing",
    "completed", "expired", "cancelling", "cancelled",
)
UNFINISHED = ("validating", "in_progress", "finalizing", "cancelling")
TERMINAL = ("failed", "completed", "expired", "cancelled")

_SCHEMA_VERSION = 1
_SCHEMA = """
CREATE TABLE IF NOT EXISTS files (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    filename TEXT NOT NULL,
    purpose TEXT NOT NULL,
    bytes INTEGER NOT NULL,
    created_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS batches (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    endpoint TEXT NOT NULL,
    input_file_id TEXT NOT NULL,
    completion_window TEXT NOT NULL,
    status TEXT NOT NULL,
    errors TEXT,
    output_file_id TEXT,
    error_file_id TEXT,
    created_at INTEGER NOT NULL,
    in_progress_at INTEGER,
    expires_at INTEGER,
    finalizing_at INTEGER,
    completed_at INTEGER,
    failed_at INTEGER,
    expired_at INTEGER,
    cancelling_at INTEGER,
    cancelled_at INTEGER,
    total INTEGER NOT NULL DEFAULT 0,
    metadata TEXT
);
CREATE INDEX IF NOT EXISTS batches_status ON batches(status);
CREATE TABLE IF NOT EXISTS batch_requests (
    batch_id TEXT NOT NULL,
    custom_id TEXT NOT NULL,
    line INTEGER NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (batch_id, custom_id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS batch_results (
    batch_id TEXT NOT NULL,
    custom_id TEXT NOT NULL,
    line INTEGER NOT NULL,
    ok INTEGER NOT NULL,
    record TEXT NOT NULL,
    PRIMARY KEY (batch_id, custom_id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS responses (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    status TEXT NOT NULL,
    background INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL,
    object TEXT NOT NULL,
    input_items TEXT NOT NULL,
    turn TEXT
);
CREATE INDEX IF NOT EXISTS responses_status ON responses(status);
"""


def new_id(prefix: str) -> str:
    """An id made of ``prefix`` and 24 lowercase hex characters."""
    return prefix + secrets.token_hex(12)


def _fsync(fd: int) -> None:
    """fsync that reaches the disk on macOS too (F_FULLFSYNC), falling back to fsync."""
    if hasattr(fcntl, "F_FULLFSYNC"):
        with contextlib.suppress(OSError):
            fcntl.fcntl(fd, fcntl.F_FULLFSYNC)
            return
    os.fsync(fd)


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        _fsync(fd)
    finally:
        os.close(fd)


class Store:
    """One open data directory. Use ``store.files``, ``store.batches`` and
    ``store.responses``."""

    def __init__(self, data_dir: str | os.PathLike[str], *,
                 clock: Callable[[], float] = time.time) -> None:
        self.root = Path(data_dir)
        self.blob_dir = self.root / "files"
        self.blob_dir.mkdir(parents=True, exist_ok=True)
        self.clock = clock
        self._lock_fd = os.open(self.root / "lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(self._lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            os.close(self._lock_fd)
            raise StoreInUse(f"data directory {self.root} is in use by another process") from exc
        self._mutex = threading.RLock()
        self._db = sqlite3.connect(self.root / "afm.sqlite3", isolation_level=None,
                                   check_same_thread=False)
        self._db.row_factory = sqlite3.Row
        for pragma in ("journal_mode=WAL", "synchronous=FULL", "fullfsync=ON",
                       "checkpoint_fullfsync=ON", "foreign_keys=ON", "busy_timeout=5000"):
            self._db.execute(f"PRAGMA {pragma}")
        self._db.executescript(_SCHEMA)
        self._db.execute(f"PRAGMA user_version={_SCHEMA_VERSION}")
        self._collect_garbage()
        self.files = FileStore(self)
        self.batches = BatchStore(self)
        self.responses = ResponseStore(self)

    def close(self) -> None:
        """Close the database and release the directory lock."""
        with self._mutex:
            self._db.close()
            os.close(self._lock_fd)

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def now(self) -> int:
        return int(self.clock())

    @contextlib.contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction (BEGIN IMMEDIATE ... COMMIT, rolled back on any exception)."""
        with self._mutex:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
                self._db.execute("COMMIT")
            except BaseException:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise

    def query(self, sql: str, args: tuple[Any, ...] = ()) -> list[sqlite3.Row]:
        with self._mutex:
            return self._db.execute(sql, args).fetchall()

    # blobs

    def blob_path(self, file_id: str) -> Path:
        return self.blob_dir / file_id

    def write_blob(self, file_id: str, content: bytes) -> None:
        """Durably write a blob: temp file, fsync, rename, fsync directory."""
        tmp = self.blob_dir / f".tmp-{file_id}-{secrets.token_hex(4)}"
        try:
            with open(tmp, "wb") as fh:
                fh.write(content)
                fh.flush()
                _fsync(fh.fileno())
            os.replace(tmp, self.blob_path(file_id))
        except BaseException:
            with contextlib.suppress(OSError):
                tmp.unlink()
            raise
        _fsync_dir(self.blob_dir)

    def remove_blob(self, file_id: str) -> None:
        with contextlib.suppress(FileNotFoundError):
            self.blob_path(file_id).unlink()

    def _collect_garbage(self) -> None:
        """Remove temp files and blobs whose row never committed (or was deleted)."""
        known = {row["id"] for row in self.query("SELECT id FROM files")}
        removed = False
        for entry in self.blob_dir.iterdir():
            if not entry.is_file() or entry.is_symlink():
                continue
            if entry.name.startswith(".tmp-") or entry.name not in known:
                with contextlib.suppress(FileNotFoundError):
                    entry.unlink()
                    removed = True
        if removed:
            _fsync_dir(self.blob_dir)


def _file_object(row: sqlite3.Row) -> dict[str, Any]:
    return {
        "id": row["id"], "object": "file", "bytes": row["bytes"],
        "created_at": row["created_at"], "filename": row["filename"],
        "purpose": row["purpose"], "status": "processed", "expires_at": None,
    }


def _page(rows: list[sqlite3.Row], limit: int) -> tuple[list[sqlite3.Row], bool]:
    return rows[:limit], len(rows) > limit


class FileStore:
    """Files: uploaded batch inputs and batch outputs, in the OpenAI File object shape."""

    def __init__(self, store: Store) -> None:
        self._s = store

    def create(self, filename: str, purpose: str, content: bytes) -> dict[str, Any]:
        """Store ``content`` durably and return the File object. The caller checks ``purpose``."""
        file_id = new_id("file-")
        self._s.write_blob(file_id, content)
        try:
            with self._s.transaction() as db:
                db.execute(
                    "INSERT INTO files (id, filename, purpose, bytes, created_at)"
                    " VALUES (?, ?, ?, ?, ?)",
                    (file_id, filename, purpose, len(content), self._s.now()))
        except BaseException:
            self._s.remove_blob(file_id)
            raise
        return self.get(file_id)

    def get(self, file_id: str) -> dict[str, Any]:
        rows = self._s.query("SELECT * FROM files WHERE id = ?", (file_id,))
        if not rows:
            raise Missing("file", file_id)
        return _file_object(rows[0])

    def list(self, purpose: str | None = None, limit: int = 10000, after: str | None = None,
             order: str = "desc") -> tuple[list[dict[str, Any]], bool]:
        """Files, newest first by default; returns ``(items, has_more)``.

        ``after`` is the id of the last file of the previous page (Missing if unknown);
        ``order`` is "desc" or "asc" by creation.
        """
        if order not in ("asc", "desc"):
            raise Rejected("order must be 'asc' or 'desc'")
        where, args = [], []
        if purpose is not None:
            where.append("purpose = ?")
            args.append(purpose)
        if after is not None:
            rows = self._s.query("SELECT seq FROM files WHERE id = ?", (after,))
            if not rows:
                raise Missing("file", after)
            where.append("seq < ?" if order == "desc" else "seq > ?")
            args.append(rows[0]["seq"])
        sql = "SELECT * FROM files"
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += f" ORDER BY seq {order.upper()} LIMIT ?"
        rows, more = _page(self._s.query(sql, (*args, max(limit, 0) + 1)), limit)
        return [_file_object(r) for r in rows], more

    def content(self, file_id: str) -> bytes:
        self.get(file_id)
        try:
            return self._s.blob_path(file_id).read_bytes()
        except FileNotFoundError as exc:  # deleted concurrently
            raise Missing("file", file_id) from exc

    def delete(self, file_id: str) -> dict[str, Any]:
        with self._s.transaction() as db:
            if db.execute("DELETE FROM files WHERE id = ?", (file_id,)).rowcount == 0:
                raise Missing("file", file_id)
        self._s.remove_blob(file_id)
        return {"id": file_id, "object": "file", "deleted": True}


_COUNTS_SQL = (
    "SELECT batch_id, SUM(ok) AS completed, SUM(1 - ok) AS failed FROM batch_results"
    " WHERE batch_id IN ({}) GROUP BY batch_id"
)
_TIMESTAMPS = ("created_at", "in_progress_at", "expires_at", "finalizing_at", "completed_at",
               "failed_at", "expired_at", "cancelling_at", "cancelled_at")


class BatchStore:
    """Batches, their validated requests and per-line results.

    The public part (create/get/list/cancel) is what the HTTP handlers call; the rest is the
    batch worker's, and every transition there is conditional on the current status, so a
    racing cancel is never overwritten.
    """

    def __init__(self, store: Store) -> None:
        self._s = store

    # public API

    def create(self, input_file_id: str, endpoint: str, completion_window: str = "24h",
               metadata: dict[str, str] | None = None) -> dict[str, Any]:
        """Create a batch in ``validating``. Missing for an unknown input file, Rejected
        when the file's purpose is not "batch" or the window is unknown."""
        if completion_window not in COMPLETION_WINDOWS:
            raise Rejected(f"Unsupported completion_window: {completion_window!r}")
        batch_id = new_id("batch_")
        now = self._s.now()
        with self._s.transaction() as db:
            row = db.execute("SELECT purpose FROM files WHERE id = ?", (input_file_id,)).fetchone()
            if row is None:
                raise Missing("file", input_file_id)
            if row["purpose"] != "batch":
                raise Rejected(f"File {input_file_id} has purpose {row['purpose']!r},"
                                     " expected 'batch'")
            db.execute(
                "INSERT INTO batches (id, endpoint, input_file_id, completion_window, status,"
                " created_at, expires_at, metadata) VALUES (?, ?, ?, ?, 'validating', ?, ?, ?)",
                (batch_id, endpoint, input_file_id, completion_window, now,
                 now + COMPLETION_WINDOWS[completion_window],
                 None if metadata is None else json.dumps(metadata)))
        return self.get(batch_id)

    def get(self, batch_id: str) -> dict[str, Any]:
        rows = self._s.query("SELECT * FROM batches WHERE id = ?", (batch_id,))
        if not rows:
            raise Missing("batch", batch_id)
        return self._objects(rows)[0]

    def list(self, limit: int = 20, after: str | None = None) -> tuple[list[dict[str, Any]], bool]:
        """Batches newest first; ``after`` is the last id of the previous page.
        Returns ``(items, has_more)``."""
        args: tuple[Any, ...] = ()
        sql = "SELECT * FROM batches"
        if after is not None:
            rows = self._s.query("SELECT seq FROM batches WHERE id = ?", (after,))
            if not rows:
                raise Missing("batch", after)
            sql += " WHERE seq < ?"
            args = (rows[0]["seq"],)
        rows, more = _page(self._s.query(sql + " ORDER BY seq DESC LIMIT ?",
                                         (*args, max(limit, 0) + 1)), limit)
        return self._objects(rows), more

    def cancel(self, batch_id: str) -> dict[str, Any]:
        """validating/in_progress -> cancelling (the worker then finishes it as cancelled).
        Idempotent for cancelling/cancelled; Conflict for any other status."""
        with self._s.transaction() as db:
            row = db.execute("SELECT status FROM batches WHERE id = ?", (batch_id,)).fetchone()
            if row is None:
                raise Missing("batch", batch_id)
            if row["status"] in ("validating", "in_progress"):
                db.execute("UPDATE batches SET status = 'cancelling', cancelling_at = ?"
                           " WHERE id = ?", (self._s.now(), batch_id))
            elif row["status"] not in ("cancelling", "cancelled"):
                raise Conflict(f"Cannot cancel a batch with status {row['status']!r}",
                               key=batch_id, status=row["status"])
        return self.get(batch_id)

    # worker API

    def unfinished(self) -> list[dict[str, Any]]:
        """Batches in validating/in_progress/finalizing/cancelling, oldest first."""
        marks = ",".join("?" * len(UNFINISHED))
        return self._objects(self._s.query(
            f"SELECT * FROM batches WHERE status IN ({marks}) ORDER BY seq", UNFINISHED))

    def fail(self, batch_id: str, errors: list[dict[str, Any]]) -> bool:
        """validating -> failed with ``errors``; False if the status had moved on."""
        return self._transition(batch_id, ("validating",), "failed",
                                errors=json.dumps({"object": "list", "data": errors}))

    def start(self, batch_id: str, requests: list[tuple[int, str, dict[str, Any]]]) -> bool:
        """Record the validated ``(line, custom_id, body)`` requests and move validating ->
        in_progress, in one transaction; False if the status had moved on (e.g. cancelling)."""
        with self._s.transaction() as db:
            if not self._status_in(db, batch_id, ("validating",)):
                return False
            db.executemany(
                "INSERT INTO batch_requests (batch_id, custom_id, line, body) VALUES (?, ?, ?, ?)",
                [(batch_id, cid, line, json.dumps(body)) for line, cid, body in requests])
            db.execute("UPDATE batches SET status = 'in_progress', in_progress_at = ?, total = ?"
                       " WHERE id = ?", (self._s.now(), len(requests), batch_id))
        return True

    def pending(self, batch_id: str) -> list[tuple[str, dict[str, Any]]]:
        """``(custom_id, body)`` of requests without a recorded result, in file order."""
        rows = self._s.query(
            "SELECT q.custom_id, q.body FROM batch_requests q LEFT JOIN batch_results r"
            " ON r.batch_id = q.batch_id AND r.custom_id = q.custom_id"
            " WHERE q.batch_id = ? AND r.custom_id IS NULL ORDER BY q.line", (batch_id,))
        return [(r["custom_id"], json.loads(r["body"])) for r in rows]

    def record_result(self, batch_id: str, custom_id: str, ok: bool,
                      record: dict[str, Any]) -> bool:
        """Durably record one line's output (``ok``) or error record. Accepted only while the
        batch is in_progress or cancelling and only once per custom_id; returns whether stored.
        Raises TypeError/ValueError if ``record`` is not JSON-serializable."""
        text = json.dumps(record, ensure_ascii=False, allow_nan=False)
        with self._s.transaction() as db:
            cur = db.execute(
                "INSERT OR IGNORE INTO batch_results (batch_id, custom_id, line, ok, record)"
                " SELECT q.batch_id, q.custom_id, q.line, ?, ? FROM batch_requests q"
                " JOIN batches b ON b.id = q.batch_id"
                " WHERE q.batch_id = ? AND q.custom_id = ?"
                " AND b.status IN ('in_progress', 'cancelling')",
                (int(ok), text, batch_id, custom_id))
            return cur.rowcount == 1

    def mark_finalizing(self, batch_id: str) -> bool:
        """in_progress -> finalizing; False if the status had moved on."""
        return self._transition(batch_id, ("in_progress",), "finalizing")

    def finalize(self, batch_id: str, status: str) -> bool:
        """Write the output/error files from the recorded results and move the batch to
        ``status`` in one transaction: completed (from finalizing), cancelled (from cancelling)
        or expired (from validating/in_progress/cancelling; unfinished requests get a
        ``batch_expired`` error line). Files are only written when they have lines.
        Returns False (writing nothing) if the batch was not in an allowed status."""
        allowed = {"completed": ("finalizing",), "cancelled": ("cancelling",),
                   "expired": ("validating", "in_progress", "cancelling")}[status]
        written: list[str] = []
        try:
            with self._s.transaction() as db:
                if not self._status_in(db, batch_id, allowed):
                    return False
                if status == "expired":
                    for custom_id, _ in self.pending(batch_id):
                        db.execute(
                            "INSERT INTO batch_results (batch_id, custom_id, line, ok, record)"
                            " SELECT batch_id, custom_id, line, 0, ? FROM batch_requests"
                            " WHERE batch_id = ? AND custom_id = ?",
                            (json.dumps(error_record(custom_id, "batch_expired",
                                                     "This request could not be executed before"
                                                     " the completion window expired.")),
                             batch_id, custom_id))
                rows = db.execute("SELECT ok, record FROM batch_results WHERE batch_id = ?"
                                  " ORDER BY line", (batch_id,)).fetchall()
                ids: dict[str, str | None] = {}
                now = self._s.now()
                for column, ok, name in (("output_file_id", 1, "output"),
                                         ("error_file_id", 0, "errors")):
                    lines = [r["record"] for r in rows if r["ok"] == ok]
                    ids[column] = None
                    if lines:
                        content = ("\n".join(lines) + "\n").encode()
                        file_id = new_id("file-")
                        self._s.write_blob(file_id, content)
                        written.append(file_id)
                        db.execute(
                            "INSERT INTO files (id, filename, purpose, bytes, created_at)"
                            " VALUES (?, ?, ?, ?, ?)",
                            (file_id, f"batch_{batch_id}_{name}.jsonl", OUTPUT_PURPOSE,
                             len(content), now))
                        ids[column] = file_id
                db.execute(f"UPDATE batches SET status = ?, {status}_at = ?, output_file_id = ?,"
                           " error_file_id = ? WHERE id = ?",
                           (status, now, ids["output_file_id"], ids["error_file_id"], batch_id))
        except BaseException:
            for file_id in written:
                self._s.remove_blob(file_id)
            raise
        return True

    # helpers

    def _status_in(self, db: sqlite3.Connection, batch_id: str, statuses: tuple[str, ...]) -> bool:
        row = db.execute("SELECT status FROM batches WHERE id = ?", (batch_id,)).fetchone()
        if row is None:
            raise Missing("batch", batch_id)
        return row["status"] in statuses

    def _transition(self, batch_id: str, from_statuses: tuple[str, ...], to: str,
                    errors: str | None = None) -> bool:
        with self._s.transaction() as db:
            if not self._status_in(db, batch_id, from_statuses):
                return False
            db.execute(f"UPDATE batches SET status = ?, {to}_at = ?,"
                       " errors = COALESCE(?, errors) WHERE id = ?",
                       (to, self._s.now(), errors, batch_id))
        return True

    def _objects(self, rows: list[sqlite3.Row]) -> list[dict[str, Any]]:
        if not rows:
            return []
        ids = [r["id"] for r in rows]
        counts = {c["batch_id"]: c for c in self._s.query(
            _COUNTS_SQL.format(",".join("?" * len(ids))), tuple(ids))}
        out = []
        for r in rows:
            c = counts.get(r["id"])
            out.append({
                "id": r["id"], "object": "batch", "endpoint": r["endpoint"],
                "errors": json.loads(r["errors"]) if r["errors"] else None,
                "input_file_id": r["input_file_id"],
                "completion_window": r["completion_window"], "status": r["status"],
                "output_file_id": r["output_file_id"], "error_file_id": r["error_file_id"],
                **{k: r[k] for k in _TIMESTAMPS},
                "request_counts": {"total": r["total"],
                                   "completed": c["completed"] if c else 0,
                                   "failed": c["failed"] if c else 0},
                "metadata": json.loads(r["metadata"]) if r["metadata"] else None,
            })
        return out


def output_record(custom_id: str, status_code: int, request_id: str,
                  body: dict[str, Any]) -> dict[str, Any]:
    """One output-file line for a request that returned ``status_code`` < 400."""
    return {"id": new_id("batch_req_"), "custom_id": custom_id,
            "response": {"status_code": status_code, "request_id": request_id, "body": body},
            "error": None}


def error_record(custom_id: str, code: str, message: str,
                 response: dict[str, Any] | None = None) -> dict[str, Any]:
    """One error-file line; ``response`` is the failed HTTP response, if there was one."""
    return {"id": new_id("batch_req_"), "custom_id": custom_id, "response": response,
            "error": {"code": code, "message": message}}


RESPONSE_UNFINISHED = ("queued", "in_progress")


class ResponseStore:
    """Stored Responses API responses: the `response` object, its input items and what a
    later response needs to continue it (``turn``, JSON kept opaque here).

    A response is written whole in one transaction; a background one is inserted ``queued``
    and every later status change is one conditional update, so a racing cancel is never
    overwritten. Background responses still unfinished when a store opens (the process died)
    are marked failed.
    """

    def __init__(self, store: Store) -> None:
        self._s = store
        self._fail_unfinished()

    def create(self, obj: dict[str, Any], input_items: list[dict[str, Any]],
               turn: str | None) -> None:
        with self._s.transaction() as db:
            db.execute(
                "INSERT INTO responses (id, status, background, created_at, object, input_items,"
                " turn) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (obj["id"], obj["status"], int(bool(obj.get("background"))), obj["created_at"],
                 json.dumps(obj, ensure_ascii=False), json.dumps(input_items, ensure_ascii=False),
                 turn))

    def get(self, response_id: str) -> dict[str, Any]:
        return json.loads(self._row(response_id, "object")["object"])

    def turn(self, response_id: str) -> str:
        """The continuation of a finished response (Conflict when it has none)."""
        row = self._row(response_id, "status, turn")
        if row["turn"] is None:
            raise Conflict(f"Response {response_id} has status {row['status']!r} and cannot "
                           "be continued", key=response_id, status=row["status"])
        return str(row["turn"])

    def input_items(self, response_id: str, limit: int = 20, after: str | None = None,
                    order: str = "desc") -> tuple[list[dict[str, Any]], bool]:
        """A page of the response's input items; returns ``(items, has_more)``."""
        items = json.loads(self._row(response_id, "input_items")["input_items"])
        if order == "desc":
            items.reverse()
        if after is not None:
            at = next((i for i, item in enumerate(items) if item["id"] == after), None)
            if at is None:
                raise Missing("input item", after, f"response {response_id}")
            items = items[at + 1:]
        return items[:limit], len(items) > limit

    def update(self, response_id: str, from_statuses: tuple[str, ...], obj: dict[str, Any],
               turn: str | None = None) -> bool:
        """Replace the object (and continuation) if the status is still one of
        ``from_statuses``; False (writing nothing) otherwise."""
        marks = ",".join("?" * len(from_statuses))
        with self._s.transaction() as db:
            cur = db.execute(
                f"UPDATE responses SET status = ?, object = ?, turn = ? WHERE id = ?"
                f" AND status IN ({marks})",
                (obj["status"], json.dumps(obj, ensure_ascii=False), turn, response_id,
                 *from_statuses))
            return cur.rowcount == 1

    def cancel(self, response_id: str) -> tuple[dict[str, Any], bool]:
        """queued/in_progress background response -> cancelled. Returns the object and
        whether it changed; Conflict for a response created without `background`."""
        with self._s.transaction() as db:
            row = db.execute("SELECT status, background, object FROM responses WHERE id = ?",
                             (response_id,)).fetchone()
            if row is None:
                raise Missing("response", response_id)
            if not row["background"]:
                raise Conflict("Only background responses can be cancelled", key=response_id,
                               status=row["status"])
            obj = json.loads(row["object"])
            if row["status"] not in RESPONSE_UNFINISHED:
                return obj, False
            obj["status"] = "cancelled"
            db.execute("UPDATE responses SET status = 'cancelled', object = ? WHERE id = ?",
                       (json.dumps(obj, ensure_ascii=False), response_id))
        return obj, True

    def delete(self, response_id: str) -> None:
        with self._s.transaction() as db:
            if db.execute("DELETE FROM responses WHERE id = ?", (response_id,)).rowcount == 0:
                raise Missing("response", response_id)

    def _row(self, response_id: str, columns: str) -> sqlite3.Row:
        rows = self._s.query(f"SELECT {columns} FROM responses WHERE id = ?", (response_id,))
        if not rows:
            raise Missing("response", response_id)
        return rows[0]

    def _fail_unfinished(self) -> None:
        error = {"code": "server_error",
                 "message": "The server stopped before this background response finished"}
        marks = ",".join("?" * len(RESPONSE_UNFINISHED))
        with self._s.transaction() as db:
            for row in db.execute(f"SELECT id, object FROM responses WHERE status IN ({marks})",
                                  RESPONSE_UNFINISHED).fetchall():
                obj = dict(json.loads(row["object"]), status="failed", error=error)
                db.execute("UPDATE responses SET status = 'failed', object = ? WHERE id = ?",
                           (json.dumps(obj, ensure_ascii=False), row["id"]))
