"""The `afm` command line. Every flag is defined once in FLAGS; `--help` and `--help-json`
are both generated from that table."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from afm import __version__
from afm.auth import keys_from_env
from afm.contract import SPEC_PATH
from afm.model_catalog import chat_catalogue
from afm.settings import Settings, parse_size
from afm.startup import EXIT_CODES


@dataclass(frozen=True)
class Flag:
    names: tuple[str, ...]
    dest: str
    help: str
    group: str
    type: Any = str
    default: Any = None
    action: str | None = None
    choices: tuple[str, ...] | None = None
    metavar: str | None = None


def _csv(value: str) -> list[str]:
    return [part for part in value.split(",") if part]


S = Settings()
FLAGS: tuple[Flag, ...] = (
    Flag(("-H", "--host", "--hostname"), "host", "Address to bind.", "server", default=S.host),
    Flag(("-p", "--port"), "port", "Port to listen on.", "server", int, S.port),
    Flag(
        ("-m", "--model"),
        "models",
        "Chat model: a local folder, a .gguf file (or a folder holding one), a hub id, or "
        "random[:PRESET] (a random-weight model built offline), optionally NAME=SOURCE to "
        "serve it as NAME; repeatable (the first is the default and loads at start-up, the "
        "others on first use). Default: SmolLM2-135M-Instruct (GGUF Q4_1) as afm-default, "
        "fetched once by `afm fetch-models` (or at the first start) from the package index.",
        "server",
        action="append",
        metavar="MODEL",
    ),
    Flag(("--models-dir",), "models_dir",
         "Also offer every model under this folder: folders holding config.json (named by the "
         "folder) and .gguf files (named by the file stem); each loads on first use.",
         "server", Path, metavar="DIR"),
    Flag(("--max-loaded-models",), "max_loaded_models",
         "Chat models kept loaded at once (0: no bound); past it the least recently used idle "
         "one is unloaded, and a load waits up to --queue-timeout for one to become idle.",
         "server", int, S.max_loaded_models, metavar="N"),
    Flag(
        ("--backend",),
        "backend",
        "Generation backend. 'foundation' (Apple Foundation Models) exists only on macOS 26.",
        "server",
        default=S.backend,
        choices=("mlx", "foundation"),
    ),
    Flag(("--log-level",), "log_level", "Log level.", "server", default=S.log_level,
         choices=("debug", "info", "warning", "error")),
    Flag(("--log-format",), "log_format",
         "Log lines as text or as one JSON object each (access lines included).", "server",
         default=S.log_format, choices=("text", "json")),
    Flag(("--api-key",), "api_keys",
         "Require this key (Authorization: Bearer KEY or x-api-key: KEY) on every route but "
         "/health; repeatable. Default: $AFM_API_KEY (comma separated), else no key.", "server",
         action="append", metavar="KEY"),
    Flag(("--allow-unauthenticated",), "allow_unauthenticated",
         "Allow a non-loopback --host without an API key (anyone on the network can use it).",
         "server", action="store_true", default=False),
    Flag(("--shutdown-timeout",), "shutdown_timeout",
         "On SIGTERM or Ctrl-C, seconds running generations may finish (new and queued "
         "requests get 503 shutting_down, /health 503 draining) before the rest end as "
         "cancelled and the server exits 0; a second signal exits at once.", "server", float,
         S.shutdown_timeout, metavar="SECONDS"),
    Flag(("--no-streaming",), "no_streaming", "Refuse stream=true with 400.", "server",
         action="store_true", default=False),
    Flag(("-i", "--instructions"), "instructions",
         "Default system prompt, used when a request has no system message.", "generation"),
    Flag(("-t", "--temperature"), "temperature",
         "Sampling temperature for requests that send none, over every model's own default "
         "(0 = greedy).", "generation", float),
    Flag(("--top-p",), "top_p", "Nucleus sampling threshold for requests that send none.",
         "generation", float),
    Flag(("--top-k",), "top_k", "Top-k for requests that send none (0 = off).", "generation",
         int),
    Flag(("--min-p",), "min_p", "Min-p for requests that send none (0 = off).", "generation",
         float),
    Flag(("--repetition-penalty",), "repetition_penalty",
         "Repetition penalty for requests that send none (1 = off).", "generation", float),
    Flag(("--presence-penalty",), "presence_penalty",
         "Presence penalty for requests that send none.", "generation", float),
    Flag(("--frequency-penalty",), "frequency_penalty",
         "Frequency penalty for requests that send none.", "generation", float),
    Flag(("--seed",), "seed", "Default sampling seed.", "generation", int),
    Flag(("--max-tokens",), "max_tokens", "Default output-token limit.", "generation", int,
         S.max_tokens),
    Flag(("--stop",), "stop",
         "Stop sequences, comma separated (repeatable); merged before the request's.",
         "generation", _csv, action="append"),
    Flag(("--max-logprobs",), "max_logprobs", "Ceiling for top_logprobs.", "generation", int,
         S.max_logprobs),
    Flag(("--guided-json",), "guided_json",
         "Default JSON schema for requests without response_format.", "structured",
         metavar="SCHEMA"),
    Flag(("--disable-grammar-constraints",), "disable_grammar_constraints",
         "Accept strict schemas and tools without enforcing them (X-Grammar-Constraints: "
         "downgraded).", "structured", action="store_true", default=False),
    Flag(("--enable-grammar-constraints",), "enable_grammar_constraints",
         "Accepted for compatibility with the original; constraints are on by default.",
         "structured", action="store_true", default=False),
    Flag(("--tool-call-parser",), "tool_call_parser",
         "Tool-call format, overriding detection from the chat template.", "structured",
         choices=("hermes", "qwen3_xml", "llama3_json", "mistral")),
    Flag(("--strict-tool-calls",), "strict_tool_calls",
         "Read tool calls only in the tool-call format's markup. Without it a reply that is "
         "nothing but one JSON object (bare or in a ``` fence) naming a declared tool, with "
         "arguments valid against its schema, is read as that call (reported in "
         "X-AFM-Warnings).", "structured", action="store_true", default=False),
    Flag(("--keep-volatile-prompt-parts",), "keep_volatile_prompt_parts",
         "Keep per-session client metadata in the prompt verbatim. Without it a system "
         "prompt's leading `x-anthropic-billing-header:` line (Claude Code; it changes every "
         "session and would stop the prompt cache reusing anything after it) is left out, "
         "reported in X-AFM-Warnings.", "structured", action="store_true", default=False),
    Flag(("--no-think",), "no_think", "Disable thinking by default (enable_thinking=false).",
         "structured", action="store_true", default=False),
    Flag(("--reasoning-effort",), "reasoning_effort", "Default reasoning effort.", "structured",
         choices=("none", "minimal", "low", "medium", "high", "max")),
    Flag(("--default-chat-template-kwargs",), "default_chat_template_kwargs",
         "Default chat template kwargs, a JSON object.", "structured", metavar="JSON"),
    Flag(("--raw",), "raw", "Do not extract <think> reasoning into reasoning_content.",
         "structured", action="store_true", default=False),
    Flag(("--concurrent",), "concurrent", "Sequences decoded together (batch size / slots).",
         "throughput", int, S.concurrent),
    Flag(("--queue-timeout",), "queue_timeout",
         "Seconds a request waits for a slot before 503 server_busy.", "throughput", float,
         S.queue_timeout),
    Flag(("--disable-prefix-caching",), "disable_prefix_caching", "Turn the prefix cache off.",
         "throughput", action="store_true", default=False),
    Flag(("--enable-prefix-caching",), "enable_prefix_caching",
         "Accepted for compatibility; the prefix cache is on by default.", "throughput",
         action="store_true", default=False),
    Flag(("--prefix-cache-bytes",), "prefix_cache_bytes", "Prefix cache memory bound.",
         "throughput", int, S.prefix_cache_bytes),
    Flag(("--prompt-cache-dir",), "prompt_cache_dir",
         "Persistent prompt cache: keep the KV state of prompts (and replies) in this folder, "
         "one subfolder per model, so a restarted server resumes a session without prefilling "
         "it again. Off when not given.", "throughput", Path, metavar="DIR"),
    Flag(("--prompt-cache-size",), "prompt_cache_size",
         "Bound of the --prompt-cache-dir folder per model (bytes, or with K, M, G); past it the "
         "least recently used entries are deleted.", "throughput", str, "4G", metavar="SIZE"),
    Flag(("--kv-bits",), "kv_bits",
         "Quantize the KV cache to this many bits (4 or 8; off when not given) to fit longer "
         "contexts in memory, at a small accuracy cost.", "throughput", int, None,
         metavar="BITS"),
    Flag(("--prefill-step-size",), "prefill_step_size",
         "Prompt tokens per prefill chunk while other streams decode (alone: at least 1024).",
         "throughput", int, S.prefill_step_size),
    Flag(("--max-context",), "max_context",
         "Tokens a request may hold, prompt and output (0: each model's own context length). "
         "Longer prompts get 400 context_length_exceeded and output stops there: it bounds "
         "each slot's KV cache.", "throughput", int, S.max_context),
    Flag(("--cpu-weights",), "cpu_weights",
         "CPU weight policy: auto converts quantized and bf16/fp16 weights to float32 at load "
         "when the copy fits half of available memory (AFM_CPU_WEIGHTS_BUDGET bytes overrides); "
         "float32 always converts; native never does. Metal devices are untouched.",
         "throughput", default=S.cpu_weights, choices=("auto", "float32", "native")),
    Flag(("--spec-ngram",), "spec_ngram",
         "Speculative decoding by prompt lookup: draft tokens that followed the last n-gram "
         "earlier in the prompt or output, verified in one forward (greedy-identical output; "
         "c=1 only). Pays off when the output repeats the prompt (code edits).", "throughput",
         action="store_true", default=False),
    Flag(("--draft-model",), "draft_model",
         "Speculative decoding with a small draft model of the same tokenizer (any source "
         "--model takes); verified as --spec-ngram.", "throughput", metavar="SOURCE"),
    Flag(("--num-draft-tokens",), "num_draft_tokens",
         "Tokens drafted per speculative step.", "throughput", int, S.num_draft_tokens),
    Flag(("--shard-mode",), "shard_mode",
         "Under mlx.launch: tensor splits every layer across the ranks (model.shard()); "
         "pipeline gives each rank a run of whole layers (models with pipeline(), e.g. qwen2).",
         "throughput", default=S.shard_mode, choices=("tensor", "pipeline")),
    Flag(("--embedding-model",), "embedding_models",
         "Extra embedding model (folder or hub id); repeatable.", "surfaces", action="append"),
    Flag(("--data-dir",), "data_dir", "Where files and batches are stored.", "surfaces", Path,
         S.data_dir),
    Flag(("--batch-concurrency",), "batch_concurrency", "Batch lines run at once.", "surfaces",
         int, S.batch_concurrency),
    Flag(("--no-webui",), "no_webui", "Do not serve the browser chat page at /.", "surfaces",
         action="store_true", default=False),
    Flag(("--speech-model",), "speech_model",
         "Transcription model: a shipped name (whisper-tiny.en, whisper-base) or a Whisper "
         "folder in CTranslate2 format (model.bin, config.json, tokenizer.json). Default: "
         "whisper-tiny.en once fetched (python -m afm.speech_models).", "surfaces",
         metavar="MODEL"),
    Flag(("--tts-voice",), "tts_voices",
         "Speech voice: a shipped name (en_US-joe-medium) or a Piper .onnx voice with its "
         ".onnx.json beside it; repeatable, the first is the default. Default: en_US-joe-medium "
         "once fetched.", "surfaces", action="append", metavar="VOICE"),
    Flag(("--no-speech",), "no_speech",
         "No speech models: the /v1/audio routes answer 503 speech_unavailable.", "surfaces",
         action="store_true", default=False),
    Flag(("--speech-queue",), "speech_queue",
         "Speech jobs that may wait behind the running one; past it 503 server_busy.",
         "surfaces", int, S.speech_queue, metavar="N"),
    Flag(("--max-body-bytes",), "max_body_bytes", "Body limit for most routes.", "limits", int,
         S.max_body_bytes),
    Flag(("--max-embeddings-body-bytes",), "max_embeddings_body_bytes",
         "Body limit for /v1/embeddings.", "limits", int, S.max_embeddings_body_bytes),
    Flag(("--max-tokenize-body-bytes",), "max_tokenize_body_bytes",
         "Body limit for the token routes.", "limits", int, S.max_tokenize_body_bytes),
    Flag(("--max-vision-body-bytes",), "max_vision_body_bytes", "Body limit for vision.",
         "limits", int, S.max_vision_body_bytes),
    Flag(("--max-audio-body-bytes",), "max_audio_body_bytes", "Body limit for audio.", "limits",
         int, S.max_audio_body_bytes),
    Flag(("--max-file-bytes",), "max_file_bytes", "Largest file upload.", "limits", int,
         S.max_file_bytes),
)

FRAMEWORK_ENDPOINTS = ["GET /openapi.json", "GET /docs"]


def contract_endpoints() -> list[str]:
    """`METHOD /path` for every operation of the contract, plus the framework's own pages."""
    import yaml

    spec = yaml.safe_load(SPEC_PATH.read_text())
    methods = ("get", "post", "put", "patch", "delete")
    return [f"{m.upper()} {path}" for path, item in spec["paths"].items()
            for m in methods if m in item] + FRAMEWORK_ENDPOINTS


CAPABILITIES: dict[str, Any] = {
    "features": [
        "streaming",
        "logprobs",
        "grammar-constrained json_schema and tools (xgrammar)",
        "tool-call formats: hermes, qwen3_xml, llama3_json, mistral",
        "reasoning_content",
        "continuous batching",
        "prefix cache",
        "persistent prompt cache on disk (--prompt-cache-dir)",
        "KV-cache quantization (--kv-bits 4|8)",
        "cancellation",
        "durable files and batches",
        "prometheus metrics",
        "several chat models (repeatable --model, --models-dir), loaded on first use, LRU "
        "unloaded past --max-loaded-models",
        "browser chat page at / (--no-webui turns it off)",
        "speech: transcription (faster-whisper) and text-to-speech (Piper) on every platform",
    ],
}


def _add_flag(parser: argparse.ArgumentParser | Any, flag: Flag) -> None:
    kwargs: dict[str, Any] = {"dest": flag.dest, "help": flag.help}
    if flag.action in ("store_true",):
        kwargs["action"] = flag.action
        kwargs["default"] = flag.default
    else:
        if flag.action:
            kwargs["action"] = flag.action
        kwargs["type"] = flag.type
        kwargs["default"] = flag.default
        if flag.choices:
            kwargs["choices"] = flag.choices
        if flag.metavar:
            kwargs["metavar"] = flag.metavar
        if flag.default is not None and flag.action is None:
            kwargs["help"] = f"{flag.help} (default: {flag.default})"
    parser.add_argument(*flag.names, **kwargs)


def group_description(group: str) -> str | None:
    """The text under a flag group's title in `afm serve --help`."""
    if group != "generation":
        return None
    from serving.sampling import FALLBACK

    fallback = ", ".join(f"{k} {v:g}" for k, v in FALLBACK.items()
                         if k in ("temperature", "min_p"))
    return (
        "Sampling defaults are resolved per model, first found wins:\n"
        "  1. the request's own field (temperature 0 sent explicitly decodes greedily;\n"
        "     top_k 0 turns top-k off);\n"
        "  2. these flags (for every model);\n"
        "  3. the model's own defaults: generation_config.json in an MLX or Hugging Face\n"
        "     folder, general.sampling.* in a GGUF file, or AFM's table for its packaged\n"
        "     real models (afm fetch-models), which carry neither;\n"
        f"  4. the server's fallback: {fallback}, the other filters and\n"
        "     penalties off.\n"
        "The load log and GET /v1/models (generation_defaults) show each model's values\n"
        "and where each came from. Override per request, or for every model with a flag.")


def exit_code_table() -> str:
    """The exit codes of `afm serve`, for its help."""
    return "exit codes:\n" + "\n".join(f"  {code}  {meaning}"
                                         for code, meaning in EXIT_CODES.items())


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="afm",
        description="AFM: a local OpenAI-compatible inference server on MLX.\n"
        "Start it with `afm serve`; `afm serve --help` lists the serve flags\n"
        "(--model, --host, --port, --api-key, --data-dir, ...). `afm fetch-models`\n"
        "fetches the real default model (and others) from the package index.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"afm {__version__}")
    parser.add_argument("--help-json", action="store_true",
                        help="Print a machine-readable card of capabilities and flags, then exit.")
    sub = parser.add_subparsers(dest="command")
    serve = sub.add_parser("serve", help="Start the HTTP server (`afm serve --help`: its flags).",
                           description="Start the OpenAI-compatible HTTP server.",
                           epilog=exit_code_table(),
                           formatter_class=argparse.RawDescriptionHelpFormatter)
    groups: dict[str, Any] = {}
    for flag in FLAGS:
        if flag.group not in groups:
            groups[flag.group] = serve.add_argument_group(
                flag.group, description=group_description(flag.group))
        _add_flag(groups[flag.group], flag)
    from afm import real_models

    fetch = sub.add_parser("fetch-models", help="Fetch, verify and cache real model files "
                           "(`afm fetch-models --help`).",
                           description="Fetch real model files from the package index "
                           "(pinned versions, sha256 checked) into the model cache.")
    real_models.add_arguments(fetch)
    return parser


def help_card() -> dict[str, Any]:
    """The `--help-json` card, from the same FLAGS table as `--help`."""

    def jsonable(value: Any) -> Any:
        return str(value) if isinstance(value, Path) else value

    return {
        "name": "afm",
        "version": __version__,
        "commands": {"serve": "Start the HTTP server.",
                     "fetch-models": "Fetch, verify and cache real model files."},
        "capabilities": {"endpoints": contract_endpoints(), **CAPABILITIES},
        "flags": [
            {
                "names": list(f.names),
                "dest": f.dest,
                "group": f.group,
                "help": f.help,
                "type": "bool" if f.action == "store_true" else getattr(f.type, "__name__", "str"),
                "default": jsonable(f.default),
                "repeatable": f.action == "append",
                "choices": list(f.choices) if f.choices else None,
            }
            for f in FLAGS
        ],
    }


def settings_from_args(ns: argparse.Namespace) -> Settings:
    """Turn parsed flags into Settings (flag validation errors raise ValueError)."""
    stop: list[str] = []
    for group in ns.stop or []:
        for item in group:
            if item not in stop:
                stop.append(item)
    guided = Settings.parse_json_object(ns.guided_json, "--guided-json") if ns.guided_json else None
    kwargs: dict[str, Any] = {}
    if ns.default_chat_template_kwargs:
        kwargs = Settings.parse_json_object(ns.default_chat_template_kwargs,
                                            "--default-chat-template-kwargs")
    if ns.max_loaded_models < 0:
        raise ValueError("--max-loaded-models must be 0 (no bound) or more")
    chat_catalogue(list(ns.models or []), ns.models_dir)  # names clash, --models-dir missing
    if ns.max_context < 0:
        raise ValueError("--max-context must be 0 (the model's own) or more")
    if ns.speech_queue < 0:
        raise ValueError("--speech-queue must be 0 or more")
    if ns.concurrent < 1:
        raise ValueError("--concurrent must be at least 1")
    prompt_cache_bytes = parse_size(ns.prompt_cache_size)  # ValueError says what is wrong
    if ns.kv_bits is not None and ns.kv_bits not in (4, 8):
        raise ValueError(f"--kv-bits must be 4 or 8 (got {ns.kv_bits})")
    if ns.num_draft_tokens < 1:
        raise ValueError("--num-draft-tokens must be at least 1")
    if ns.shutdown_timeout < 0:
        raise ValueError("--shutdown-timeout must be 0 (cancel at once) or more")
    return Settings(
        host=ns.host,
        port=ns.port,
        models=list(ns.models or []),
        models_dir=ns.models_dir,
        max_loaded_models=ns.max_loaded_models,
        backend=ns.backend,
        log_level=ns.log_level,
        log_format=ns.log_format,
        api_keys=keys_from_env(list(ns.api_keys or [])),
        allow_unauthenticated=ns.allow_unauthenticated,
        temperature=ns.temperature,
        top_p=ns.top_p,
        top_k=ns.top_k,
        min_p=ns.min_p,
        repetition_penalty=ns.repetition_penalty,
        presence_penalty=ns.presence_penalty,
        frequency_penalty=ns.frequency_penalty,
        seed=ns.seed,
        max_tokens=ns.max_tokens,
        stop=stop,
        instructions=ns.instructions,
        streaming=not ns.no_streaming,
        max_logprobs=ns.max_logprobs,
        guided_json=guided,
        grammar_constraints=not ns.disable_grammar_constraints,
        tool_call_parser=ns.tool_call_parser,
        strict_tool_calls=ns.strict_tool_calls,
        keep_volatile_prompt_parts=ns.keep_volatile_prompt_parts,
        no_think=ns.no_think,
        reasoning_effort=ns.reasoning_effort,
        default_chat_template_kwargs=kwargs,
        raw=ns.raw,
        concurrent=ns.concurrent,
        queue_timeout=ns.queue_timeout,
        shutdown_timeout=ns.shutdown_timeout,
        prefix_caching=not ns.disable_prefix_caching,
        prefix_cache_bytes=ns.prefix_cache_bytes,
        prefill_step_size=ns.prefill_step_size,
        prompt_cache_dir=ns.prompt_cache_dir,
        prompt_cache_bytes=prompt_cache_bytes,
        kv_bits=ns.kv_bits,
        max_context=ns.max_context,
        cpu_weights=ns.cpu_weights,
        shard_mode=ns.shard_mode,
        spec_ngram=ns.spec_ngram,
        draft_model=ns.draft_model,
        num_draft_tokens=ns.num_draft_tokens,
        embedding_models=list(ns.embedding_models or []),
        data_dir=ns.data_dir,
        batch_concurrency=ns.batch_concurrency,
        webui=not ns.no_webui,
        speech_model=ns.speech_model,
        tts_voices=list(ns.tts_voices or []),
        no_speech=ns.no_speech,
        speech_queue=ns.speech_queue,
        max_body_bytes=ns.max_body_bytes,
        max_embeddings_body_bytes=ns.max_embeddings_body_bytes,
        max_tokenize_body_bytes=ns.max_tokenize_body_bytes,
        max_vision_body_bytes=ns.max_vision_body_bytes,
        max_audio_body_bytes=ns.max_audio_body_bytes,
        max_file_bytes=ns.max_file_bytes,
    )


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    ns = parser.parse_args(argv)
    if ns.help_json:
        print(json.dumps(help_card(), indent=2))
        return 0
    if ns.command == "fetch-models":
        from afm import real_models

        return real_models.run_command(ns)
    if ns.command != "serve":
        parser.print_help()
        return 2
    try:
        settings = settings_from_args(ns)
    except ValueError as exc:
        parser.error(str(exc))
    from afm.server import serve  # heavy imports only when serving

    serve(settings)
    return 0


if __name__ == "__main__":
    sys.exit(main())

