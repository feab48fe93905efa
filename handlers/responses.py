"""Response helpers shared by handlers."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel
from starlette.responses import JSONResponse


def dump(model: BaseModel) -> dict[str, Any]:
    """Serialise a generated model: fields that were set, including explicit nulls."""
    return model.model_dump(mode="json", exclude_unset=True)


def json_response(model: BaseModel | dict[str, Any], status: int = 200,
                  headers: dict[str, str] | None = None) -> JSONResponse:
    """A JSON response with an explicit content type (operations that also stream SSE
    declare two content types, so Connexion cannot pick one for a plain dict)."""
    body = dump(model) if isinstance(model, BaseModel) else model
    return JSONResponse(body, status_code=status, headers=headers,
                        media_type="application/json")
