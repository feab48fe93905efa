"""Stored responses survive a crash whole or not at all: SIGKILL a real `afm serve` while
clients create stored responses (whole, streamed and background), restart it on the same data
directory, and check every response it acknowledged and every row in its database."""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path

import openai
import pytest

from tests.conftest import LiveServer
from tests.contract_support import component, schema_errors
from tests.waiting import eventually

pytestmark = pytest.mark.slow


def _client_loop(sdk: openai.OpenAI, mode: str, acked: list[tuple[str, str]],
                 stop: threading.Event) -> None:
    """Create stored responses until the server dies; record each acknowledged id."""
    i = 0
    while not stop.is_set():
        i += 1
        body = {"model": "afm-default", "input": f"{mode} {i}: tell me more",
                "max_output_tokens": 24 + 8 * (i % 4)}
        try:
            if mode == "stream":
                events = list(sdk.responses.create(stream=True, **body))
                if events and events[-1].type in ("response.completed", "response.incomplete"):
                    acked.append((mode, events[-1].response.id))
            else:
                r = sdk.responses.create(background=mode == "background", **body)
                acked.append((mode, r.id))
        except (openai.APIError, openai.APIConnectionError):
            return


def test_sigkill_during_stored_response_creation(tmp_path: Path, tiny_model: Path) -> None:
    data = tmp_path / "data"
    server = LiveServer(["--model", str(tiny_model), "--concurrent", "4"], data,
                        tmp_path / "server.log")
    server.start()
    try:
        sdk: openai.OpenAI = server.openai(timeout=120)  # type: ignore[assignment]
        acked: list[tuple[str, str]] = []
        stop = threading.Event()
        threads = [threading.Thread(target=_client_loop, args=(sdk, mode, acked, stop))
                   for mode in ("whole", "whole", "stream", "background")]
        for t in threads:
            t.start()
        eventually(lambda: sum(m != "background" for m, _ in acked) >= 6, 300,
                   "six replies acknowledged", detail=server.log_tail)
        server.kill()  # mid-flight: other requests are being generated right now
        stop.set()
        for t in threads:
            t.join(timeout=150)

        # every row is whole: the object parses and satisfies the contract, status agrees
        db = sqlite3.connect(data / "afm.sqlite3")
        rows = db.execute("SELECT id, status, object, input_items FROM responses").fetchall()
        db.close()
        assert rows
        for rid, status, obj, items in rows:
            response = json.loads(obj)
            assert response["id"] == rid and response["status"] == status
            assert not schema_errors(component("ResponseObject"), response)
            assert json.loads(items)

        server.start()
        stored = {rid for rid, *_ in rows}
        for mode, rid in acked:
            assert rid in stored, (mode, rid)
            r = sdk.responses.retrieve(rid)
            if mode == "background":  # queued or running at the kill: failed now
                assert r.status in ("completed", "incomplete", "failed"), r.status
                if r.status == "failed":
                    assert r.error is not None and r.error.code == "server_error"
            else:
                assert r.status in ("completed", "incomplete") and r.output, r
                assert r.usage is not None and r.usage.output_tokens > 0
            assert sdk.responses.input_items.list(rid).data[0].type == "message"
        unfinished = [r for r in (sdk.responses.retrieve(rid) for rid in stored)
                      if r.status in ("queued", "in_progress")]
        assert not unfinished
        # the store is still usable: a new stored response continues an old one
        first = next(rid for mode, rid in acked if mode == "whole")
        follow = sdk.responses.create(model="afm-default", previous_response_id=first,
                                      input="and then?", max_output_tokens=4)
        assert sdk.responses.retrieve(follow.id).status in ("completed", "incomplete")
    finally:
        server.stop()
