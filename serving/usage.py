"""Usage, llama.cpp-style timings and the X-AFM-Profile payload, from engine stats."""

from __future__ import annotations

import os
import platform
from typing import TYPE_CHECKING, Any

from engine import distributed
from engine.types import GenerationStats

if TYPE_CHECKING:
    from serving.model_context import ModelContext

PROFILE_MODES = ("true", "1", "extended")
"""X-AFM-Profile values that add the profile; `extended` adds sampled series."""


def _rate(n: int, seconds: float) -> float:
    return round(n / seconds, 3) if seconds > 0 else 0.0


def usage(stats: GenerationStats) -> dict[str, Any]:
    """OpenAI usage plus AFM's timing extensions."""
    return {
        "prompt_tokens": stats.prompt_tokens,
        "completion_tokens": stats.completion_tokens,
        "total_tokens": stats.prompt_tokens + stats.completion_tokens,
        "prompt_tokens_details": {"cached_tokens": stats.cached_tokens},
        "prompt_time": round(stats.prompt_time, 6),
        "completion_time": round(stats.completion_time, 6),
        "total_time": round(stats.total_time, 6),
        "queue_time": round(stats.queue_time, 6),
        "prompt_tokens_per_second": _rate(stats.prompt_tokens - stats.cached_tokens,
                                          stats.prompt_time),
        "completion_tokens_per_second": _rate(stats.completion_tokens, stats.completion_time),
        "peak_memory_gib": round(stats.peak_memory_gib, 6),
    }


def timings(stats: GenerationStats) -> dict[str, Any]:
    """llama.cpp-style timings."""
    prompt_n = stats.prompt_tokens - stats.cached_tokens
    return {
        "prompt_n": prompt_n,
        "prompt_ms": round(stats.prompt_time * 1000, 3),
        "predicted_n": stats.completion_tokens,
        "predicted_ms": round(stats.completion_time * 1000, 3),
        "prompt_per_second": _rate(prompt_n, stats.prompt_time),
        "predicted_per_second": _rate(stats.completion_tokens, stats.completion_time),
        "cache_n": stats.cached_tokens,
    }


def _speculative(method: str | None, stats: GenerationStats) -> dict[str, Any] | None:
    drafted, accepted = stats.spec_draft_tokens, stats.spec_accepted_tokens
    if method is None:
        return None
    return {"method": method, "draft_tokens": drafted, "accepted_tokens": accepted,
            "acceptance_rate": round(accepted / drafted, 4) if drafted else None}


def afm_profile(state: ModelContext, stats: GenerationStats, mode: str) -> dict[str, Any]:
    """The X-AFM-Profile payload; Apple-only measurements are null on this host."""
    from engine.blas import preload_fast_blas

    engine_stats = state.engine.stats() if state.engine else {}
    gib = float(2**30)
    try:
        blas: str | None = preload_fast_blas().name
    except Exception:  # noqa: BLE001 - informational only
        blas = None
    rates = usage(stats)
    profile: dict[str, Any] = {
        "object": "afm_profile",
        "weights_memory_gib": round(engine_stats.get("weights_bytes", 0) / gib, 6),
        "kv_cache_memory_gib": round(engine_stats.get("kv_bytes", 0) / gib, 6),
        "peak_memory_gib": round(stats.peak_memory_gib, 6),
        "prefill_tokens_per_second": rates["prompt_tokens_per_second"],
        "decode_tokens_per_second": rates["completion_tokens_per_second"],
        "gpu_utilization": None,
        "memory_bandwidth_gbps": None,
        "host": {"platform": platform.system(), "machine": platform.machine(),
                 "processor": platform.processor() or None, "cpu_count": os.cpu_count(),
                 "memory_gib": None,
                 "mlx_device": "gpu" if platform.system() == "Darwin" else "cpu",
                 "blas": blas},
        "cpu_weights": state.weights_choice(),
        "sharding": distributed.describe(),
        "speculative": _speculative(engine_stats.get("speculative"), stats),
    }
    if mode == "extended":
        profile["samples"] = engine_stats.get("samples") or []
    return profile
