"""Responses through the whole app on a scripted engine: stored turns keep their context
tokens only when the engine says the text is exact."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from afm.storage import Store
from tests.api.conftest import Api, serve
from tests.scripted import script
from tests.waiting import eventually_async as eventually


async def test_response_is_stored_and_retrievable(api: Api) -> None:
    api.engine.scripts.append(script("Hello", "!"))
    r = await api.post("/v1/responses", {"model": "tiny", "input": "Hi"})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["status"] == "completed" and body["output"][0]["content"][0]["text"] == "Hello!"
    got = (await api.client.get(f"/v1/responses/{body['id']}")).json()
    assert got["id"] == body["id"] and got["output"] == body["output"]


async def test_continuation_reuses_exact_context_tokens(api: Api) -> None:
    api.engine.scripts.append(script("First", "."))
    first = (await api.post("/v1/responses", {"model": "tiny", "input": "One"})).json()
    api.engine.scripts.append(script("Second"))
    r = await api.post("/v1/responses", {"model": "tiny", "input": "Two",
                                         "previous_response_id": first["id"]})
    assert r.status_code == 200, r.text
    earlier, later = api.engine.requests
    # the stored turn: its prompt, its output tokens, the template's end of turn
    assert later.prompt_tokens[:len(earlier.prompt_tokens) + 2] == [
        *earlier.prompt_tokens, 1000, 1001]


async def test_a_stop_string_cut_turn_is_re_rendered(api: Api) -> None:
    api.engine.scripts.append(script("Cut", "XX", stop_sequence="XX", text_exact=False))
    first = (await api.post("/v1/responses", {"model": "tiny", "input": "One"})).json()
    api.engine.scripts.append(script("Next"))
    r = await api.post("/v1/responses", {"model": "tiny", "input": "Two",
                                         "previous_response_id": first["id"]})
    assert r.status_code == 200, r.text
    earlier, later = api.engine.requests
    n = len(earlier.prompt_tokens)  # rendered from the text, not the cut turn's tokens
    assert later.prompt_tokens[n:n + 2] != [1000, 1001]


async def test_response_stream_is_numbered_and_ends_incomplete_at_the_limit(api: Api) -> None:
    api.engine.scripts.append(script("Hi", " you", finish="length"))
    r = await api.post("/v1/responses", {"model": "tiny", "input": "Hey", "stream": True})
    events = [json.loads(line[6:]) for line in r.text.splitlines() if line.startswith("data: {")]
    assert [e["sequence_number"] for e in events] == list(range(len(events)))
    assert events[0]["type"] == "response.created" and events[-1]["type"] == "response.incomplete"
    deltas = "".join(e["delta"] for e in events if e["type"] == "response.output_text.delta")
    assert deltas == "Hi you"


async def test_engine_failure_mid_stream_fails_the_response(api: Api) -> None:
    api.engine.scripts.append(script("x", finish="error", error="boom"))
    r = await api.post("/v1/responses", {"model": "tiny", "input": "Hey", "stream": True})
    events = [json.loads(line[6:]) for line in r.text.splitlines() if line.startswith("data: {")]
    assert events[-1]["type"] == "response.failed"
    assert events[-1]["response"]["error"]["message"] == "Generation failed: boom"


async def test_a_background_response_running_at_the_stop_is_stored_cancelled(
        app: Any, tokenizer: Any, monkeypatch: pytest.MonkeyPatch, data_dir: Path) -> None:
    """The server's state owns the background runs: stopping it (the lifespan's end) cancels
    what still runs and stores it `cancelled`, so a restart finds no `in_progress` (which the
    store would then mark `failed`, as after a crash)."""
    async with serve(app, tokenizer, monkeypatch) as api:
        api.engine.scripts.append("hang")
        r = await api.post("/v1/responses", {"model": "tiny", "input": "Hi", "background": True})
        assert r.status_code == 200 and r.json()["status"] == "queued", r.text
        rid = r.json()["id"]

        async def status() -> str:
            return (await api.client.get(f"/v1/responses/{rid}")).json()["status"]

        await eventually(lambda: api.engine.requests, 5, "the background run reaches the engine")
        assert await status() == "in_progress"
    with Store(data_dir) as store:  # what a restart reads
        stored = store.responses.get(rid)
    assert stored["status"] == "cancelled" and stored["error"] is None, stored
