"""Prometheus metrics of the chat engine, in their own registry (``REGISTRY``).

Family names follow vLLM's with an ``afm:`` prefix (``vllm:num_requests_running`` ->
``afm:num_requests_running``). Counters are exposed with the ``_total`` suffix. Token counters
for the prefix cache count tokens, as vLLM's do.
"""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

REGISTRY = CollectorRegistry(auto_describe=True)

_LATENCY_BUCKETS = (
    0.01,
    0.025,
    0.05,
    0.1,
    0.25,
    0.5,
    1.0,
    2.5,
    5.0,
    10.0,
    20.0,
    40.0,
    80.0,
    160.0,
    320.0,
    640.0,
)
_TOKEN_BUCKETS = (
    0.001,
    0.005,
    0.01,
    0.02,
    0.04,
    0.06,
    0.08,
    0.1,
    0.15,
    0.2,
    0.3,
    0.5,
    0.75,
    1.0,
    2.5,
)

num_requests_running = Gauge(
    "afm:num_requests_running", "Requests prefilling or decoding.", registry=REGISTRY
)
num_requests_waiting = Gauge(
    "afm:num_requests_waiting", "Requests waiting for a generation slot.", registry=REGISTRY
)
prompt_tokens = Counter("afm:prompt_tokens", "Prompt tokens processed.", registry=REGISTRY)
generation_tokens = Counter("afm:generation_tokens", "Tokens generated.", registry=REGISTRY)
prefix_cache_queries = Counter(
    "afm:prefix_cache_queries", "Prompt tokens looked up in the prefix cache.", registry=REGISTRY
)
prefix_cache_hits = Counter(
    "afm:prefix_cache_hits", "Prompt tokens served from the prefix cache.", registry=REGISTRY
)
# --------------------------------------------------------------- --prompt-cache-dir (on disk)
prompt_cache_disk_hits = Counter(
    "afm:prompt_cache_disk_hits", "Prompts whose prefix was loaded from --prompt-cache-dir "
    "(a longer prefix than the prefix cache in memory held).", registry=REGISTRY)
prompt_cache_disk_misses = Counter(
    "afm:prompt_cache_disk_misses", "Prompts looked up in --prompt-cache-dir for which no "
    "entry beat the prefix cache in memory.", registry=REGISTRY)
prompt_cache_disk_hit_tokens = Counter(
    "afm:prompt_cache_disk_hit_tokens", "Prompt tokens served from --prompt-cache-dir "
    "(counted in afm:prefix_cache_hits too).", registry=REGISTRY)
prompt_cache_disk_read_bytes = Counter(
    "afm:prompt_cache_disk_read_bytes", "Bytes of the --prompt-cache-dir entries loaded.",
    registry=REGISTRY)
prompt_cache_disk_writes = Counter(
    "afm:prompt_cache_disk_writes", "Entries written to --prompt-cache-dir.", registry=REGISTRY)
prompt_cache_disk_written_bytes = Counter(
    "afm:prompt_cache_disk_written_bytes", "Bytes written to --prompt-cache-dir.",
    registry=REGISTRY)
prompt_cache_disk_evictions = Counter(
    "afm:prompt_cache_disk_evictions", "Entries deleted to keep --prompt-cache-size.",
    registry=REGISTRY)
prompt_cache_disk_discarded = Counter(
    "afm:prompt_cache_disk_discarded", "Entries deleted because they did not load or verify.",
    registry=REGISTRY)
prompt_cache_disk_bytes = Gauge(
    "afm:prompt_cache_disk_bytes", "Bytes in the --prompt-cache-dir folders of the loaded "
    "models now.", registry=REGISTRY)
prompt_cache_disk_entries = Gauge(
    "afm:prompt_cache_disk_entries", "Entries in the --prompt-cache-dir folders of the loaded "
    "models now.", registry=REGISTRY)

spec_draft_tokens = Counter(
    "afm:spec_draft_tokens", "Speculative decoding: drafted tokens verified by the model.",
    registry=REGISTRY)
spec_accepted_tokens = Counter(
    "afm:spec_accepted_tokens", "Speculative decoding: drafted tokens the model accepted.",
    registry=REGISTRY)
request_success = Counter(
    "afm:request_success",
    "Finished requests by finish reason.",
    ["finished_reason"],
    registry=REGISTRY,
)
e2e_request_latency = Histogram(
    "afm:e2e_request_latency_seconds",
    "Submission to last token.",
    buckets=_LATENCY_BUCKETS,
    registry=REGISTRY,
)
request_queue_time = Histogram(
    "afm:request_queue_time_seconds",
    "Time waiting for a slot.",
    buckets=_LATENCY_BUCKETS,
    registry=REGISTRY,
)
request_prefill_time = Histogram(
    "afm:request_prefill_time_seconds",
    "Admission to first token.",
    buckets=_LATENCY_BUCKETS,
    registry=REGISTRY,
)
request_decode_time = Histogram(
    "afm:request_decode_time_seconds",
    "First token to last token.",
    buckets=_LATENCY_BUCKETS,
    registry=REGISTRY,
)
time_to_first_token = Histogram(
    "afm:time_to_first_token_seconds",
    "Submission to first token.",
    buckets=_LATENCY_BUCKETS,
    registry=REGISTRY,
)
time_per_output_token = Histogram(
    "afm:time_per_output_token_seconds",
    "Mean time between output tokens of a request.",
    buckets=_TOKEN_BUCKETS,
    registry=REGISTRY,
)

# --------------------------------------------------------------- chat models (load / unload)
# The families above add up every loaded model's engine; these follow the models themselves.
model_loads = Counter("afm:model_loads", "Chat model loads.", ["model"], registry=REGISTRY)
model_unloads = Counter("afm:model_unloads", "Chat model unloads.", ["model"], registry=REGISTRY)
model_loaded = Gauge("afm:model_loaded", "1 while the chat model is resident, else 0.", ["model"],
                     registry=REGISTRY)
models_loaded = Gauge("afm:models_loaded", "Chat models resident now.", registry=REGISTRY)
model_requests = Counter("afm:model_requests", "Requests routed to each chat model.", ["model"],
                         registry=REGISTRY)
world_size = Gauge("afm:world_size", "Ranks the chat model is sharded across (1: one process).",
                   registry=REGISTRY)
world_size.set(1)
shard_ops = Counter("afm:shard_ops", "Step operations rank 0 announced to the other ranks.",
                    registry=REGISTRY)
shard_op_seconds = Counter("afm:shard_op_seconds", "Seconds rank 0 spent announcing step "
                           "operations (framing and the plan collectives, not the model's own).",
                           registry=REGISTRY)
shard_collective_seconds = Counter(
    "afm:shard_collective_seconds", "Seconds rank 0 spent inside the plan channel's all_sum "
    "collectives (waiting for the other ranks to reach them included). The model's own "
    "in-graph all_sums (two per layer per forward, tensor parallel) are part of step compute.",
    registry=REGISTRY)
