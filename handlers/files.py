"""files operations (not built yet: 501 not_implemented)."""

from __future__ import annotations

from typing import Any

from afm.errors import NotImplementedYet


async def create_file(file: Any = None, **form: Any) -> None:
    raise NotImplementedYet("create_file is not implemented yet")


async def list_files(**query: Any) -> None:
    raise NotImplementedYet("list_files is not implemented yet")


async def retrieve_file(file_id: Any) -> None:
    raise NotImplementedYet("retrieve_file is not implemented yet")


async def delete_file(file_id: Any) -> None:
    raise NotImplementedYet("delete_file is not implemented yet")


async def download_file(file_id: Any) -> None:
    raise NotImplementedYet("download_file is not implemented yet")
