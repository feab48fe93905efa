"""The in-process API tier: the real app (`create_app`, middleware, contract validation,
handlers, serving) over an httpx ASGI transport, on a scripted engine (tests.scripted) with the
test model's real tokenizer. No subprocess, no model weights, no port."""

from __future__ import annotations

import asyncio
import warnings
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest

from afm import model_pool
from afm.settings import Settings
from tests.scripted import ScriptedEngine

T = TypeVar("T")

with warnings.catch_warnings():  # connexion imports deprecated jsonschema names
    warnings.filterwarnings("ignore", "jsonschema", DeprecationWarning)
    from afm.app import create_app


@pytest.fixture(scope="session")
def tokenizer() -> Any:
    from mlx_lm.utils import load_tokenizer

    from modelbuilder import ensure_model

    return load_tokenizer(ensure_model("tiny"))


@asynccontextmanager
async def lifespan(app: Any) -> AsyncIterator[Any]:
    """Run the app's lifespan (startup before, shutdown after) and hand back an ASGI app that
    gives each request the lifespan's state, as a server does."""
    state: dict[str, Any] = {}
    inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    outbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    scope = {"type": "lifespan", "asgi": {"version": "3.0", "spec_version": "2.0"},
             "state": state}
    task = asyncio.ensure_future(app(scope, inbox.get, outbox.put))
    await inbox.put({"type": "lifespan.startup"})
    started = await outbox.get()
    if started["type"] != "lifespan.startup.complete":
        raise RuntimeError(f"app failed to start: {started}")

    async def served(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] in ("http", "websocket"):
            scope = {**scope, "state": dict(state)}
        await app(scope, receive, send)

    served.state = state  # type: ignore[attr-defined]  # the AppState under "afm"
    try:
        yield served
    finally:
        await inbox.put({"type": "lifespan.shutdown"})
        await outbox.get()
        await task


@dataclass
class Api:
    """The client of one in-process app and the scripted engine behind it."""

    client: httpx.AsyncClient
    engine: ScriptedEngine
    state: dict[str, Any]

    @property
    def settings(self) -> Settings:
        """The running app's settings (the session app's: restore what a test changes, e.g.
        with monkeypatch.setattr)."""
        return self.state["afm"].settings

    async def post(self, path: str, body: dict[str, Any], **kw: Any) -> httpx.Response:
        return await self.client.post(path, json=body, **kw)


def settings(data_dir: Path) -> Settings:
    """The settings of the in-process apps."""
    return Settings(data_dir=data_dir, grammar_constraints=False, webui=False, no_speech=True,
                    queue_timeout=2.0)


@pytest.fixture(scope="session")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The session app's data directory (each lifespan opens and closes its store)."""
    return tmp_path_factory.mktemp("afm-data")


@pytest.fixture(scope="session")
def app(data_dir: Path) -> Any:
    """One app for the session (building it reads the contract: seconds); each test runs its
    own lifespan, so each gets a fresh server state and engine."""
    return create_app(settings(data_dir))


@asynccontextmanager
async def serve(app: Any, tokenizer: Any, monkeypatch: pytest.MonkeyPatch
                ) -> AsyncIterator[Api]:
    """One lifespan of ``app`` on a fresh scripted engine, and its client; the app's state
    stops when the block ends."""
    engine = ScriptedEngine(tokenizer, vocab_size=len(tokenizer))
    engine.eos_token_ids = set(tokenizer.eos_token_ids)

    def load(entry: Any, settings: Settings) -> model_pool.LoadedModel:
        return model_pool.LoadedModel(entry, engine, None, "hermes")  # type: ignore[arg-type]

    monkeypatch.setattr(model_pool, "load_model", load)
    async with lifespan(app) as served:
        transport = httpx.ASGITransport(app=served)
        async with httpx.AsyncClient(transport=transport, base_url="http://afm.test") as client:
            yield Api(client, engine, served.state)




@pytest.fixture
async def api(app: Any, tokenizer: Any, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Api]:
    async with serve(app, tokenizer, monkeypatch) as client:
        yield client
