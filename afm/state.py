"""What the running server holds: the chat models (afm.model_pool), embedding models, the
file/batch store and its worker. Created in the app's lifespan; handlers reach it through
:func:`get_state`, and a request for a chat model through :meth:`AppState.for_model`."""

from __future__ import annotations

import asyncio
import logging
import os
import platform
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from afm import heap
from afm.context import lease_scope
from afm.drain import Drain
from afm.errors import NotFound, ServiceUnavailable
from afm.model_catalog import DEFAULT_MODEL_ID, chat_catalogue, model_id_for
from afm.model_pool import ModelPool
from afm.settings import Settings
from serving.background import BackgroundRuns
from serving.model_context import ModelContext

if TYPE_CHECKING:
    from afm.batch_worker import BatchWorker, Execute
    from afm.model_pool import LoadedModel
    from afm.storage import Store
    from engine.chat_engine import ChatEngine
    from engine.embeddings import EmbeddingModel
    from engine.speech import SpeechBackend

log = logging.getLogger("afm")

BUILTIN_EMBEDDING_ID = "sentence-transformers/all-MiniLM-L6-v2"
EMBEDDING_ALIASES = {"all-MiniLM-L6-v2": BUILTIN_EMBEDDING_ID,
                     "all-minilm-l6-v2": BUILTIN_EMBEDDING_ID}


__all__ = ["DEFAULT_MODEL_ID", "AppState", "get_state", "model_id_for"]


def embedding_catalogue(extra: list[str]) -> tuple[dict[str, str], dict[str, str]]:
    """Ids of the served embedding models -> what to load, and other accepted names -> id.

    The builtin model comes first. A local folder is served under its folder's name (as a chat
    model folder is) unless that name is taken; its path as given stays accepted as an alias.
    """
    sources = {BUILTIN_EMBEDDING_ID: BUILTIN_EMBEDDING_ID}
    aliases = dict(EMBEDDING_ALIASES)
    for spec in extra:
        if spec in sources or spec in aliases:
            continue
        path = Path(spec).expanduser()
        name = os.path.basename(os.path.abspath(path)) if path.is_dir() else spec
        if name in sources or name in aliases:
            name = spec
        sources[name] = spec
        if name != spec:
            aliases[spec] = name
    return sources, aliases


class AppState:
    """Everything a handler needs, owned by one server process.

    It is the process registry serving reads as its :class:`serving.model_context.Server`; a
    request gets a frozen :class:`~serving.model_context.ModelContext` bound to the chat model
    it names from :meth:`for_model`.

    ``batch_executor`` runs one stored batch line (``(endpoint, body, request_id) ->
    (status, body)``); by default :func:`serving.batch.execute_line` on this state, as a live
    request would run; the in-process tests pass a scripted one.
    """

    def __init__(self, settings: Settings, *, batch_executor: Execute | None = None) -> None:
        self.settings = settings
        self.batch_executor: Execute = batch_executor or self._execute_line
        self.started_at = int(time.time())
        self.pool = ModelPool(settings, chat_catalogue(settings.models, settings.models_dir))
        self.tool_format = settings.tool_call_parser or "hermes"
        self.model_id = self.pool.default.id
        self.backend_available = False
        self.backend_detail: str | None = "not started"
        self._embedding_sources, self._embedding_aliases = embedding_catalogue(
            settings.embedding_models)
        self.embedding_ids = list(self._embedding_sources)
        self._embeddings: dict[str, EmbeddingModel] = {}
        self._embedding_lock = asyncio.Lock()
        self.store: Store | None = None
        self.worker: BatchWorker | None = None
        self.speech: SpeechBackend | None = None
        self.background = BackgroundRuns()
        self.drain = Drain(settings.shutdown_timeout)

    # ------------------------------------------------------------------ lifecycle
    async def start(self) -> None:
        from afm.speech import build_speech

        self.speech = build_speech(self.settings)  # flags checked before the chat model loads
        if self.settings.backend == "foundation":
            self.backend_detail = (
                "Apple Foundation Models need macOS 26 on Apple silicon; this host is "
                f"{platform.system()} {platform.machine()}")
            log.warning("backend foundation unavailable: %s", self.backend_detail)
        else:
            with lease_scope():  # the default model loads at start-up
                default = await self.pool.acquire(None)
            if self.settings.guided_json is not None and self.settings.grammar_constraints:
                self._check_guided_json(default)
            self.backend_available = True
            self.backend_detail = None
        await self._start_batches()

    async def for_model(self, name: str | None, *, new_request: bool = True) -> ModelContext:
        """This state as a request for chat model ``name`` sees it: bound to that model,
        loaded if needed and leased until the request ends (404 model_not_found for an unknown
        name among several models; 503 when it cannot be loaded or no room frees). On a
        backend that cannot serve, an unbound context (whose require_engine answers 503).
        ``new_request=False``: a further hold for a request already routed (not counted again
        in afm:model_requests_total)."""
        if not self.backend_available:
            return ModelContext(self, self.model_id, tool_format=self.tool_format)
        model = await self.pool.acquire(name, new_request=new_request)
        return ModelContext(self, model.id, model.engine, model.grammar, model.tool_format,
                            model.defaults)

    def cancel(self, request_id: str) -> bool:
        """Cancel an in-flight generation on whichever loaded model runs it."""
        if not self.backend_available:
            self.require_engine()  # 503 on a backend that cannot serve
        return any([m.engine.cancel(request_id) for m in self.pool.resident()])

    def _check_guided_json(self, model: LoadedModel) -> None:
        """Refuse to start with a --guided-json schema that could never be enforced."""
        from engine.grammar import GrammarError, build_constraint

        try:
            build_constraint(model.grammar, response_format={
                "type": "json_schema",
                "json_schema": {"name": "guided_json", "schema": self.settings.guided_json}},
                tools=None, tool_choice=None, parallel_tool_calls=True,
                tool_format=model.tool_format, reasoning=False)
        except GrammarError as exc:
            from afm.startup import EXIT_USAGE, StartupError

            raise StartupError(EXIT_USAGE, f"afm: --guided-json cannot be enforced: {exc}; "
                               "simplify the schema or pass --disable-grammar-constraints"
                               ) from None

    async def _execute_line(self, endpoint: str, body: dict[str, Any],
                            request_id: str) -> tuple[int, dict[str, Any]]:
        from serving.batch import execute_line

        return await execute_line(self, endpoint, body, request_id)

    async def _start_batches(self) -> None:
        from afm.batch_validation import contract_violations
        from afm.batch_worker import BatchWorker
        from afm.storage import Store

        data_dir = Path(self.settings.data_dir)
        self.store = await asyncio.to_thread(Store, data_dir)
        self.worker = BatchWorker(self.store, self.batch_executor, contract_violations,
                                  concurrency=self.settings.batch_concurrency)
        await self.worker.start()

    async def stop(self) -> None:
        await self.background.stop()  # first: each stores itself `cancelled` while it can
        if self.worker is not None:
            await self.worker.stop()
        if self.speech is not None:
            await asyncio.to_thread(self.speech.stop)
        await self.pool.stop()  # every engine thread
        if self.store is not None:
            self.store.close()

    # ------------------------------------------------------------------ accessors
    def require_engine(self) -> ChatEngine:
        """503 when the backend cannot serve on this host (the process state binds no chat
        model: a request's :meth:`for_model` context does)."""
        return ModelContext(self, self.model_id).require_engine()

    def embedding_id(self, name: str) -> str | None:
        """The id of the embedding model served as ``name`` (an id or alias), else None."""
        name = self._embedding_aliases.get(name, name)
        return name if name in self._embedding_sources else None

    def resolve_embedding_id(self, requested: str | None) -> str:
        """The embedding model a request names (the builtin when unnamed); 404 if unknown."""
        if not requested:
            return BUILTIN_EMBEDDING_ID
        name = self.embedding_id(requested)
        if name is None:
            raise NotFound(f"Unknown embedding model '{requested}'; see GET /v1/models",
                           param="model", code="model_not_found")
        return name

    def embedding_loaded(self, model_id: str) -> bool:
        return model_id in self._embeddings

    async def embedding_model(self, model_id: str) -> EmbeddingModel:
        """Load an embedding model on first use (503 embedding_error when it cannot load)."""
        async with self._embedding_lock:
            if model_id not in self._embeddings:
                from engine.embeddings import EmbeddingLoadError, EmbeddingModel

                try:
                    self._embeddings[model_id] = await asyncio.to_thread(
                        EmbeddingModel.load, self._embedding_sources[model_id],
                        self.settings.cpu_weights)
                    await asyncio.to_thread(heap.settle)
                except (EmbeddingLoadError, OSError) as exc:
                    raise ServiceUnavailable(
                        f"Embedding model '{model_id}' cannot be loaded: {exc}",
                        type="embedding_error", code="embedding_error") from exc
            return self._embeddings[model_id]

    def health(self) -> dict[str, Any]:
        """The contract's ``Health``; ``status`` is ``unavailable`` once a sharded group failed,
        ``draining`` while the server drains to stop."""
        from engine import distributed

        sharding = distributed.describe()
        failed = sharding is not None and sharding["status"] == "failed"
        status = "unavailable" if failed else "draining" if self.drain.active else "healthy"
        return {
            "status": status,
            "timestamp": int(time.time()),
            "version": __import__("afm").__version__,
            "model": self.model_id if self.pool.loaded(self.model_id) else None,
            "loaded_models": self.pool.loaded_ids(),
            "backend": {"name": self.settings.backend,
                        "available": self.backend_available and not failed,
                        "detail": sharding["reason"] if failed else self.backend_detail},
            "cpu_weights": self.weights_choice(),
            "sharding": sharding,
        }

    def weights_choice(self) -> dict[str, Any] | None:
        """What the CPU weight policy chose for the default model; None while it is not
        loaded."""
        default = self.pool.loaded(self.model_id)
        return default.engine.weights_choice.as_dict() if default is not None else None


def get_state() -> AppState:
    """The AppState of the app serving the current request."""
    from connexion import request

    return request.state.afm
