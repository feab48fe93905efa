"""The batch worker: runs stored batches to completion on the asyncio loop.

Life of a batch: validating -> (failed | in_progress) -> finalizing -> completed, with
cancelling -> cancelled and expired on the side. Each line's result is committed to the store as
soon as it completes, so after a crash (or ``stop()``) a new worker resumes every unfinished batch
and runs only the lines that have no result yet; every custom_id ends in exactly one of the output
or error files.

A request interrupted by cancel, expiry or ``stop()`` is not recorded (its ``execute`` call
receives ``asyncio.CancelledError``), nor is one the server refused because it is stopping
(``execute`` raises :class:`afm.errors.ShuttingDown`): it reruns on the next start.
``drain()`` (the server's graceful stop) starts no more lines and lets running ones finish.
``validate_body`` runs in a worker thread; the store's finalization (which writes whole files)
too.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from afm.batch_validation import ValidateBody, validate_batch_file
from afm.context import new_request_id
from afm.errors import ShuttingDown
from afm.storage import TERMINAL, Missing, Store, error_record, output_record

log = logging.getLogger(__name__)

Execute = Callable[[str, dict[str, Any], str], Awaitable[tuple[int, dict[str, Any]]]]
"""``execute(endpoint, body, request_id) -> (status_code, response_body)``."""


class _Run:
    """Control block of one batch being driven."""

    def __init__(self) -> None:
        self.interrupt = asyncio.Event()
        self.task: asyncio.Task[None] | None = None


class BatchWorker:
    """Drives every unfinished batch of ``store``; at most ``concurrency`` requests at a time."""

    def __init__(self, store: Store, execute: Execute, validate_body: ValidateBody,
                 concurrency: int = 2, poll_interval: float = 1.0) -> None:
        if concurrency < 1:
            raise ValueError("concurrency must be >= 1")
        self.store = store
        self._execute = execute
        self._validate_body = validate_body
        self._concurrency = concurrency
        self._poll = poll_interval
        self._runs: dict[str, _Run] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wake: asyncio.Event | None = None
        self._sem: asyncio.Semaphore | None = None
        self._task: asyncio.Task[None] | None = None
        self._draining = False

    async def start(self) -> None:
        """Start on the running loop and resume every unfinished batch."""
        if self._task is not None:
            return
        self._loop = asyncio.get_running_loop()
        self._wake = asyncio.Event()
        self._sem = asyncio.Semaphore(self._concurrency)
        self._task = asyncio.create_task(self._supervise(), name="batch-worker")

    async def stop(self) -> None:
        """Stop everything; in-flight requests are cancelled and will rerun on the next start."""
        tasks = [t for t in [self._task, *(r.task for r in self._runs.values())] if t]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._task = None
        self._runs.clear()

    def drain(self) -> None:
        """Start no more lines (or batches); lines already running finish and are recorded.
        Unfinished batches stay as they are and resume on the next start."""
        self._draining = True
        self.wake()

    def busy(self) -> bool:
        """Whether a batch is being driven now (a line may be running)."""
        return any(r.task is not None and not r.task.done() for r in self._runs.values())

    def wake(self) -> None:
        """Tell the worker a batch was created or cancelled (safe from any thread)."""
        if self._loop is not None and self._wake is not None:
            self._loop.call_soon_threadsafe(self._wake.set)

    async def wait_idle(self, timeout: float | None = None) -> None:
        """Wait until no batch is unfinished (for tests and graceful shutdown)."""
        async with asyncio.timeout(timeout):
            while self.store.batches.unfinished():
                self.wake()
                await asyncio.sleep(0.02)

    # supervision

    async def _supervise(self) -> None:
        assert self._wake is not None
        while True:
            self._wake.clear()
            try:
                self._scan()
            except Exception:
                log.exception("batch worker scan failed")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self._poll)

    def _scan(self) -> None:
        if self._draining:
            return
        now = self.store.now()
        for batch in self.store.batches.unfinished():
            run = self._runs.get(batch["id"])
            if run is None:
                run = self._runs[batch["id"]] = _Run()
                run.task = asyncio.create_task(self._drive(batch["id"], run),
                                               name=f"batch-{batch['id']}")
                run.task.add_done_callback(lambda t, b=batch["id"]: self._finished(b, t))
            elif batch["status"] == "cancelling" or now >= batch["expires_at"]:
                run.interrupt.set()

    def _finished(self, batch_id: str, task: asyncio.Task[None]) -> None:
        self._runs.pop(batch_id, None)
        if not task.cancelled() and task.exception() is not None:
            log.error("batch %s failed in the worker; will retry", batch_id,
                      exc_info=task.exception())

    # one batch

    async def _drive(self, batch_id: str, run: _Run) -> None:
        """Step the batch through its states until it is terminal."""
        batches = self.store.batches
        while not self._draining:
            batch = batches.get(batch_id)
            status = batch["status"]
            if status in TERMINAL:
                return
            if status in ("validating", "in_progress") and self.store.now() >= batch["expires_at"]:
                await asyncio.to_thread(batches.finalize, batch_id, "expired")
            elif status == "validating":
                await self._validate(batch)
            elif status == "in_progress":
                pending = batches.pending(batch_id)
                if not pending:
                    batches.mark_finalizing(batch_id)
                elif not await self._run_lines(batch, pending, run):
                    run.interrupt.clear()
            elif status == "finalizing":
                await asyncio.to_thread(batches.finalize, batch_id, "completed")
            elif status == "cancelling":
                await asyncio.to_thread(batches.finalize, batch_id, "cancelled")

    async def _validate(self, batch: dict[str, Any]) -> None:
        batches = self.store.batches
        try:
            content = self.store.files.content(batch["input_file_id"])
        except Missing:
            batches.fail(batch["id"], [{"code": "invalid_file", "line": None,
                                        "param": "input_file_id",
                                        "message": "The input file was deleted."}])
            return
        lines, errors = await asyncio.to_thread(validate_batch_file, content, batch["endpoint"],
                                                self._validate_body)
        if errors:
            batches.fail(batch["id"], errors)
        else:
            batches.start(batch["id"], [(ln["line"], ln["custom_id"], ln["body"]) for ln in lines])

    async def _run_lines(self, batch: dict[str, Any],
                         pending: list[tuple[str, dict[str, Any]]], run: _Run) -> bool:
        """Run ``pending`` lines until done, interrupted (cancel) or expired.
        Returns False when interrupted."""
        assert self._sem is not None
        queue = iter(pending)

        async def lane() -> None:
            for custom_id, body in queue:
                async with self._sem:
                    if run.interrupt.is_set() or self._draining:
                        return
                    await self._run_one(batch, custom_id, body)

        lanes = [asyncio.create_task(lane())
                 for _ in range(min(self._concurrency, len(pending)))]
        all_done = asyncio.gather(*lanes)
        all_done.add_done_callback(lambda f: f.cancelled() or f.exception())  # mark retrieved
        interrupted = asyncio.create_task(run.interrupt.wait())
        timeout = max(0.0, batch["expires_at"] - self.store.clock())
        try:
            await asyncio.wait({all_done, interrupted}, timeout=timeout,
                               return_when=asyncio.FIRST_COMPLETED)
        finally:
            finished = all_done.done()
            error = all_done.exception() if finished and not all_done.cancelled() else None
            if not finished or error is not None:
                for task in lanes:
                    task.cancel()
            interrupted.cancel()
            await asyncio.gather(*lanes, interrupted, return_exceptions=True)
        if error is not None:
            raise error  # a store failure in a lane: the supervisor restarts this batch
        return finished

    async def _run_one(self, batch: dict[str, Any], custom_id: str, body: dict[str, Any]) -> None:
        """Execute one request and record its result durably (no await between the two)."""
        request_id = new_request_id()
        try:
            status, response = await self._execute(batch["endpoint"], body, request_id)
            status = int(status)
        except ShuttingDown:
            return  # refused as the server stops: unrecorded, it reruns on the next start
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                raise  # we were cancelled: leave the line unrecorded, it reruns on resume
            ok, record = False, error_record(custom_id, "cancelled",
                                             "The request was cancelled by the server.")
        except Exception as exc:
            log.exception("batch %s line %s failed", batch["id"], custom_id)
            ok, record = False, error_record(custom_id, "internal_error",
                                             f"{type(exc).__name__}: {exc}")
        else:
            ok, record = self._record_for(custom_id, status, request_id, response)
        try:
            self.store.batches.record_result(batch["id"], custom_id, ok, record)
        except (TypeError, ValueError) as exc:  # response not JSON-serializable
            self.store.batches.record_result(
                batch["id"], custom_id, False,
                error_record(custom_id, "internal_error", f"Unserializable response: {exc}"))

    @staticmethod
    def _record_for(custom_id: str, status: int, request_id: str,
                    response: dict[str, Any]) -> tuple[bool, dict[str, Any]]:
        if status < 400:
            return True, output_record(custom_id, status, request_id, response)
        err = response.get("error") if isinstance(response, dict) else None
        err = err if isinstance(err, dict) else {}
        code = err.get("code") or err.get("type") or f"http_{status}"
        message = err.get("message") or f"The request failed with status {status}."
        return False, error_record(
            custom_id, str(code), str(message),
            {"status_code": status, "request_id": request_id, "body": response})
