"""Files API against a real `afm serve`, through the official `openai` SDK: upload, list with
pagination, retrieve, download, delete, and the documented errors (400 purpose, 404 ids, 413)."""

from __future__ import annotations

import io
import json
from collections.abc import Callable

import httpx
import openai
import pytest

from tests.conftest import LiveServer

pytestmark = pytest.mark.slow

MAX_FILE_BYTES = 64 * 1024
SERVER_FLAGS = ("--concurrent", "4", "--max-file-bytes", str(MAX_FILE_BYTES))
"""Flags of the server the Files and Batch compat tests share (one process per session)."""


def jsonl(lines: list[dict]) -> bytes:
    return ("\n".join(json.dumps(line) for line in lines) + "\n").encode()


def chat_line(custom_id: str, content: str = "hi", **body: object) -> dict:
    return {"custom_id": custom_id, "method": "POST", "url": "/v1/chat/completions",
            "body": {"messages": [{"role": "user", "content": content}], "max_tokens": 4,
                     **body}}


def assert_envelope(r: httpx.Response, status: int, type_: str) -> dict:
    assert r.status_code == status, r.text
    err = r.json()["error"]
    assert err["type"] == type_ and err["message"]
    assert err["request_id"] == r.headers["x-request-id"]
    return err


@pytest.fixture(scope="module")
def files_server(live_server: Callable[..., LiveServer]) -> LiveServer:
    return live_server(*SERVER_FLAGS)


@pytest.fixture(scope="module")
def sdk(files_server: LiveServer) -> openai.OpenAI:
    return files_server.openai()  # type: ignore[return-value]


def test_upload_retrieve_download_delete(sdk: openai.OpenAI) -> None:
    content = jsonl([chat_line("a"), chat_line("b")])
    f = sdk.files.create(file=("input.jsonl", io.BytesIO(content)), purpose="batch")
    assert f.id.startswith("file-") and f.object == "file"
    assert (f.bytes, f.filename, f.purpose) == (len(content), "input.jsonl", "batch")
    assert f.status == "processed" and isinstance(f.created_at, int)

    got = sdk.files.retrieve(f.id)
    assert got.model_dump() == f.model_dump()
    assert sdk.files.content(f.id).content == content
    assert f.id in [x.id for x in sdk.files.list(purpose="batch")]

    deleted = sdk.files.delete(f.id)
    assert (deleted.id, deleted.deleted) == (f.id, True)
    with pytest.raises(openai.NotFoundError):
        sdk.files.retrieve(f.id)
    with pytest.raises(openai.NotFoundError):
        sdk.files.content(f.id)
    with pytest.raises(openai.NotFoundError):
        sdk.files.delete(f.id)


def test_list_pagination(sdk: openai.OpenAI) -> None:
    ids = [sdk.files.create(file=(f"p{i}.jsonl", io.BytesIO(jsonl([chat_line("x")]))),
                            purpose="batch").id for i in range(3)]
    newest = sdk.files.list(limit=2, order="desc")
    assert [x.id for x in newest.data] == ids[::-1][:2] and newest.has_more
    rest = sdk.files.list(limit=2, order="desc", after=newest.data[-1].id)
    assert rest.data[0].id == ids[0]
    oldest_first = sdk.files.list(limit=10000, order="asc")
    seq = [x.id for x in oldest_first.data]
    assert [i for i in seq if i in ids] == ids
    # the SDK's auto-pagination walks every page exactly once
    walked = [x.id for x in sdk.files.list(limit=1, order="asc")]
    assert walked == seq


def test_purpose_other_than_batch_is_400(files_server: LiveServer) -> None:
    for purpose in ("fine-tune", "assistants", "batch_output", ""):
        r = httpx.post(files_server.url + "/v1/files", data={"purpose": purpose},
                       files={"file": ("x.jsonl", b"{}\n")})
        assert_envelope(r, 400, "invalid_request_error")
    r = httpx.post(files_server.url + "/v1/files", data={"purpose": "batch"},
                   files={"other": ("x.jsonl", b"{}\n")})  # no `file` part
    assert_envelope(r, 400, "invalid_request_error")
    r = httpx.post(files_server.url + "/v1/files", data={"purpose": "batch"})  # not multipart
    assert_envelope(r, 415, "invalid_request_error")


def test_oversized_upload_is_413(files_server: LiveServer, sdk: openai.OpenAI) -> None:
    before = {x.id for x in sdk.files.list()}
    just_over = b"x" * (MAX_FILE_BYTES + 1)
    r = httpx.post(files_server.url + "/v1/files", data={"purpose": "batch"},
                   files={"file": ("big.jsonl", just_over)})
    assert assert_envelope(r, 413, "payload_too_large")["code"] == "payload_too_large"
    far_over = b"x" * (MAX_FILE_BYTES * 4)  # refused before the handler, by the body limit
    r = httpx.post(files_server.url + "/v1/files", data={"purpose": "batch"},
                   files={"file": ("big.jsonl", far_over)})
    assert_envelope(r, 413, "payload_too_large")
    with pytest.raises(openai.APIStatusError) as exc:
        sdk.files.create(file=("big.jsonl", io.BytesIO(just_over)), purpose="batch")
    assert exc.value.status_code == 413
    assert {x.id for x in sdk.files.list()} == before  # nothing half-stored
    exact = sdk.files.create(file=("ok.jsonl", io.BytesIO(b"y" * MAX_FILE_BYTES)),
                             purpose="batch")
    assert exact.bytes == MAX_FILE_BYTES


def test_unknown_file_ids_are_404(files_server: LiveServer) -> None:
    for method, path in (("GET", "/v1/files/file-nope"), ("GET", "/v1/files/file-nope/content"),
                         ("DELETE", "/v1/files/file-nope"), ("GET", "/v1/files?after=file-nope")):
        assert_envelope(httpx.request(method, files_server.url + path), 404, "not_found_error")
    assert httpx.get(files_server.url + "/health").status_code == 200


def test_download_is_byte_exact(sdk: openai.OpenAI) -> None:
    content = "héllo\r\n\x00binary\xff".encode("latin-1") + "✓".encode()
    f = sdk.files.create(file=("weird name/../x.jsonl", io.BytesIO(content)), purpose="batch")
    r = sdk.files.with_raw_response.content(f.id)
    assert r.content == content
    assert "attachment" in r.headers["content-disposition"]
    assert "/" not in r.headers["content-disposition"].split("filename=")[1]
