"""Engine configuration."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class EngineConfig:
    """How the chat engine loads its model and schedules work.

    ``concurrent`` is the decode batch size: at most that many requests prefill or decode at once;
    the rest wait up to ``queue_timeout`` seconds for a slot. ``prefill_step_size`` bounds the
    prompt tokens processed between two decode steps, so a long prompt does not stall running
    streams (with none decoding, a chunk holds at least ``model_runner.SOLO_PREFILL_STEP``).
    ``cpu_weights`` is the CPU weight policy (:mod:`engine.cpu_weights`). ``max_context``
caps the model's context (its ``max_position_embeddings``): longer prompts are refused and
output stops there, which bounds each slot's KV cache.
    """

    model: str  # local folder or hub id (mlx_lm.load)
    concurrent: int = 16
    queue_timeout: float = 240.0
    prefix_cache: bool = True
    prefix_cache_bytes: int = 512 * 2**20
    prefill_step_size: int = 256
    prompt_cache_dir: str | None = None  # persistent prompt cache (engine.prompt_store)
    prompt_cache_bytes: int = 4 * 2**30
    kv_bits: int | None = None  # quantized KV cache (engine.kv_quant): 4 or 8
    max_context: int = 0  # tokens a sequence may hold (prompt + output); 0: the model's own
    max_logprobs: int = 20
    cpu_weights: str = "auto"  # engine.cpu_weights.MODES: float32 conversion on a CPU device
    sharded: bool = False  # load this rank's shard and run in lockstep (engine.distributed)
    shard_mode: str = "tensor"  # tensor (model.shard) | pipeline (model.model.pipeline)
    # speculative decoding (engine.speculative): prompt lookup and/or a draft model
    spec_ngram: bool = False
    draft_model: str | None = None  # local folder or hub id, as ``model``
    num_draft_tokens: int = 4
