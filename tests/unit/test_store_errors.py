"""The stores' errors (serving.store) carry no HTTP or request naming; api_error maps them to
what a client sees: 404 for a missing object, 400 naming the operation's parameter otherwise."""

from __future__ import annotations

from serving.errors import InvalidRequest, NotFound
from serving.store import Conflict, Missing, Rejected, api_error


def test_missing_is_404_without_a_param() -> None:
    err = api_error(Missing("file", "file-1"), param="file_id")
    assert isinstance(err, NotFound) and err.status == 404
    assert (err.message, err.param, err.code) == ("No such file: file-1", None, None)
    item = api_error(Missing("input item", "msg_9", "response resp_1"))
    assert item.message == "No input item msg_9 in response resp_1"


def test_refusals_are_400_naming_the_operation_param() -> None:
    conflict = Conflict("Response resp_1 has status 'failed' and cannot be continued",
                        key="resp_1", status="failed")
    err = api_error(conflict, param="previous_response_id")
    assert isinstance(err, InvalidRequest) and err.status == 400
    assert err.param == "previous_response_id" and err.message == str(conflict)
    rejected = api_error(Rejected("File f has purpose 'x', expected 'batch'"))
    assert rejected.status == 400 and rejected.param is None
    assert rejected.type == "invalid_request_error"
