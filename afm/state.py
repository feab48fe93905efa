"""What the running server holds: the chat engine, embedding models, the file/batch store
and its worker. Created in the app's lifespan; handlers reach it through :func:`get_state`."""

from __future__ import annotations

import asyncio
import logging
import os
import platform
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from afm.context import note_usage
from afm.errors import NotFound, ServiceUnavailable
from afm.settings import Settings

if TYPE_CHECKING:
    from afm.batch_worker import BatchWorker
    from afm.storage import Store
    from engine.chat_engine import ChatEngine
    from engine.embeddings import EmbeddingModel
    from engine.grammar import GrammarCompilerCache

log = logging.getLogger("afm")

DEFAULT_MODEL_ID = "afm-default"
BUILTIN_EMBEDDING_ID = "sentence-transformers/all-MiniLM-L6-v2"
EMBEDDING_ALIASES = {"all-MiniLM-L6-v2": BUILTIN_EMBEDDING_ID,
                     "all-minilm-l6-v2": BUILTIN_EMBEDDING_ID}


def model_id_for(model: str | None) -> str:
    """The id a model is served under: a local folder's name, a hub id as given, or the
    embedded default's name."""
    if model is None:
        return DEFAULT_MODEL_ID
    path = Path(model).expanduser()
    if path.is_dir():
        return path.resolve().name
    return model


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
    """Everything a handler needs, owned by one server process."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.started_at = int(time.time())
        self.engine: ChatEngine | None = None
        self.grammar: GrammarCompilerCache | None = None
        self.tool_format = settings.tool_call_parser or "hermes"
        self.model_id = model_id_for(settings.model)
        self.backend_available = False
        self.backend_detail: str | None = "not started"
        self._embedding_sources, self._embedding_aliases = embedding_catalogue(
            settings.embedding_models)
        self.embedding_ids = list(self._embedding_sources)
        self._embeddings: dict[str, EmbeddingModel] = {}
        self._embedding_lock = asyncio.Lock()
        self.store: Store | None = None
        self.worker: BatchWorker | None = None

    # ------------------------------------------------------------------ lifecycle
    async def start(self) -> None:
        if self.settings.backend == "foundation":
            self.backend_detail = (
                "Apple Foundation Models need macOS 26 on Apple silicon; this host is "
                f"{platform.system()} {platform.machine()}")
            log.warning("backend foundation unavailable: %s", self.backend_detail)
        else:
            await asyncio.to_thread(self._load_engine)
        await self._start_batches()

    def _load_engine(self) -> None:
        from engine.chat_engine import ChatEngine
        from engine.config import EngineConfig
        from engine.grammar import GrammarCompilerCache
        from engine.tool_calls import detect_tool_format

        path = self.settings.model
        if path is None:
            from modelbuilder import ensure_model

            path = str(ensure_model("default"))
            log.warning("no --model given: serving the embedded default model (random "
                        "weights, its output is noise) from %s", path)
        config = EngineConfig(
            model=path,
            concurrent=self.settings.concurrent,
            queue_timeout=self.settings.queue_timeout,
            prefix_cache=self.settings.prefix_caching,
            prefix_cache_bytes=self.settings.prefix_cache_bytes,
            prefill_step_size=self.settings.prefill_step_size,
            max_logprobs=self.settings.max_logprobs,
            cpu_weights=self.settings.cpu_weights,
        )
        self.engine = ChatEngine(config)
        hf_tokenizer = getattr(self.engine.tokenizer, "_tokenizer", self.engine.tokenizer)
        self.grammar = GrammarCompilerCache(hf_tokenizer, self.engine.vocab_size,
                                            stop_token_ids=sorted(self.engine.eos_token_ids))
        template = getattr(hf_tokenizer, "chat_template", None) or ""
        self.tool_format = self.settings.tool_call_parser or detect_tool_format(
            template if isinstance(template, str) else str(template),
            getattr(self.engine, "model_type", None))
        if self.settings.guided_json is not None and self.settings.grammar_constraints:
            self._check_guided_json()
        self.backend_available = True
        self.backend_detail = None
        log.info("chat model %s loaded (tool format %s)", self.model_id, self.tool_format)

    def _check_guided_json(self) -> None:
        """Refuse to start with a --guided-json schema that could never be enforced."""
        from engine.grammar import GrammarError, build_constraint

        assert self.grammar is not None
        try:
            build_constraint(self.grammar, response_format={
                "type": "json_schema",
                "json_schema": {"name": "guided_json", "schema": self.settings.guided_json}},
                tools=None, tool_choice=None, parallel_tool_calls=True,
                tool_format=self.tool_format, reasoning=False)
        except GrammarError as exc:
            from afm.startup import EXIT_USAGE, StartupError

            raise StartupError(EXIT_USAGE, f"afm: --guided-json cannot be enforced: {exc}; "
                               "simplify the schema or pass --disable-grammar-constraints"
                               ) from None

    async def _start_batches(self) -> None:
        from afm.batch_validation import contract_violations
        from afm.batch_worker import BatchWorker
        from afm.storage import Store
        from serving.batch import execute_line

        data_dir = Path(self.settings.data_dir)
        self.store = await asyncio.to_thread(Store, data_dir)
        self.worker = BatchWorker(
            self.store,
            lambda endpoint, body, request_id: execute_line(self, endpoint, body, request_id),
            contract_violations,
            concurrency=self.settings.batch_concurrency,
        )
        await self.worker.start()

    async def stop(self) -> None:
        if self.worker is not None:
            await self.worker.stop()
        if self.engine is not None:
            await asyncio.to_thread(self.engine.shutdown)
        if self.store is not None:
            self.store.close()

    # ------------------------------------------------------------------ accessors
    def require_engine(self) -> ChatEngine:
        """The chat engine, or 503 when the backend cannot serve on this host."""
        if self.engine is None:
            raise ServiceUnavailable(
                f"The {self.settings.backend} backend is unavailable: {self.backend_detail}",
                type="backend_unavailable", code="backend_unavailable")
        note_usage(model=self.model_id)  # the access log's model
        return self.engine

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

    async def embedding_model(self, model_id: str) -> EmbeddingModel:
        """Load an embedding model on first use (503 embedding_error when it cannot load)."""
        async with self._embedding_lock:
            if model_id not in self._embeddings:
                from engine.embeddings import EmbeddingLoadError, EmbeddingModel

                try:
                    self._embeddings[model_id] = await asyncio.to_thread(
                        EmbeddingModel.load, self._embedding_sources[model_id],
                        self.settings.cpu_weights)
                except (EmbeddingLoadError, OSError) as exc:
                    raise ServiceUnavailable(
                        f"Embedding model '{model_id}' cannot be loaded: {exc}",
                        type="embedding_error", code="embedding_error") from exc
            return self._embeddings[model_id]

    def health(self) -> dict[str, Any]:
        return {
            "status": "healthy",
            "timestamp": int(time.time()),
            "version": __import__("afm").__version__,
            "model": self.model_id if self.engine is not None else None,
            "backend": {"name": self.settings.backend, "available": self.backend_available,
                        "detail": self.backend_detail},
            "cpu_weights": self.weights_choice(),
        }

    def weights_choice(self) -> dict[str, Any] | None:
        """What the CPU weight policy chose for the chat model; None before it loads."""
        return self.engine.weights_choice.as_dict() if self.engine is not None else None


def get_state() -> AppState:
    """The AppState of the app serving the current request."""
    from connexion import request

    return request.state.afm
