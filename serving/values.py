"""Generated-model field values as plain Python (root models unwrapped, enums as strings,
fields the client did not send left out, so the data equals what was sent)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, RootModel


def plain(value: Any) -> Any:
    """A generated model or field value as JSON-like Python data (None stays None)."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", by_alias=True, exclude_unset=True)
    if isinstance(value, list):
        return [plain(v) for v in value]
    return getattr(value, "value", value)  # StrEnum members -> str


def unwrap(value: Any) -> Any:
    """The model inside root models (a union chosen by a discriminator, nested or not)."""
    while isinstance(value, RootModel):
        value = value.root
    return value
