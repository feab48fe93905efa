"""File operations: createFile, listFiles, retrieveFile, deleteFile, downloadFile.

Storage is durable (afm.storage): content on disk, metadata in SQLite.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from typing import Any, TypeVar

from starlette.datastructures import UploadFile
from starlette.responses import Response

from afm import storage
from afm.errors import InvalidRequest, NotFound, PayloadTooLarge
from afm.state import AppState, get_state
from generated.models import DeletedFile, FileList, FileObject
from handlers.replies import json_response
from serving.store import StoreError, api_error

T = TypeVar("T")


async def in_store(state: AppState, fn: Callable[[storage.Store], T]) -> T:
    """Run a blocking storage call off the event loop; the store's errors become API errors
    (:func:`serving.store.api_error`)."""
    if state.store is None:
        raise NotFound("File storage is not available")
    try:
        return await asyncio.to_thread(fn, state.store)
    except StoreError as exc:
        raise api_error(exc) from None


async def create_file(body: dict[str, Any], file: UploadFile | None = None) -> Response:
    """A multipart upload: Connexion passes the form's text fields as ``body``."""
    state = get_state()
    purpose = body.get("purpose")
    if purpose not in storage.UPLOAD_PURPOSES:
        raise InvalidRequest(f"purpose must be one of {sorted(storage.UPLOAD_PURPOSES)}",
                             param="purpose")
    if not isinstance(file, UploadFile):
        raise InvalidRequest("'file' must be a file part", param="file")
    content = await file.read(state.settings.max_file_bytes + 1)
    if len(content) > state.settings.max_file_bytes:
        raise PayloadTooLarge(f"File exceeds {state.settings.max_file_bytes} bytes")
    filename = file.filename or "upload.jsonl"
    obj = await in_store(state, lambda s: s.files.create(filename, purpose, content))
    return json_response(FileObject.model_validate(obj))


async def list_files(purpose: str | None = None, limit: int = 10000, after: str | None = None,
                     order: str = "desc") -> Response:
    items, more = await in_store(get_state(), lambda s: s.files.list(
        purpose=purpose, limit=limit, after=after, order=order))
    return json_response(FileList(
        object="list", data=[FileObject.model_validate(i) for i in items], has_more=more,
        first_id=items[0]["id"] if items else None, last_id=items[-1]["id"] if items else None))


async def retrieve_file(file_id: str) -> Response:
    obj = await in_store(get_state(), lambda s: s.files.get(file_id))
    return json_response(FileObject.model_validate(obj))


async def delete_file(file_id: str) -> Response:
    obj = await in_store(get_state(), lambda s: s.files.delete(file_id))
    return json_response(DeletedFile.model_validate(obj))


async def download_file(file_id: str) -> Response:
    state = get_state()
    meta = await in_store(state, lambda s: s.files.get(file_id))
    content = await in_store(state, lambda s: s.files.content(file_id))
    safe_name = re.sub(r"[^A-Za-z0-9._-]", "_", meta["filename"]) or "file"
    return Response(content, media_type="application/octet-stream", headers={
        "Content-Disposition": f'attachment; filename="{safe_name}"'})
