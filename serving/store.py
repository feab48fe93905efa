"""The stores' own errors, and how a client sees them.

The durable stores (the app's Files, Batch and Responses storage) raise these: they say what
went wrong with stored objects and carry no HTTP status, envelope or request parameter. The
serving operations and the handlers map them to the documented API errors with
:func:`api_error`, naming the parameter their operation took.

Hierarchy::

    StoreError              the store refused an operation
    ├── StoreInUse          its data directory is held by another process
    ├── Missing             no such object (file, batch, response, input item)
    ├── Conflict            the object's state does not allow the operation
    └── Rejected            arguments the store cannot apply
"""

from __future__ import annotations

from serving.errors import ApiError, InvalidRequest, NotFound


class StoreError(Exception):
    """The store refused an operation."""

    @property
    def message(self) -> str:
        return str(self)


class StoreInUse(StoreError):
    """The data directory is held by another process (one process per directory)."""


class Missing(StoreError):
    """No stored ``kind`` has id ``key`` (``within``: the object it was looked for in)."""

    def __init__(self, kind: str, key: str, within: str | None = None) -> None:
        self.kind, self.key, self.within = kind, key, within
        super().__init__(f"No {kind} {key} in {within}" if within else f"No such {kind}: {key}")


class Conflict(StoreError):
    """The state of ``key`` (``status``) does not allow the operation."""

    def __init__(self, message: str, *, key: str | None = None,
                 status: str | None = None) -> None:
        self.key, self.status = key, status
        super().__init__(message)


class Rejected(StoreError):
    """Arguments the store cannot apply (an unknown completion window, a file of another
    purpose)."""


def api_error(exc: StoreError, *, param: str | None = None) -> ApiError:
    """What a client sees of a store error: 404 for a missing object, else 400 naming
    ``param`` (the request parameter whose object the store refused)."""
    if isinstance(exc, Missing):
        return NotFound(exc.message)
    if isinstance(exc, (Conflict, Rejected)):
        return InvalidRequest(exc.message, param=param)
    return ApiError(exc.message)
