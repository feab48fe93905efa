"""System operations: getHealth, getMetrics."""

from __future__ import annotations

from starlette.responses import Response

from afm.state import get_state
from generated.models import Health
from handlers.replies import json_response


async def get_health() -> Response:
    return json_response(Health.model_validate(get_state().health()))


async def get_metrics() -> Response:
    from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

    from engine.metrics import REGISTRY

    return Response(generate_latest(REGISTRY), media_type=CONTENT_TYPE_LATEST)
