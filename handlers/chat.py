"""chat operations (not built yet: 501 not_implemented)."""

from __future__ import annotations

from typing import Any

from afm.errors import NotImplementedYet


async def create_chat_completion(body: Any) -> None:
    raise NotImplementedYet("create_chat_completion is not implemented yet")


async def cancel_chat_completion(request_id: Any) -> None:
    raise NotImplementedYet("cancel_chat_completion is not implemented yet")
