"""The background responses (`background: true`) one server process runs: a registry owned by
the app's state, not by the module, and stopped with it."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any


class BackgroundRuns:
    """Running background responses by id. :meth:`stop` (the server stopping) cancels what
    still runs; each run then stores its response `cancelled` (see
    :func:`serving.responses.start_background`)."""

    def __init__(self) -> None:
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self.stopping = False

    def __len__(self) -> int:
        return len(self._tasks)

    def start(self, response_id: str, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.ensure_future(work)
        self._tasks[response_id] = task
        task.add_done_callback(lambda _: self._tasks.pop(response_id, None))

    def cancel(self, response_id: str) -> bool:
        """Stop the run of ``response_id``; False when none runs."""
        task = self._tasks.get(response_id)
        if task is None:
            return False
        task.cancel()
        return True

    async def stop(self) -> None:
        """Cancel every run and wait until each has stored its end."""
        self.stopping = True
        tasks = list(self._tasks.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
