"""batches operations (not built yet: 501 not_implemented)."""

from __future__ import annotations

from typing import Any

from afm.errors import NotImplementedYet


async def create_batch(body: Any) -> None:
    raise NotImplementedYet("create_batch is not implemented yet")


async def list_batches(**query: Any) -> None:
    raise NotImplementedYet("list_batches is not implemented yet")


async def retrieve_batch(batch_id: Any) -> None:
    raise NotImplementedYet("retrieve_batch is not implemented yet")


async def cancel_batch(batch_id: Any) -> None:
    raise NotImplementedYet("cancel_batch is not implemented yet")


async def create_batch_completions(body: Any) -> None:
    raise NotImplementedYet("create_batch_completions is not implemented yet")
