"""Per-request context (re-exported): it lives in :mod:`serving.context`, below the app, so
serving reads it without importing the app."""

from serving.context import (
    RequestRecord,
    current_request_id,
    lease_scope,
    new_request_id,
    note_usage,
    note_warnings,
    on_scope_end,
    request_id_var,
    request_record_var,
)

__all__ = ["RequestRecord", "current_request_id", "lease_scope", "new_request_id", "note_usage",
           "note_warnings", "on_scope_end", "request_id_var", "request_record_var"]
