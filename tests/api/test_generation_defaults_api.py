"""Generation defaults through the whole app: `GET /v1/models` reports each chat model's
resolved defaults and their sources, and a request that omits a sampling field gets them on
every surface, under the order request > `afm serve` flag > model > server fallback."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest

from afm import generation_defaults
from engine.model_defaults import ModelDefaults
from serving.sampling import FALLBACK
from tests.api.conftest import Api, serve
from tests.scripted import script

STATED = ModelDefaults({"temperature": 0.3, "top_p": 0.85, "top_k": 30}, "gguf",
                       "m.gguf general.sampling.*")
SURFACES = {
    "chat": ("/v1/chat/completions",
             {"messages": [{"role": "user", "content": "Hi"}], "max_tokens": 4}),
    "responses": ("/v1/responses", {"input": "Hi", "max_output_tokens": 4, "store": False}),
    "messages": ("/v1/messages",
                 {"messages": [{"role": "user", "content": "Hi"}], "max_tokens": 4}),
    "completions": ("/v1/completions", {"prompt": "Hi", "max_tokens": 4}),
}


@asynccontextmanager
async def app_stating(app: Any, tokenizer: Any, monkeypatch: pytest.MonkeyPatch,
                      stated: ModelDefaults | None, **flags: Any) -> AsyncIterator[Api]:
    """The app on a model whose files state ``stated``, started with ``flags``."""
    monkeypatch.setattr(generation_defaults, "find",
                        lambda source, loaded_path=None: generation_defaults.Found(stated))
    async with serve(app, tokenizer, monkeypatch) as api:
        for name, value in flags.items():  # the session app's settings, restored after
            monkeypatch.setattr(api.settings, name, value)
        pool = api.state["afm"].pool  # the default model loaded at start-up: resolve again
        for loaded in pool.resident():
            loaded.defaults = pool.resolve_defaults(loaded.entry)
        yield api


async def sent(api: Api, surface: str, **fields: Any) -> Any:
    path, body = SURFACES[surface]
    api.engine.scripts.append(script("ok"))
    r = await api.post(path, {"model": "m", **body, **fields})
    assert r.status_code == 200, r.text
    return api.engine.requests[-1].params


async def test_models_reports_defaults_and_sources(app: Any, tokenizer: Any,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    async with app_stating(app, tokenizer, monkeypatch, STATED, top_p=0.5) as api:
        models = (await api.client.get("/v1/models")).json()["data"]
        chat = next(m for m in models if m["type"] == "chat")
        d = chat["generation_defaults"]
        assert {k: d[k] for k in ("temperature", "top_p", "top_k", "min_p")} == \
            {"temperature": 0.3, "top_p": 0.5, "top_k": 30, "min_p": FALLBACK["min_p"]}
        assert d["sources"] == {"temperature": "gguf", "top_p": "flag", "top_k": "gguf",
                                "min_p": "server", "repetition_penalty": "server",
                                "presence_penalty": "server", "frequency_penalty": "server"}
        assert d["model_defaults_from"] == "m.gguf general.sampling.*"
        one = (await api.client.get(f"/v1/models/{chat['id']}")).json()
        assert one["generation_defaults"] == d
        embedding = [m for m in models if m["type"] == "embedding"]
        assert all(m.get("generation_defaults") is None for m in embedding)


@pytest.mark.parametrize("surface", list(SURFACES))
async def test_omitted_fields_get_the_models_defaults(app: Any, tokenizer: Any,
                                                      monkeypatch: pytest.MonkeyPatch,
                                                      surface: str) -> None:
    async with app_stating(app, tokenizer, monkeypatch, STATED, min_p=0.2) as api:
        p = await sent(api, surface)
        assert (p.temperature, p.top_p, p.top_k, p.min_p, p.repetition_penalty) == \
            pytest.approx((0.3, 0.85, 30, 0.2, 1.0))


@pytest.mark.parametrize("surface", ["chat", "messages", "completions"])
async def test_explicit_zeros_win_over_the_models_defaults(app: Any, tokenizer: Any,
                                                           monkeypatch: pytest.MonkeyPatch,
                                                           surface: str) -> None:
    async with app_stating(app, tokenizer, monkeypatch, STATED) as api:
        p = await sent(api, surface, temperature=0, top_k=0)
        assert (p.temperature, p.top_k, p.top_p) == pytest.approx((0.0, 0, 0.85))


async def test_responses_temperature_zero_wins(app: Any, tokenizer: Any,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    async with app_stating(app, tokenizer, monkeypatch, STATED) as api:
        p = await sent(api, "responses", temperature=0, top_p=1)
        assert (p.temperature, p.top_p, p.top_k) == pytest.approx((0.0, 1.0, 30))


async def test_a_model_stating_nothing_gets_flags_then_the_fallback(
        app: Any, tokenizer: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    async with app_stating(app, tokenizer, monkeypatch, None, temperature=0.0) as api:
        p = await sent(api, "chat")
        assert p.temperature == 0.0 and p.min_p == FALLBACK["min_p"] and p.top_k == 0
        models = (await api.client.get("/v1/models")).json()["data"]
        d = next(m for m in models if m["type"] == "chat")["generation_defaults"]
        assert d["sources"]["temperature"] == "flag" and d["sources"]["top_p"] == "server"
        assert d["model_defaults_from"] is None
