"""Admission of a request on the engine (capacity errors -> 503 before any output), the
errors of a failed generation and the access log's token counts (see :mod:`serving.driver`)."""

from __future__ import annotations

from collections.abc import AsyncIterator

from engine.types import (
    EngineDrainingError,
    EngineUnavailableError,
    GenerationEvent,
    ServerBusyError,
)
from serving.context import note_usage
from serving.errors import ApiError, ShuttingDown, backend_unavailable, server_busy


async def first_event(stream: AsyncIterator[GenerationEvent],
                      queue_timeout: float) -> GenerationEvent:
    """Wait for admission and the first event, mapping capacity failures, a server that drains
    to stop and a sharded group lost before any output to 503."""
    try:
        event = await anext(stream)
    except ServerBusyError as exc:
        raise server_busy(queue_timeout) from exc
    except EngineDrainingError as exc:
        raise ShuttingDown() from exc
    except EngineUnavailableError as exc:
        from engine.distributed import lost_reason

        raise backend_unavailable(str(exc), group_failed=lost_reason() is not None) from exc
    check_group_lost(event)
    return event


def check_group_lost(event: GenerationEvent) -> None:
    """A generation that ended in an error because its sharded group failed: 503
    ``backend_unavailable`` with Retry-After, as for the requests that come after it."""
    if event.finish_reason != "error":
        return
    from engine.distributed import lost_reason

    if lost_reason() is not None:
        raise backend_unavailable(f"Generation failed: {event.error}", group_failed=True)


def generation_failed(message: str) -> ApiError:
    """The error for a generation the engine failed: 503 when its sharded group was lost,
    else 500."""
    from engine.distributed import lost_reason

    if lost_reason() is not None:
        return backend_unavailable(f"Generation failed: {message}", group_failed=True)
    return ApiError(f"Generation failed: {message}")


def note_final(event: GenerationEvent) -> None:
    """Hand a finished generation's token counts to the access log (once per generation)."""
    if event.stats is not None:
        note_usage(tokens_in=event.stats.prompt_tokens, tokens_out=event.stats.completion_tokens)


def finish_reason(reason: str | None, has_calls: bool) -> str:
    """The engine's reason, as `tool_calls` when a turn that stopped made calls."""
    reason = reason or "stop"
    return "tool_calls" if has_calls and reason == "stop" else reason
