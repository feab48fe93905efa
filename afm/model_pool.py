"""The loaded chat models: each with its own engine (thread, slots, prefix cache), loaded on
first use, unloaded least-recently-used first past `--max-loaded-models`, never while it has
requests in flight.

A request takes a lease on its model (:meth:`ModelPool.acquire`); the lease ends with the
request's lease scope (:func:`afm.context.lease_scope`: the HTTP request, a batch line, a
background response). A model is busy while it has a lease or a request on its engine. When a
load needs room and every loaded model is busy, the load waits for one to become idle, up to
`--queue-timeout`, then answers 503 `server_busy` with Retry-After.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from afm import heap
from afm.context import on_scope_end
from afm.errors import NotFound, ServiceUnavailable, ShuttingDown, server_busy
from afm.model_catalog import ModelEntry, resolve_model_path
from afm.settings import Settings

if TYPE_CHECKING:
    from engine.chat_engine import ChatEngine
    from engine.config import EngineConfig
    from engine.grammar import GrammarCompilerCache
    from serving.sampling import GenerationDefaults

log = logging.getLogger("afm")

IDLE_POLL_SECONDS = 0.05
"""How often a load waiting for room checks whether a loaded model became idle."""


@dataclass
class LoadedModel:
    """One resident chat model: its engine, grammar compiler cache and tool-call format."""

    entry: ModelEntry
    engine: ChatEngine
    grammar: GrammarCompilerCache
    tool_format: str
    loaded_at: float = field(default_factory=time.time)
    last_used: float = field(default_factory=time.monotonic)
    leases: int = 0
    defaults: GenerationDefaults | None = None
    """Its resolved generation defaults (set by the pool once it is loaded)."""

    @property
    def id(self) -> str:
        return self.entry.id

    def busy(self) -> bool:
        return self.leases > 0 or bool(self.engine.active_request_ids())


def engine_config(entry: ModelEntry, settings: Settings) -> EngineConfig:
    """The engine configuration of one chat model (sharded when launched as a group)."""
    from engine import distributed
    from engine.config import EngineConfig

    return EngineConfig(
        model=resolve_model_path(entry.source),
        concurrent=settings.concurrent,
        queue_timeout=settings.queue_timeout,
        prefix_cache=settings.prefix_caching,
        prefix_cache_bytes=settings.prefix_cache_bytes,
        prefill_step_size=settings.prefill_step_size,
        prompt_cache_dir=str(settings.prompt_cache_dir) if settings.prompt_cache_dir else None,
        prompt_cache_bytes=settings.prompt_cache_bytes,
        kv_bits=settings.kv_bits,
        max_context=settings.max_context,
        max_logprobs=settings.max_logprobs,
        cpu_weights=settings.cpu_weights,
        sharded=distributed.world_size() > 1,
        shard_mode=settings.shard_mode,
        spec_ngram=settings.spec_ngram,
        draft_model=resolve_model_path(settings.draft_model) if settings.draft_model else None,
        num_draft_tokens=settings.num_draft_tokens,
    )


def load_model(entry: ModelEntry, settings: Settings) -> LoadedModel:
    """Load one chat model (blocking: run it off the event loop)."""
    from engine.chat_engine import ChatEngine
    from engine.grammar import GrammarCompilerCache
    from engine.tool_calls import detect_tool_format

    engine = ChatEngine(engine_config(entry, settings))
    hf_tokenizer = getattr(engine.tokenizer, "_tokenizer", engine.tokenizer)
    grammar = GrammarCompilerCache(hf_tokenizer, engine.vocab_size,
                                   stop_token_ids=sorted(engine.eos_token_ids))
    template = getattr(hf_tokenizer, "chat_template", None) or ""
    tool_format = settings.tool_call_parser or detect_tool_format(
        template if isinstance(template, str) else str(template),
        getattr(engine, "model_type", None))
    heap.settle()  # the model's objects live as long as it does: out of the collector's way
    return LoadedModel(entry, engine, grammar, tool_format)


def free_memory() -> None:
    """Return what unloaded models held to the system (blocking; best effort)."""
    heap.release()
    try:
        import mlx.core as mx

        mx.clear_cache()
    except Exception:  # noqa: BLE001 - freeing is best effort
        pass


class ModelPool:
    """The offered chat models, the resident ones among them, and their leases."""

    def __init__(self, settings: Settings, entries: list[ModelEntry]) -> None:
        self.settings = settings
        self.entries = entries
        self.max_loaded = settings.max_loaded_models
        self._by_name: dict[str, ModelEntry] = {}
        for entry in entries:
            for name in entry.names():
                self._by_name.setdefault(name, entry)
        self._loaded: dict[str, LoadedModel] = {}
        self._loading: dict[str, asyncio.Task[LoadedModel]] = {}
        self._room = asyncio.Lock()  # one load decides on evictions at a time
        self._lock = threading.Lock()  # guards leases and the resident set
        self._wanted: dict[str, int] = {}  # requests between a finished load and their lease
        self._defaults: dict[str, GenerationDefaults | None] = {}  # model id -> before a load
        self.draining = False  # stopping: no more loads; engines admit nothing new

    @property
    def default(self) -> ModelEntry:
        return self.entries[0]

    # ------------------------------------------------------------------ names
    def entry_for(self, name: str | None) -> ModelEntry:
        """The model a request's `model` names. With one model it serves every name; with
        several, no name means the first and an unknown one is 404 model_not_found."""
        if len(self.entries) == 1 or not name:
            return self.default
        entry = self._by_name.get(name)
        if entry is None:
            raise NotFound(f"Unknown model '{name}'; see GET /v1/models", param="model",
                           code="model_not_found")
        return entry

    def id_named(self, name: str) -> str | None:
        """The id of the chat model served as ``name`` (an id or alias), else None."""
        entry = self._by_name.get(name)
        return entry.id if entry else None

    def resolve_defaults(self, entry: ModelEntry, loaded_path: str | None = None
                         ) -> GenerationDefaults | None:
        """``entry``'s generation defaults: flags, then what the model states, then the
        server's fallback (None while they cannot be known: a hub id not downloaded)."""
        from afm.generation_defaults import find
        from serving.sampling import resolve_defaults

        found = find(entry.source, loaded_path)
        return resolve_defaults(self.settings, found.defaults) if found.known else None

    def generation_defaults(self, model_id: str) -> GenerationDefaults | None:
        """What `GET /v1/models` reports for a chat model: the loaded model's defaults, else
        those its files state (read once, nothing loaded)."""
        loaded = self._loaded.get(model_id)
        if loaded is not None and loaded.defaults is not None:
            return loaded.defaults
        if model_id not in self._defaults:
            entry = self.entry_for(model_id)
            self._defaults[model_id] = self.resolve_defaults(entry)
        return self._defaults[model_id]

    def loaded(self, model_id: str) -> LoadedModel | None:
        return self._loaded.get(model_id)

    def resident(self) -> list[LoadedModel]:
        """The loaded models, least recently used first."""
        with self._lock:
            models = list(self._loaded.values())
        return sorted(models, key=lambda m: m.last_used)

    def loaded_ids(self) -> list[str]:
        """Ids of the loaded models, least recently used first."""
        return [m.id for m in self.resident()]

    # ------------------------------------------------------------------ leases
    async def acquire(self, name: str | None, *, new_request: bool = True) -> LoadedModel:
        """The model a request names, loaded if needed, leased until the current lease scope
        ends (404 for an unknown name, 503 when it cannot be loaded or no room frees).
        ``new_request=False`` takes a further lease for a request already counted."""
        entry = self.entry_for(name)
        model = self._loaded.get(entry.id)
        if model is None:
            if self.draining:
                raise ShuttingDown()
            self._wanted[entry.id] = self._wanted.get(entry.id, 0) + 1
            try:
                model = await self._load_shared(entry)
            finally:
                self._wanted[entry.id] -= 1
        with self._lock:
            model.leases += 1
            model.last_used = time.monotonic()
        on_scope_end(lambda: self._release(model))
        if new_request:
            _count_request(model.id)
        return model

    def _release(self, model: LoadedModel) -> None:
        with self._lock:
            model.leases -= 1
            model.last_used = time.monotonic()

    # ------------------------------------------------------------------ loading
    async def _load_shared(self, entry: ModelEntry) -> LoadedModel:
        """Load ``entry`` once, however many requests wait for it."""
        task = self._loading.get(entry.id)
        if task is None:
            task = asyncio.ensure_future(self._load(entry))
            self._loading[entry.id] = task
            task.add_done_callback(lambda _: self._loading.pop(entry.id, None))
        return await asyncio.shield(task)

    async def _load(self, entry: ModelEntry) -> LoadedModel:
        async with self._room:
            if entry.id in self._loaded:
                return self._loaded[entry.id]
            await self._make_room()
            log.info("loading chat model %s from %s", entry.id, entry.source or "the embedded "
                     "default")
            started = time.monotonic()
            try:
                model = await asyncio.to_thread(load_model, entry, self.settings)
            except Exception as exc:
                log.error("chat model %s failed to load: %s", entry.id, exc)
                raise ServiceUnavailable(f"Model '{entry.id}' cannot be loaded: {exc}",
                                         type="model_load_error",
                                         code="model_load_error") from exc
            if model.defaults is None:
                from serving.sampling import resolve_defaults

                path = getattr(model.engine, "model_id", None)
                model.defaults = (await asyncio.to_thread(self.resolve_defaults, entry, path)
                                  or resolve_defaults(self.settings))
            self._defaults.pop(entry.id, None)
            if self.draining:
                model.engine.drain()
            with self._lock:
                self._loaded[entry.id] = model
            _count_load(entry.id, len(self._loaded))
            log.info("chat model %s loaded in %.2fs (tool format %s); %d loaded", entry.id,
                     time.monotonic() - started, model.tool_format, len(self._loaded))
            log.info("chat model %s generation defaults (a request's own fields win): %s",
                     entry.id, model.defaults.describe())
            return model

    async def _make_room(self) -> None:
        """Unload idle models, least recently used first, until one more fits; wait (up to
        the queue timeout) while every loaded model is busy."""
        deadline = time.monotonic() + self.settings.queue_timeout
        while self.max_loaded and len(self._loaded) >= self.max_loaded:
            victim = self._idle_victim()
            if victim is not None:
                await self._unload(victim, "least recently used, to make room")
                continue
            if self.draining:
                raise ShuttingDown()
            if time.monotonic() >= deadline:
                raise server_busy(self.settings.queue_timeout)
            await asyncio.sleep(IDLE_POLL_SECONDS)

    def _idle_victim(self) -> str | None:
        """The least recently used loaded model with nothing in flight, if any."""
        with self._lock:
            idle = [(m.last_used, m.id) for m in self._loaded.values()
                    if not m.busy() and not self._wanted.get(m.id)]
        return min(idle)[1] if idle else None

    async def _unload(self, model_id: str, why: str) -> None:
        """Unlist a model, stop its engine thread and free its memory."""
        with self._lock:
            model = self._loaded.pop(model_id)
        await asyncio.to_thread(model.engine.shutdown)
        del model  # views of finished requests may still hold it until they are dropped
        await asyncio.to_thread(free_memory)
        _count_unload(model_id, len(self._loaded))
        log.info("chat model %s unloaded (%s); %d loaded", model_id, why, len(self._loaded))

    def drain(self) -> None:
        """Stopping: load nothing more; every engine refuses queued and new requests and runs
        the admitted ones on."""
        self.draining = True
        for model in self.resident():
            model.engine.drain()

    def cancel_all(self) -> None:
        """Cancel every request on every engine (finish_reason "cancelled")."""
        for model in self.resident():
            model.engine.cancel_all()

    def active(self) -> int:
        """Requests on the engines now (queued or running)."""
        return sum(len(m.engine.active_request_ids()) for m in self.resident())

    async def stop(self) -> None:
        """Stop every engine thread."""
        for task in list(self._loading.values()):
            task.cancel()
        for model_id in list(self._loaded):
            await self._unload(model_id, "shutdown")


def _count_request(model_id: str) -> None:
    from engine import metrics

    metrics.model_requests.labels(model=model_id).inc()


def _count_load(model_id: str, loaded: int) -> None:
    from engine import metrics

    metrics.model_loads.labels(model=model_id).inc()
    metrics.model_loaded.labels(model=model_id).set(1)
    metrics.models_loaded.set(loaded)


def _count_unload(model_id: str, loaded: int) -> None:
    from engine import metrics

    metrics.model_unloads.labels(model=model_id).inc()
    metrics.model_loaded.labels(model=model_id).set(0)
    metrics.models_loaded.set(loaded)
