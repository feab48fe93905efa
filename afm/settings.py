"""Server settings: one dataclass, filled from the command line (see afm.cli)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import platformdirs

MB = 1024 * 1024


def parse_size(text: str, flag: str = "--prompt-cache-size") -> int:
    """``"2G"``, ``"512M"``, ``"64K"`` or plain bytes -> bytes (ValueError when not a size)."""
    value = text.strip().upper().removesuffix("IB").removesuffix("B")
    scale = 1
    for suffix, factor in (("K", 1 << 10), ("M", 1 << 20), ("G", 1 << 30), ("T", 1 << 40)):
        if value.endswith(suffix):
            value, scale = value[:-1], factor
            break
    try:
        number = float(value)
    except ValueError:
        raise ValueError(f"{flag}: not a size: {text!r} (bytes, or a number with K, M or G)"
                         ) from None
    if number < 0:
        raise ValueError(f"{flag}: not a size: {text!r} (must be 0 or more)")
    return int(number * scale)


def default_data_dir() -> Path:
    return Path(platformdirs.user_data_dir("afm"))


@dataclass
class Settings:
    host: str = "127.0.0.1"
    port: int = 9999
    # chat models: `--model` values (folder, hub id, NAME=SOURCE) in order, the first is the
    # default; none (and no models_dir): the embedded default model, built offline
    models: list[str] = field(default_factory=list)
    models_dir: Path | None = None  # every folder with a config.json under it is offered
    max_loaded_models: int = 4  # resident chat models; 0: no bound
    backend: str = "mlx"
    log_level: str = "info"
    log_format: str = "text"  # "text" | "json"
    api_keys: list[str] = field(default_factory=list)  # --api-key / AFM_API_KEY
    allow_unauthenticated: bool = False  # serve a non-loopback address without a key
    # generation defaults (request values win)
    temperature: float | None = None
    top_p: float | None = None
    top_k: int | None = None
    min_p: float | None = None
    repetition_penalty: float | None = None
    presence_penalty: float | None = None
    frequency_penalty: float | None = None
    seed: int | None = None
    max_tokens: int = 8192
    stop: list[str] = field(default_factory=list)
    instructions: str | None = None
    streaming: bool = True
    max_logprobs: int = 20
    # structured output, tools, reasoning
    guided_json: dict[str, Any] | None = None
    grammar_constraints: bool = True
    tool_call_parser: str | None = None
    strict_tool_calls: bool = False  # read only the format's markup as calls (no repair)
    keep_volatile_prompt_parts: bool = False  # keep per-session client metadata verbatim
    no_think: bool = False
    reasoning_effort: str | None = None
    default_chat_template_kwargs: dict[str, Any] = field(default_factory=dict)
    raw: bool = False
    # throughput
    concurrent: int = 16
    queue_timeout: float = 240.0
    shutdown_timeout: float = 20.0  # SIGTERM / Ctrl-C: seconds running requests may finish
    prefix_caching: bool = True
    prefix_cache_bytes: int = 512 * MB
    prefill_step_size: int = 256
    prompt_cache_dir: Path | None = None  # persistent prompt cache (engine.prompt_store)
    prompt_cache_bytes: int = 4 * 1024 * MB
    kv_bits: int | None = None  # KV-cache quantization (engine.kv_quant): 4 or 8
    max_context: int = 0  # 0: each model's own context length
    cpu_weights: str = "auto"  # auto | float32 | native (engine.cpu_weights)
    shard_mode: str = "tensor"  # tensor | pipeline, under mlx.launch (engine.distributed)
    spec_ngram: bool = False  # speculative decoding by prompt lookup (engine.speculative)
    draft_model: str | None = None  # speculative decoding with this draft model (a source)
    num_draft_tokens: int = 4
    # other surfaces
    embedding_models: list[str] = field(default_factory=list)
    data_dir: Path = field(default_factory=default_data_dir)
    batch_concurrency: int = 4
    webui: bool = True  # the browser chat page at `/`
    # speech (afm.speech): None / empty -> the shipped defaults when they are cached
    speech_model: str | None = None
    tts_voices: list[str] = field(default_factory=list)
    no_speech: bool = False
    speech_queue: int = 8  # speech jobs that may wait behind the running one
    # body limits per route family, bytes
    max_body_bytes: int = 100 * MB
    max_embeddings_body_bytes: int = 1 * MB
    max_tokenize_body_bytes: int = 8 * MB
    max_vision_body_bytes: int = 30 * MB
    max_audio_body_bytes: int = 50 * MB
    max_file_bytes: int = 100 * MB

    @property
    def model(self) -> str | None:
        """The first `--model` value (the default chat model), if any."""
        return self.models[0] if self.models else None

    @staticmethod
    def parse_json_object(text: str, flag: str) -> dict[str, Any]:
        """Parse a flag's JSON object value, with a clear error."""
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{flag}: not valid JSON ({exc})") from exc
        if not isinstance(value, dict):
            raise ValueError(f"{flag}: expected a JSON object")
        return value
