"""The graceful stop of `afm serve` (SIGTERM or Ctrl-C; a second signal exits at once).

1. Admit nothing new: `/health` answers 503 `draining`; every POST but the cancel operations
   gets 503 `shutting_down` (:class:`afm.middleware.DrainMiddleware`); the engines refuse the
   requests still queued for a slot (503 too) and any new submission; no model loads; the
   batch worker starts no more lines.
2. Let what runs finish, up to ``--shutdown-timeout`` seconds.
3. Then cancel the rest: running batch lines stop unrecorded (they rerun on the next start);
   generations end with ``finish_reason: "cancelled"`` (a background response is stored
   `cancelled`), their streams with their usual terminal events; wait for those replies to go
   out, and close what a client still does not read after :data:`CANCEL_GRACE_SECONDS`.
4. Return: the caller tells uvicorn to exit, whose lifespan stops the engines and the batch
   worker and closes the store.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from afm.state import AppState

log = logging.getLogger("afm")

CANCEL_GRACE_SECONDS = 10.0
"""After the cancel, how long cancelled replies may take to reach their clients."""

POLL_SECONDS = 0.05


class Drain:
    """Whether the server is draining, and the HTTP requests it still serves."""

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        self.started_at: float | None = None
        self.in_flight = 0  # HTTP requests inside the app, /health and /metrics aside

    @property
    def active(self) -> bool:
        return self.started_at is not None


def _work(state: AppState) -> dict[str, int]:
    """What still runs: HTTP requests, requests on the engines, background responses and
    batches being driven (zero counts left out)."""
    counts = {"HTTP requests": state.drain.in_flight,
              "generations": state.pool.active(),
              "background responses": len(state.background),
              "batches": int(state.worker is not None and state.worker.busy())}
    return {k: v for k, v in counts.items() if v}


def _describe(work: dict[str, int]) -> str:
    return ", ".join(f"{v} {k}" for k, v in work.items()) or "nothing"


async def _settled(state: AppState, seconds: float) -> bool:
    """Wait until nothing runs (True) or ``seconds`` pass (False)."""
    deadline = time.monotonic() + seconds
    while _work(state):
        if time.monotonic() >= deadline:
            return False
        await asyncio.sleep(POLL_SECONDS)
    return True


async def drain(state: AppState, close_connections: Callable[[], int]) -> None:
    """Run steps 1-3 above; ``close_connections`` closes the HTTP connections still open and
    returns how many it closed."""
    state.drain.started_at = time.monotonic()
    state.pool.drain()
    if state.worker is not None:
        state.worker.drain()
    timeout = state.drain.timeout
    log.info("stopping: admitting nothing new; %s in flight may finish within %gs "
             "(signal again to exit at once)", _describe(_work(state)), timeout)
    if await _settled(state, timeout):
        log.info("every request finished; shutting down")
        return
    log.info("shutdown timeout (%gs) reached: cancelling %s", timeout,
             _describe(_work(state)))
    if state.worker is not None:
        await state.worker.stop()  # first: a line cut short reruns on the next start
    state.pool.cancel_all()
    if not await _settled(state, CANCEL_GRACE_SECONDS):
        log.warning("%s still open %gs after the cancel; closing their connections",
                    _describe(_work(state)), CANCEL_GRACE_SECONDS)
        close_connections()
        await _settled(state, 2.0)
    log.info("cancelled requests answered; shutting down")
