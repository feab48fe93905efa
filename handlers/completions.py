"""completions operations (not built yet: 501 not_implemented)."""

from __future__ import annotations

from typing import Any

from afm.errors import NotImplementedYet


async def create_completion(body: Any) -> None:
    raise NotImplementedYet("create_completion is not implemented yet")
