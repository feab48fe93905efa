"""Several chat models in one server: listing, routing by `model`, 404 for unknown names, lazy
loading and least-recently-used unloading bounded by `--max-loaded-models`, never of a model
with a request in flight; all visible in /v1/models, /health and /metrics.

Real `afm serve` processes on two built models (`tiny`, hermes tool format, and `tiny-llama3`,
llama3_json), talked to with the official openai SDK (httpx where it has no method).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest

from tests.conftest import LiveServer
from tests.waiting import eventually

MSG = [{"role": "user", "content": "Hello there"}]
LONG = 3500
"""Tokens of the stream that keeps a model busy (ignore_eos): seconds on the tiny model, which
decodes ~1-2 ms a token on two cores (1000 tokens once finished inside the tests' 1 s wait)."""
WEATHER = {"type": "function", "function": {
    "name": "get_weather", "description": "Weather of a city",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}


@pytest.fixture(scope="module")
def llama_model() -> Path:
    from modelbuilder import ensure_model

    return ensure_model("tiny-llama3")


def _start(tmp_path: Path, *args: str) -> LiveServer:
    return LiveServer(list(args), tmp_path / "data", tmp_path / "server.log").start()


@pytest.fixture(scope="module")
def two(tmp_path_factory: pytest.TempPathFactory, tiny_model: Path, llama_model: Path
        ) -> Iterator[LiveServer]:
    """`tiny` and `llama` by --model NAME=SOURCE, plus the same two folders again under other
    names through --models-dir."""
    base = tmp_path_factory.mktemp("multi")
    shelf = base / "shelf"
    shelf.mkdir()
    (shelf / "alpha").symlink_to(tiny_model)
    (shelf / "beta").symlink_to(llama_model)
    (shelf / "not-a-model").mkdir()
    broken = base / "broken"
    broken.mkdir()
    # passes the start-up check (a supported architecture) but has no weights: fails at load
    (broken / "config.json").write_text('{"model_type": "qwen3"}')
    server = _start(base, "--model", f"tiny={tiny_model}", "--model", f"llama={llama_model}",
                    "--models-dir", str(shelf), "--model", str(broken),
                    "--max-loaded-models", "2")
    yield server
    server.stop()


@pytest.fixture(scope="module")
def client(two: LiveServer) -> Iterator[Any]:
    with two.openai() as client:
        yield client


def _metrics(server: LiveServer) -> dict[str, float]:
    out = {}
    for line in httpx.get(server.url + "/metrics").text.splitlines():
        if line and not line.startswith("#"):
            name, value = line.rsplit(" ", 1)
            out[name] = float(value)
    return out


def _loaded(server: LiveServer) -> dict[str, bool]:
    data = httpx.get(server.url + "/v1/models").json()["data"]
    return {m["id"]: m["loaded"] for m in data if m["type"] == "chat"}


def test_lists_every_offered_model_with_whether_it_is_loaded(two: LiveServer,
                                                             client: Any) -> None:
    models = client.models.list().data
    chat = [m for m in models if m.type == "chat"]
    assert [m.id for m in chat] == ["tiny", "llama", "broken", "alpha", "beta"]
    assert "sentence-transformers/all-MiniLM-L6-v2" in [m.id for m in models
                                                        if m.type == "embedding"]
    health = httpx.get(two.url + "/health").json()
    assert health["model"] == "tiny"  # the default loads at start-up
    loaded = {m.id for m in chat if m.loaded}
    assert "tiny" in loaded and loaded == set(health["loaded_models"])
    for m in chat:
        one = client.models.retrieve(m.id)
        assert one.id == m.id and one.type == "chat"
        assert (one.max_context_length is not None) == bool(one.loaded)
    with pytest.raises(openai.NotFoundError):
        client.models.retrieve("gamma")


def test_model_field_routes_each_surface(two: LiveServer, client: Any) -> None:
    before = _metrics(two)
    for name in ("tiny", "llama", "alpha"):
        chat = client.chat.completions.create(model=name, messages=MSG, max_tokens=3)
        assert chat.model == name
        streamed = [c.model for c in client.chat.completions.create(
            model=name, messages=MSG, max_tokens=3, stream=True)]
        assert set(streamed) == {name}
    assert client.completions.create(model="llama", prompt="Hi", max_tokens=3).model == "llama"
    assert client.responses.create(model="llama", input="Hi",
                                   max_output_tokens=16).model == "llama"
    queued = client.responses.create(model="llama", input="Hi", max_output_tokens=16,
                                     background=True)
    def ended(response_id: str) -> Any:
        got = client.responses.retrieve(response_id)
        return got if got.status not in ("queued", "in_progress") else None

    if queued.status in ("queued", "in_progress"):
        queued = eventually(lambda: ended(queued.id), 60, "the background response ends",
                            interval=0.2)
    assert queued.status in ("completed", "incomplete") and queued.model == "llama"
    with httpx.stream("POST", two.url + "/v1/batch/completions", json={"requests": [
            {"custom_id": name, "body": {"model": name, "messages": MSG, "max_tokens": 2}}
            for name in ("beta", "tiny")]}) as r:
        events = [json.loads(line[6:]) for line in r.iter_lines() if line.startswith("data: {")]
    assert {e["custom_id"]: e["model"] for e in events} == {"beta": "beta", "tiny": "tiny"}
    message = httpx.post(two.url + "/v1/messages", json={
        "model": "llama", "max_tokens": 3, "messages": MSG}).json()
    assert message["model"] == "llama"
    # no `model`: the first one
    assert httpx.post(two.url + "/v1/chat/completions", json={
        "messages": MSG, "max_tokens": 2}).json()["model"] == "tiny"
    after = _metrics(two)

    def routed(name: str) -> float:
        key = f'afm:model_requests_total{{model="{name}"}}'
        return after.get(key, 0) - before.get(key, 0)

    # chat and stream each; llama: completions, responses, background response, messages;
    # tiny: the request without `model`; one batch completion each for tiny and beta
    assert (routed("tiny"), routed("llama"), routed("alpha"), routed("beta")) == (4, 6, 2, 1)
    # a conversation may continue on another model (its stored tokens are not reused there)
    first = client.responses.create(model="tiny", input="Hi", max_output_tokens=4)
    second = client.responses.create(model="llama", previous_response_id=first.id,
                                     input="More", max_output_tokens=4)
    assert second.model == "llama" and second.usage.input_tokens > first.usage.input_tokens


def test_templates_differ_per_model(two: LiveServer) -> None:
    """The token routes use the named model's chat template: hermes and llama3 render the
    same tool-bearing conversation differently (their vocabularies are the same)."""
    def tokens(model: str) -> list[int]:
        r = httpx.post(two.url + "/v1/tokenize", json={
            "model": model, "messages": MSG, "tools": [WEATHER]})
        assert r.status_code == 200 and r.json()["model"] == model
        return r.json()["tokens"]

    assert tokens("tiny") == tokens("alpha")
    assert tokens("tiny") != tokens("llama")
    assert tokens("llama") == tokens("beta")
    count = httpx.post(two.url + "/v1/messages/count_tokens", json={
        "model": "beta", "messages": MSG, "tools": [{
            "name": "get_weather", "description": "Weather of a city",
            "input_schema": WEATHER["function"]["parameters"]}]}).json()
    assert count["input_tokens"] > 0


def test_unknown_model_is_404_in_each_envelope(two: LiveServer, client: Any) -> None:
    with pytest.raises(openai.NotFoundError) as err:
        client.chat.completions.create(model="gamma", messages=MSG, max_tokens=2)
    assert err.value.code == "model_not_found"
    assert "gamma" in err.value.message
    with pytest.raises(openai.NotFoundError):
        client.completions.create(model="gamma", prompt="Hi", max_tokens=2)
    with pytest.raises(openai.NotFoundError):
        client.responses.create(model="gamma", input="Hi")
    r = httpx.post(two.url + "/v1/tokenize", json={"model": "gamma", "text": "hi"})
    assert r.status_code == 404 and r.json()["error"]["code"] == "model_not_found"
    r = httpx.post(two.url + "/v1/messages", json={
        "model": "gamma", "max_tokens": 2, "messages": MSG})
    assert r.status_code == 404
    assert r.json()["type"] == "error" and r.json()["error"]["type"] == "not_found_error"


def test_a_model_that_cannot_load_is_503(two: LiveServer, client: Any) -> None:
    r = httpx.post(two.url + "/v1/chat/completions", json={
        "model": "broken", "messages": MSG, "max_tokens": 2})
    assert r.status_code == 503 and r.json()["error"]["type"] == "model_load_error"
    assert "broken" in r.json()["error"]["message"]
    assert _loaded(two)["broken"] is False
    assert client.chat.completions.create(model="tiny", messages=MSG, max_tokens=2).model == "tiny"


def test_cancel_reaches_the_model_that_runs_the_request(two: LiveServer, client: Any) -> None:
    result: dict[str, Any] = {}
    run = threading.Thread(target=lambda: result.update(r=client.chat.completions.create(
        model="beta", messages=MSG, max_tokens=3000, extra_body={"ignore_eos": True},
        extra_headers={"X-Request-ID": "multi-cancel-1"})))
    run.start()
    def cancelled() -> bool:
        if httpx.post(two.url + "/v1/chat/completions/multi-cancel-1/cancel").status_code == 200:
            return True
        assert run.is_alive(), "the request ended before it could be cancelled"
        return False

    eventually(cancelled, 60, "the request is cancelled by id")
    run.join(60)
    assert result["r"].model == "beta" and result["r"].choices[0].finish_reason == "cancelled"


def test_batch_lines_run_on_their_model(client: Any) -> None:
    lines = [{"custom_id": name, "method": "POST", "url": "/v1/chat/completions",
              "body": {"model": name, "messages": MSG, "max_tokens": 2}}
             for name in ("llama", "tiny", "gamma")]
    upload = client.files.create(
        file=("in.jsonl", "\n".join(json.dumps(x) for x in lines).encode()), purpose="batch")
    batch = client.batches.create(input_file_id=upload.id, endpoint="/v1/chat/completions",
                                  completion_window="24h")
    def ended(batch_id: str) -> Any:
        got = client.batches.retrieve(batch_id)
        return got if got.status in ("completed", "failed", "cancelled", "expired") else None

    if batch.status not in ("completed", "failed", "cancelled", "expired"):
        batch = eventually(lambda: ended(batch.id), 120, "the batch ends", interval=0.3)
    assert batch.status == "completed"
    out = [json.loads(x) for x in client.files.content(batch.output_file_id).text.splitlines()]
    by_id = {x["custom_id"]: x for x in out}
    if batch.error_file_id:
        errors = client.files.content(batch.error_file_id).text.splitlines()
        by_id.update({json.loads(x)["custom_id"]: json.loads(x) for x in errors})
    assert by_id["llama"]["response"]["body"]["model"] == "llama"
    assert by_id["tiny"]["response"]["body"]["model"] == "tiny"
    assert by_id["gamma"]["response"]["status_code"] == 404


def test_single_model_serves_any_name(live_server: Any) -> None:
    """One model: the old rule, whatever the request names."""
    with live_server("--concurrent", "4").openai() as client:
        reply = client.chat.completions.create(model="mlx-community/Anything", messages=MSG,
                                               max_tokens=2)
        listed = client.models.list().data[0]
    assert reply.model == listed.id and listed.loaded is True


def _long_stream(client: Any, model: str, tokens: int) -> Any:
    return client.chat.completions.create(
        model=model, messages=MSG, max_tokens=tokens, stream=True,
        stream_options={"include_usage": True}, extra_body={"ignore_eos": True})


def test_lazy_load_and_lru_unload_never_of_a_streaming_model(
        tmp_path: Path, tiny_model: Path, llama_model: Path) -> None:
    server = _start(tmp_path, "--model", f"tiny={tiny_model}", "--model",
                    f"llama={llama_model}", "--max-loaded-models", "1")
    client = server.openai()
    try:
        # lazy: only the first model is loaded at start-up
        assert _loaded(server) == {"tiny": True, "llama": False}
        m = _metrics(server)
        assert m['afm:model_loads_total{model="tiny"}'] == 1
        assert 'afm:model_loads_total{model="llama"}' not in m
        assert m["afm:models_loaded"] == 1

        # a request for llama while tiny streams: tiny is busy, so llama waits for it
        stream = _long_stream(client, "tiny", LONG)
        chunks = iter(stream)
        first = next(chunks)
        assert first.model == "tiny"
        other: dict[str, Any] = {}
        waiter = threading.Thread(target=lambda: other.update(r=client.chat.completions.create(
            model="llama", messages=MSG, max_tokens=2)))
        waiter.start()
        time.sleep(1.0)
        assert _loaded(server) == {"tiny": True, "llama": False}
        assert 'afm:model_unloads_total{model="tiny"}' not in _metrics(server)
        rest = list(chunks)
        finish = [c.choices[0].finish_reason for c in rest if c.choices]
        assert finish[-1] == "length"  # the stream completed: tiny was not unloaded under it
        assert rest[-1].usage is not None and rest[-1].usage.completion_tokens == LONG
        waiter.join(120)
        assert other["r"].model == "llama"

        # then the least recently used (tiny) made room for llama
        assert _loaded(server) == {"tiny": False, "llama": True}
        assert httpx.get(server.url + "/health").json()["loaded_models"] == ["llama"]
        m = _metrics(server)
        assert m['afm:model_unloads_total{model="tiny"}'] == 1
        assert m['afm:model_loads_total{model="llama"}'] == 1
        assert m['afm:model_loaded{model="tiny"}'] == 0
        assert m['afm:model_loaded{model="llama"}'] == 1
        assert m["afm:models_loaded"] == 1

        # and back: tiny reloads, llama goes
        assert client.chat.completions.create(
            model="tiny", messages=MSG, max_tokens=2).model == "tiny"
        m = _metrics(server)
        assert m['afm:model_loads_total{model="tiny"}'] == 2
        assert m['afm:model_unloads_total{model="llama"}'] == 1
        assert "chat model tiny unloaded" in server.log_tail(200)
    finally:
        client.close()
        server.stop()


def test_load_waiting_past_queue_timeout_is_503(tmp_path: Path, tiny_model: Path,
                                                llama_model: Path) -> None:
    """Every loaded model busy past --queue-timeout: 503 server_busy with Retry-After, and the
    busy model keeps serving its stream."""
    server = _start(tmp_path, "--model", f"tiny={tiny_model}", "--model",
                    f"llama={llama_model}", "--max-loaded-models", "1", "--queue-timeout", "0.5")
    client = server.openai()
    try:
        chunks = iter(_long_stream(client, "tiny", LONG))
        next(chunks)
        r = httpx.post(server.url + "/v1/chat/completions", json={
            "model": "llama", "messages": MSG, "max_tokens": 2})
        assert r.status_code == 503, r.text
        assert r.json()["error"]["type"] == "server_busy" and "retry-after" in r.headers
        finish = [c.choices[0].finish_reason for c in chunks if c.choices]
        assert finish[-1] == "length"
        assert _loaded(server) == {"tiny": True, "llama": False}
    finally:
        client.close()
        server.stop()
