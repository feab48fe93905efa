"""Glue between the batch worker and the handlers (filled in with the batch issue)."""

from __future__ import annotations

from typing import Any


async def execute_line(state: Any, endpoint: str, body: dict[str, Any],
                       request_id: str) -> tuple[int, dict[str, Any]]:
    return 501, {"error": {"message": "not implemented", "type": "not_implemented"}}


def validate_line_body(endpoint: str, body: dict[str, Any]) -> list[str]:
    return []
