"""Model operations: listModels, retrieveModel."""

from __future__ import annotations

from starlette.responses import Response

from afm.errors import NotFound
from afm.state import AppState, get_state
from generated.models import GenerationDefaults, Model, ModelCapabilities, ModelList
from handlers.replies import json_response
from serving.capabilities import capabilities


def _models(state: AppState) -> list[Model]:
    """Every offered chat model (loaded or not), then the embedding models."""
    models: list[Model] = []
    if state.backend_available:
        for entry in state.pool.entries:
            loaded = state.pool.loaded(entry.id)
            models.append(Model(id=entry.id, object="model", created=state.started_at,
                                owned_by="afm", type="chat", loaded=loaded is not None,
                                max_context_length=loaded.engine.max_context if loaded else None,
                                capabilities=ModelCapabilities(**capabilities(loaded.engine))
                                if loaded else None,
                                generation_defaults=_defaults(state, entry.id)))
    for model_id in state.embedding_ids:
        models.append(Model(id=model_id, object="model", created=state.started_at,
                            owned_by="afm", max_context_length=None, type="embedding",
                            loaded=state.embedding_loaded(model_id)))
    return models


def _defaults(state: AppState, model_id: str) -> GenerationDefaults | None:
    defaults = state.pool.generation_defaults(model_id)
    return GenerationDefaults(**defaults.as_dict()) if defaults is not None else None


async def list_models() -> Response:
    return json_response(ModelList(object="list", data=_models(get_state())))


async def retrieve_model(model_id: str) -> Response:
    state = get_state()
    wanted = state.embedding_id(model_id) or state.pool.id_named(model_id) or model_id
    for model in _models(state):
        if model.id == wanted:
            return json_response(model)
    raise NotFound(f"No model with id '{model_id}'", param="model_id", code="model_not_found")
