"""tokens operations (not built yet: 501 not_implemented)."""

from __future__ import annotations

from typing import Any

from afm.errors import NotImplementedYet


async def tokenize(body: Any) -> None:
    raise NotImplementedYet("tokenize is not implemented yet")


async def detokenize(body: Any) -> None:
    raise NotImplementedYet("detokenize is not implemented yet")


async def count_tokens(body: Any) -> None:
    raise NotImplementedYet("count_tokens is not implemented yet")
