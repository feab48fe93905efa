"""The model runner on the tiny model, driven directly (no engine thread).

Checks prompt validation, prefix-cache reuse, chunked and grouped prefill, and that the
software-pipelined decode produces exactly the tokens of a plain greedy loop over the model.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from engine.blas import preload_fast_blas

preload_fast_blas()

import mlx.core as mx  # noqa: E402
from mlx_lm.models.cache import make_prompt_cache  # noqa: E402

from engine.config import EngineConfig  # noqa: E402
from engine.model_runner import (  # noqa: E402
    MIN_PREFIX_REUSE,
    SHARED_PREFIX_MIN,
    SOLO_PREFILL_STEP,
    SOLO_PREFIX_REUSE,
    ModelRunner,
    shared_prefix,
)
from engine.sampling import SampleOutput  # noqa: E402
from engine.sequence import Sequence  # noqa: E402
from engine.types import GenerationRequest, SamplingParams  # noqa: E402
from modelbuilder import ensure_model  # noqa: E402

GREEDY = SamplingParams(temperature=0, ignore_eos=True)


@pytest.fixture(scope="module")
def runner() -> ModelRunner:
    return ModelRunner(EngineConfig(model=str(ensure_model("tiny")), prefill_step_size=16))


@pytest.fixture
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    lp = asyncio.new_event_loop()
    yield lp
    lp.close()


def make_seq(loop: asyncio.AbstractEventLoop, prompt: list[int],
             params: SamplingParams = GREEDY) -> Sequence:
    return Sequence(GenerationRequest("r", prompt, params), loop, asyncio.Queue())


def prompt_of(runner: ModelRunner, n: int, offset: int = 0) -> list[int]:
    return [(7 * i + offset) % (runner.vocab_size - 10) + 5 for i in range(n)]


class Recorder:
    """An ``emit`` callback: records tokens and finishes each sequence after ``limit`` tokens
    (what the event emitter would do, minus text)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit

    def __call__(self, seqs: list[Sequence], out: SampleOutput) -> None:
        for seq, token in zip(seqs, out.tokens.tolist(), strict=True):
            if seq.finished:
                continue
            if not seq.pre_accepted:
                assert seq.row is not None
                seq.row.accept(token)
            seq.pre_accepted = False
            seq.generated.append(token)
            seq.last_token = token
            seq.finished = len(seq.generated) >= self.limit


def reference_greedy(runner: ModelRunner, prompt: list[int], n: int) -> list[int]:
    """Plain greedy decoding over the model, one step at a time."""
    cache = make_prompt_cache(runner.model)
    logits = runner.model(mx.array([prompt]), cache=cache)[:, -1, :]
    out = []
    for _ in range(n):
        token = int(mx.argmax(logits, axis=-1).item())
        out.append(token)
        logits = runner.model(mx.array([[token]]), cache=cache)[:, -1, :]
    return out


def run_to_end(runner: ModelRunner, seqs: list[Sequence], emit: Recorder) -> None:
    for seq in seqs:
        runner.prepare(seq)
    for seq in seqs:
        while (out := runner.prefill_chunk(seq)) is None:
            pass
        emit([seq], out)
        runner.join(seq)
    while runner.decoding:
        runner.decode_step(emit, newcomers=False)


def test_model_facts(runner: ModelRunner) -> None:
    assert runner.vocab_size > 0 and runner.max_context > 0 and runner.weights_bytes > 0
    assert runner.model_type == "qwen3"
    assert runner.eos_token_ids and runner.plain_kv and runner.prefix is not None


@pytest.mark.parametrize(
    ("prompt", "message"),
    [([], "empty prompt"), ([10**9], "outside the vocabulary"), (None, "does not fit")],
)
def test_prepare_rejects_prompts_the_model_cannot_take(
    runner: ModelRunner, loop: asyncio.AbstractEventLoop, prompt: Any, message: str
) -> None:
    if prompt is None:
        prompt = prompt_of(runner, runner.max_context)
    with pytest.raises(ValueError, match=message):
        runner.prepare(make_seq(loop, prompt))


def test_pipelined_decode_matches_plain_greedy(
    runner: ModelRunner, loop: asyncio.AbstractEventLoop
) -> None:
    prompts = [prompt_of(runner, 20, 0), prompt_of(runner, 9, 3), prompt_of(runner, 13, 5)]
    seqs = [make_seq(loop, p) for p in prompts]
    run_to_end(runner, seqs, Recorder(limit=12))
    for seq, prompt in zip(seqs, prompts, strict=True):
        assert seq.generated == reference_greedy(runner, prompt, 12)
    assert runner.decoding == [] and runner.batch_cache is None
    assert runner.kv_bytes([]) == 0 and runner.max_decode_batch == 3


def test_penalised_rows_decode_the_same_pipelined_after_accept(
    runner: ModelRunner, loop: asyncio.AbstractEventLoop
) -> None:
    """Rows whose sampling depends on their history take the accept-then-launch path; the
    result must equal running each alone."""
    params = SamplingParams(temperature=0, ignore_eos=True, presence_penalty=1.5)
    prompts = [prompt_of(runner, 11, 1), prompt_of(runner, 6, 2)]
    together = [make_seq(loop, p, params) for p in prompts]
    run_to_end(runner, together, Recorder(limit=10))
    for seq, prompt in zip(together, prompts, strict=True):
        alone = make_seq(loop, prompt, params)
        run_to_end(runner, [alone], Recorder(limit=10))
        assert seq.generated == alone.generated


def test_grouped_prefill_samples_like_chunked_prefill(
    runner: ModelRunner, loop: asyncio.AbstractEventLoop
) -> None:
    prompts = [prompt_of(runner, 12, 11), prompt_of(runner, 5, 13), prompt_of(runner, 9, 17)]
    group = [make_seq(loop, p) for p in prompts]
    for seq in group:
        runner.prepare(seq)
        assert seq.cached_tokens == 0
    out, cache = runner.prefill_together(group)
    firsts = out.tokens.tolist()
    assert firsts == [reference_greedy(runner, p, 1)[0] for p in prompts]
    emit = Recorder(limit=6)
    group[1].finished = True  # e.g. its first token was a stop: it must not join the batch
    emit(group, out)
    runner.join_group(group, cache)
    assert runner.decoding == [group[0], group[2]] and runner.kv_bytes([]) > 0
    while runner.decoding:
        runner.decode_step(emit, newcomers=False)
    assert group[0].generated == reference_greedy(runner, prompts[0], 6)
    assert group[2].generated == reference_greedy(runner, prompts[2], 6)


def test_grouped_prefill_runs_a_shared_prefix_once(
    runner: ModelRunner, loop: asyncio.AbstractEventLoop
) -> None:
    """Prompts opening alike (a system prompt): the prefix runs once, the rows of different
    lengths sample, decode and feed the prefix cache exactly as each prompt alone."""
    head = prompt_of(runner, MIN_PREFIX_REUSE + 4, 3)
    prompts = [head + prompt_of(runner, n, off) for n, off in ((3, 50), (9, 61), (1, 72), (6, 83))]
    group = [make_seq(loop, p) for p in prompts]
    for seq in group:
        runner.prepare(seq)
    assert shared_prefix(group) == len(head)
    calls: list[tuple[int, ...]] = []
    model = runner.model

    class Counting:  # the model, noting the shape of every forward's input
        def __getattr__(self, name: str) -> Any:
            return getattr(model, name)

        def __call__(self, x: mx.array, cache: Any) -> mx.array:
            calls.append(tuple(x.shape))
            return model(x, cache=cache)

    runner.model = Counting()
    try:
        out, cache = runner.prefill_together(group)
    finally:
        runner.model = model
    assert calls[0] == (1, len(head))  # the prefix, once
    assert all(shape[0] == len(group) and shape[1] <= 9 for shape in calls[1:])
    assert out.tokens.tolist() == [reference_greedy(runner, p, 1)[0] for p in prompts]
    emit = Recorder(limit=5)
    emit(group, out)
    runner.join_group(group, cache)
    while runner.decoding:
        runner.decode_step(emit, newcomers=False)
    for seq, prompt in zip(group, prompts, strict=True):
        assert seq.generated == reference_greedy(runner, prompt, 5)
    again = make_seq(loop, prompts[1] + [9, 10])
    runner.prepare(again)  # the grouped rows' caches were stored whole
    assert again.cached_tokens >= len(prompts[1])
    while (first := runner.prefill_chunk(again)) is None:
        pass
    assert first.tokens.tolist() == [reference_greedy(runner, prompts[1] + [9, 10], 1)[0]]
    runner.release([again])


def test_shared_prefix_row_padded_past_its_cache(
    runner: ModelRunner, loop: asyncio.AbstractEventLoop
) -> None:
    """A row shorter than the longest by the whole prefix holds none of it in its cache: it
    re-runs the prefix with its own tokens in the batched part."""
    head = prompt_of(runner, SHARED_PREFIX_MIN + 4, 3)
    prompts = [head + prompt_of(runner, 1, 50), head + prompt_of(runner, len(head) + 1, 61)]
    group = [make_seq(loop, p) for p in prompts]
    for seq in group:
        runner.prepare(seq)
    assert shared_prefix(group) == len(head)
    out, cache = runner.prefill_together(group)
    assert out.tokens.tolist() == [reference_greedy(runner, p, 1)[0] for p in prompts]
    emit = Recorder(limit=4)
    emit(group, out)
    runner.join_group(group, cache)
    while runner.decoding:
        runner.decode_step(emit, newcomers=False)
    for seq, prompt in zip(group, prompts, strict=True):
        assert seq.generated == reference_greedy(runner, prompt, 4)


def test_shared_prefix_needs_length_and_bounded_padding(
    runner: ModelRunner, loop: asyncio.AbstractEventLoop
) -> None:
    head = prompt_of(runner, SHARED_PREFIX_MIN, 3)

    def group(*tails: int) -> list[Sequence]:
        return [make_seq(loop, head + prompt_of(runner, n, 40 + n)) for n in tails]
    assert shared_prefix(group(2, 5)) == SHARED_PREFIX_MIN
    assert shared_prefix(group(4)) == 0  # one prompt: nothing to share
    assert shared_prefix(group(0, 5)) == 0  # the prefix is a whole prompt: one short of it
    assert shared_prefix(group(1, 2 + SHARED_PREFIX_MIN)) == 0  # padding past the prefix
    short = [make_seq(loop, head[:-1] + [1]), make_seq(loop, head[:-1] + [2])]
    assert shared_prefix(short) == 0  # shorter than SHARED_PREFIX_MIN


def test_finished_rows_feed_the_prefix_cache(
    runner: ModelRunner, loop: asyncio.AbstractEventLoop
) -> None:
    prompt = prompt_of(runner, MIN_PREFIX_REUSE + 8, 23)
    first = make_seq(loop, prompt)
    run_to_end(runner, [first], Recorder(limit=4))
    follow_up = prompt + first.generated[:-1] + [42, 43]
    again = make_seq(loop, follow_up)
    runner.prepare(again)
    # the prompt and all but the last generated token were stored when the row finished
    assert again.cached_tokens == again.prefill_pos == len(prompt) + len(first.generated) - 1
    while (out := runner.prefill_chunk(again)) is None:
        pass
    assert out.tokens.tolist() == [reference_greedy(runner, follow_up, 1)[0]]


def test_a_short_prefix_hit_is_used_alone_and_dropped_in_a_group(
    runner: ModelRunner, loop: asyncio.AbstractEventLoop
) -> None:
    """A cached prefix shorter than MIN_PREFIX_REUSE (a chat template's preamble) is reused by
    a prompt prefilled alone; prompts prefilled together recompute it (once, shared)."""
    head = prompt_of(runner, SOLO_PREFIX_REUSE + 4, 91)
    assert SOLO_PREFIX_REUSE <= len(head) < MIN_PREFIX_REUSE
    seed = make_seq(loop, head + prompt_of(runner, 5, 92))
    run_to_end(runner, [seed], Recorder(limit=2))
    alone = make_seq(loop, head + prompt_of(runner, 7, 93))
    runner.prepare(alone)
    assert alone.cached_tokens == alone.prefill_pos == 0 and alone.solo_prefix is not None
    while (out := runner.prefill_chunk(alone)) is None:
        pass
    assert alone.cached_tokens == len(head) and alone.solo_prefix is None
    assert out.tokens.tolist() == [reference_greedy(runner, alone.prompt, 1)[0]]
    prompts = [head + prompt_of(runner, n, off) for n, off in ((3, 94), (6, 95))]
    group = [make_seq(loop, p) for p in prompts]
    for seq in group:
        runner.prepare(seq)
        assert seq.solo_prefix is not None and seq.prefill_pos == 0
    out, cache = runner.prefill_together(group)
    assert [s.cached_tokens for s in group] == [0, 0]
    assert all(s.solo_prefix is None for s in group)
    assert out.tokens.tolist() == [reference_greedy(runner, p, 1)[0] for p in prompts]
    runner.release(group)


def test_dropping_rows_keeps_the_others_aligned(
    runner: ModelRunner, loop: asyncio.AbstractEventLoop
) -> None:
    prompts = [prompt_of(runner, 7, 31), prompt_of(runner, 10, 37), prompt_of(runner, 4, 41)]
    seqs = [make_seq(loop, p) for p in prompts]
    emit = Recorder(limit=8)
    for seq in seqs:
        runner.prepare(seq)
        emit([seq], runner.prefill_chunk(seq))  # type: ignore[arg-type]
        runner.join(seq)
    runner.decode_step(emit, newcomers=False)
    seqs[1].finished = True  # cancelled mid-decode
    runner.drop_rows([1])
    while runner.decoding:
        runner.decode_step(emit, newcomers=False)
    assert seqs[0].generated == reference_greedy(runner, prompts[0], 8)
    assert seqs[2].generated == reference_greedy(runner, prompts[2], 8)
    runner.reset()
    assert runner.decoding == [] and runner.batch_cache is None


def test_a_prompt_alone_takes_long_chunks_and_beside_a_stream_short_ones(
    runner: ModelRunner, loop: asyncio.AbstractEventLoop
) -> None:
    """Chunks hold ``prefill_step_size`` (16 here) tokens only while a stream decodes (they
    bound its wait); alone, a prompt takes chunks of SOLO_PREFILL_STEP. Same tokens either way."""
    first, second = prompt_of(runner, 40, 53), prompt_of(runner, 40, 59)
    alone = make_seq(loop, first)
    runner.prepare(alone)
    assert runner.chunk_size() == SOLO_PREFILL_STEP
    emit = Recorder(limit=3)
    out = runner.prefill_chunk(alone)
    assert out is not None and alone.prefill_pos == len(first)  # one chunk
    emit([alone], out)
    runner.join(alone)
    beside = make_seq(loop, second)
    runner.prepare(beside)
    assert runner.chunk_size() == 16
    calls = 1
    while (out := runner.prefill_chunk(beside)) is None:
        calls += 1
    assert calls == 3 and beside.prefill_pos == len(second)
    emit([beside], out)
    runner.join(beside)
    while runner.decoding:
        runner.decode_step(emit, newcomers=False)
    assert alone.generated == reference_greedy(runner, first, 3)
    assert beside.generated == reference_greedy(runner, second, 3)


def test_grow_once_sizes_a_prompt_cache_for_the_rest_of_the_prompt() -> None:
    """A chunked prefill's cache grows once (no copy of what it holds at each later chunk)."""
    import mlx.core as mx
    from mlx_lm.models.cache import BatchKVCache, KVCache

    from engine.model_runner import grow_once

    cache, batch = [KVCache(), KVCache()], BatchKVCache([0])
    grow_once([*cache, batch], 1000)
    assert batch.step == 256  # decode-batch caches keep mlx-lm's step
    chunks = [mx.full((1, 2, 300, 4), float(i)) for i in range(3)]
    sizes = []
    for chunk in chunks:
        for c in cache:
            c.update_and_fetch(chunk, chunk)
        sizes.append(cache[0].keys.shape[2])
    assert sizes == [1024, 1024, 1024]
    keys, _ = cache[1].update_and_fetch(chunks[0][:, :, :100], chunks[0][:, :, :100])
    assert keys.shape[2] == 1000 and cache[1].keys.shape[2] == 1024
    assert mx.array_equal(keys[:, :, 300:600], chunks[1])
    assert KVCache.step == 256
