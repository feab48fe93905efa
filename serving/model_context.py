"""What serving needs from the server process, and the frozen per-request model context.

:class:`Server` is what serving reads of the process (the app's ``afm.state.AppState`` provides
it): settings, the store, the background responses it runs, the embedding models, and
:meth:`Server.for_model`, which hands a request a :class:`ModelContext`: the chat model it is
bound to (engine, grammar compiler, tool-call format, id), fixed for the request's life.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from serving.background import BackgroundRuns
from serving.context import note_usage
from serving.errors import ServiceUnavailable

if TYPE_CHECKING:
    from engine.chat_engine import ChatEngine
    from engine.embeddings import EmbeddingModel
    from engine.grammar import GrammarCompilerCache
    from serving.sampling import GenerationDefaults


class ServingSettings(Protocol):
    """The server flags serving reads (the app's Settings)."""

    temperature: float | None
    top_p: float | None
    top_k: int | None
    min_p: float | None
    repetition_penalty: float | None
    presence_penalty: float | None
    frequency_penalty: float | None
    seed: int | None
    max_tokens: int
    stop: list[str]
    instructions: str | None
    streaming: bool
    max_logprobs: int
    guided_json: dict[str, Any] | None
    grammar_constraints: bool
    no_think: bool
    reasoning_effort: str | None
    default_chat_template_kwargs: dict[str, Any]
    raw: bool
    queue_timeout: float
    backend: str
    data_dir: Path


class Server(Protocol):
    """What serving reads of the server process."""

    settings: ServingSettings
    store: Any  # the app's Store (responses, files, batches), None without a data dir
    background: BackgroundRuns  # the background responses this process runs
    backend_available: bool
    backend_detail: str | None
    model_id: str

    async def for_model(self, name: str | None, *, new_request: bool = True
                        ) -> ModelContext: ...

    def require_engine(self) -> ChatEngine: ...

    def resolve_embedding_id(self, requested: str | None) -> str: ...

    async def embedding_model(self, model_id: str) -> EmbeddingModel: ...

    def weights_choice(self) -> dict[str, Any] | None: ...


@dataclass(frozen=True)
class ModelContext:
    """One request's chat model: ``engine`` is None on a backend that cannot serve (then
    :meth:`require_engine` answers 503)."""

    server: Server
    model_id: str
    engine: ChatEngine | None = None
    grammar: GrammarCompilerCache | None = None
    tool_format: str = "hermes"
    defaults: GenerationDefaults | None = None
    """The model's resolved generation defaults (flag, model, fallback); None: flags only."""

    @property
    def settings(self) -> ServingSettings:
        return self.server.settings

    @property
    def generation_defaults(self) -> GenerationDefaults:
        """What a request to this model gets for each sampling field it omits."""
        from serving.sampling import resolve_defaults

        return self.defaults or resolve_defaults(self.settings)

    @property
    def store(self) -> Any:
        return self.server.store

    @property
    def background(self) -> BackgroundRuns:
        return self.server.background

    def require_engine(self) -> ChatEngine:
        """The bound chat model's engine, or 503 when the backend cannot serve on this host."""
        if self.engine is None:
            raise ServiceUnavailable(
                f"The {self.settings.backend} backend is unavailable: "
                f"{self.server.backend_detail}",
                type="backend_unavailable", code="backend_unavailable")
        note_usage(model=self.model_id)  # the access log's model
        return self.engine

    async def for_model(self, name: str | None, *, new_request: bool = True) -> ModelContext:
        """Another hold, through the server, on chat model ``name``."""
        return await self.server.for_model(name, new_request=new_request)

    def weights_choice(self) -> dict[str, Any] | None:
        """What the CPU weight policy chose for this model (None while nothing is loaded)."""
        if self.engine is None:
            return self.server.weights_choice()
        return self.engine.weights_choice.as_dict()
