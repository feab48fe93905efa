"""System operations: getHealth, getMetrics."""

from __future__ import annotations

from starlette.responses import Response

from afm.errors import GROUP_FAILED_RETRY_AFTER, SHUTDOWN_RETRY_AFTER
from afm.state import get_state
from generated.models import Health
from handlers.replies import json_response


async def get_health() -> Response:
    health = Health.model_validate(get_state().health())
    if health.status.value == "unavailable":  # a sharded server's group failed
        return json_response(health, 503, {"Retry-After": GROUP_FAILED_RETRY_AFTER})
    if health.status.value == "draining":  # stopping: a load balancer sends elsewhere
        return json_response(health, 503, {"Retry-After": SHUTDOWN_RETRY_AFTER})
    return json_response(health)


async def get_metrics() -> Response:
    from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

    from engine.metrics import REGISTRY

    return Response(generate_latest(REGISTRY), media_type=CONTENT_TYPE_LATEST)
