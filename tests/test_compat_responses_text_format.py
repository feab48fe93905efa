"""`text.format` on the Responses API: a `json_schema` format without `name` or `schema` is
refused by the contract (400 naming the field), the three valid shapes are accepted and echoed."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest

from tests.conftest import LiveServer

SCHEMA = {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}


@pytest.fixture(scope="module")
def server(live_server: Callable[..., LiveServer]) -> LiveServer:
    return live_server("--concurrent", "2")


@pytest.mark.parametrize(("fmt", "missing"), [
    ({"type": "json_schema", "schema": SCHEMA}, "name"),
    ({"type": "json_schema", "name": "a"}, "schema"),
    ({"type": "json_schema", "name": "", "schema": SCHEMA}, "text.format.name"),
])
def test_incomplete_json_schema_format_is_400(server: LiveServer, fmt: dict,
                                              missing: str) -> None:
    r = httpx.post(server.url + "/v1/responses", timeout=60, json={
        "input": "hi", "max_output_tokens": 4, "text": {"format": fmt}})
    assert r.status_code == 400, r.text
    err = r.json()["error"]
    assert err["type"] == "invalid_request_error"
    assert missing in err["message"] + str(err.get("param")), err
    assert r.headers["x-request-id"]


@pytest.mark.parametrize("fmt", [
    {"type": "text"}, {"type": "json_object"},
    {"type": "json_schema", "name": "a", "schema": SCHEMA, "strict": True},
])
def test_valid_formats_are_accepted_and_echoed(server: LiveServer, fmt: dict) -> None:
    r = httpx.post(server.url + "/v1/responses", timeout=120, json={
        "input": "hi", "max_output_tokens": 8, "text": {"format": fmt}})
    assert r.status_code == 200, r.text
    assert r.json()["text"]["format"]["type"] == fmt["type"]
