"""embeddings operations (not built yet: 501 not_implemented)."""

from __future__ import annotations

from typing import Any

from afm.errors import NotImplementedYet


async def create_embedding(body: Any) -> None:
    raise NotImplementedYet("create_embedding is not implemented yet")
