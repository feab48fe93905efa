"""Event emission on plain data: sampled tokens (as arrays) in, GenerationEvents out.

The tiny model's tokenizer gives real token bytes; the "sampled" tokens are chosen by the test, so
text, stops, limits, logprobs and finishing are checked without running the model.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from engine.blas import preload_fast_blas

preload_fast_blas()

import mlx.core as mx  # noqa: E402
from mlx_lm.utils import load_tokenizer  # noqa: E402

from engine.detokenizer import TokenTable  # noqa: E402
from engine.emitter import EventEmitter, request_stats  # noqa: E402
from engine.sampling import RowState, SampleOutput  # noqa: E402
from engine.sequence import Sequence  # noqa: E402
from engine.types import GenerationEvent, GenerationRequest, SamplingParams  # noqa: E402
from modelbuilder import ensure_model  # noqa: E402

MAX_CONTEXT = 64


@pytest.fixture(scope="module")
def tokenizer() -> Any:
    return load_tokenizer(ensure_model("tiny"))


@pytest.fixture
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    lp = asyncio.new_event_loop()
    yield lp
    lp.close()


class Harness:
    """An emitter plus the sequences it serves, and what it reported finished."""

    def __init__(self, tokenizer: Any, loop: asyncio.AbstractEventLoop) -> None:
        self.tokenizer = tokenizer
        self.loop = loop
        self.finished: list[Sequence] = []
        self.emitter = EventEmitter(TokenTable(tokenizer), set(tokenizer.eos_token_ids),
                                    MAX_CONTEXT, self.finished.append)

    def seq(self, prompt_len: int = 4, **params: Any) -> Sequence:
        req = GenerationRequest("r", list(range(10, 10 + prompt_len)), SamplingParams(**params))
        seq = Sequence(req, self.loop, asyncio.Queue())
        seq.row = RowState.create(req.params, req.prompt_tokens, len(self.tokenizer))
        self.emitter.prepare(seq)
        return seq

    def feed(self, seqs: list[Sequence], tokens: list[int], **arrays: Any) -> None:
        out = SampleOutput(mx.array(tokens, dtype=mx.uint32), arrays.get("logprobs"),
                           arrays.get("top_ids"), arrays.get("top_logprobs"))
        self.emitter.on_tokens(seqs, out)

    def events(self, seq: Sequence) -> list[GenerationEvent]:
        self.loop.run_until_complete(asyncio.sleep(0))  # run the call_soon_threadsafe hand-offs
        got = []
        while not seq.out.empty():
            got.append(seq.out.get_nowait())
        return got


@pytest.fixture
def h(tokenizer: Any, loop: asyncio.AbstractEventLoop) -> Harness:
    return Harness(tokenizer, loop)


def test_tokens_become_text_and_end_at_max_tokens(h: Harness) -> None:
    ids = h.tokenizer.encode("hello brave new world", add_special_tokens=False)
    seq = h.seq(max_tokens=len(ids))
    for t in ids:
        h.feed([seq], [t])
    events = h.events(seq)
    assert [t for e in events for t in e.token_ids] == ids
    assert "".join(e.text for e in events) == h.tokenizer.decode(ids)
    assert [e.finish_reason for e in events] == [None] * (len(ids) - 1) + ["length"]
    assert seq.generated == ids and seq.last_token == ids[-1]
    stats = events[-1].stats
    assert stats is not None and (stats.prompt_tokens, stats.completion_tokens) == (4, len(ids))
    assert h.finished == [seq]


def test_stop_string_is_cut_and_ends_the_request(h: Harness) -> None:
    ids = h.tokenizer.encode("one two STOP three", add_special_tokens=False)
    seq = h.seq(stop=("STOP",))
    for t in ids:
        if not seq.finished:
            h.feed([seq], [t])
    events = h.events(seq)
    assert events[-1].finish_reason == "stop"
    assert "".join(e.text for e in events).strip() == "one two"
    assert (events[-1].stop_sequence, events[-1].text_exact) == ("STOP", False)


def test_the_final_event_names_the_earliest_stop_string(h: Harness) -> None:
    ids = h.tokenizer.encode("alpha beta gamma", add_special_tokens=False)
    seq = h.seq(stop=("gamma", "beta"))
    for t in ids:
        if not seq.finished:
            h.feed([seq], [t])
    final = h.events(seq)[-1]
    assert (final.finish_reason, final.stop_sequence) == ("stop", "beta")


def test_text_is_exact_without_a_stop_string_or_a_hidden_token(h: Harness) -> None:
    ids = h.tokenizer.encode("plain words here", add_special_tokens=False)
    eos = min(h.tokenizer.eos_token_ids)
    seq = h.seq(stop=("nowhere",))
    for t in [*ids, eos]:
        h.feed([seq], [t])
    events = h.events(seq)
    assert (events[-1].finish_reason, events[-1].stop_sequence) == ("stop", None)
    assert events[-1].text_exact
    assert "".join(e.text for e in events) == h.tokenizer.decode(ids)
    hidden = h.seq(ignore_eos=True, max_tokens=2)  # an EOS inside the text adds no text
    h.feed([hidden], [eos])
    h.feed([hidden], [ids[0]])
    assert not h.events(hidden)[-1].text_exact


def test_eos_stops_without_text_unless_ignored(h: Harness) -> None:
    eos = min(h.tokenizer.eos_token_ids)
    seq = h.seq()
    h.feed([seq], [eos])
    (event,) = h.events(seq)
    assert (event.finish_reason, event.text, event.token_ids) == ("stop", "", [eos])
    other = h.seq(ignore_eos=True, max_tokens=5)
    h.feed([other], [eos])
    assert not other.finished and h.events(other)[0].finish_reason is None


def test_the_context_length_ends_a_request(h: Harness) -> None:
    seq = h.seq(prompt_len=MAX_CONTEXT - 2)
    h.feed([seq], [100])
    h.feed([seq], [101])
    assert [e.finish_reason for e in h.events(seq)] == [None, "length"]


def test_logprobs_with_top_alternatives_and_finite_values(h: Harness) -> None:
    seq, plain = h.seq(logprobs=True, top_logprobs=2), h.seq()
    h.feed([seq, plain], [100, 101],
           logprobs=mx.array([-0.5, -1.0]),
           top_ids=mx.array([[100, 7, 8], [101, 9, 10]]),
           top_logprobs=mx.array([[-0.5, -2.0, -float("inf")], [-1.0, -3.0, -4.0]]))
    (event,) = h.events(seq)
    (lp,) = event.logprobs
    table = TokenTable(h.tokenizer)
    assert (lp.logprob, bytes(lp.bytes)) == (-0.5, table.bytes_of(100))
    assert [(t.logprob, bytes(t.bytes)) for t in lp.top_logprobs] == [
        (-0.5, table.bytes_of(100)), (-2.0, table.bytes_of(7))]
    assert h.events(plain)[0].logprobs == []
    many = h.seq(logprobs=True, top_logprobs=3)
    h.feed([many], [100], logprobs=mx.array([-float("inf")]),
           top_ids=mx.array([[100, 7, 8]]),
           top_logprobs=mx.array([[-0.5, -2.0, -float("inf")]]))
    (lp,) = h.events(many)[0].logprobs
    assert lp.logprob == -9999.0 and lp.top_logprobs[-1].logprob == -9999.0


def test_a_failed_row_finishes_with_its_error_once(h: Harness) -> None:
    seq, ok = h.seq(), h.seq()
    seq.error = "grammar: RuntimeError: boom"
    h.feed([seq, ok], [100, 101])
    (event,) = h.events(seq)
    assert (event.finish_reason, event.error) == ("error", "grammar: RuntimeError: boom")
    assert event.token_ids == [] and seq.generated == []
    assert h.events(ok)[0].token_ids == [101]
    h.emitter.finish(seq, "cancelled")  # already finished: nothing more is sent
    h.feed([seq], [102])
    assert h.events(seq) == [] and h.finished == [seq]


def test_cancel_flushes_held_back_text(h: Harness) -> None:
    seq = h.seq(stop=("zzz-never",))
    ids = h.tokenizer.encode("partial answer zz", add_special_tokens=False)
    for t in ids:
        h.feed([seq], [t])
    h.emitter.finish(seq, "cancelled")
    events = h.events(seq)
    assert events[-1].finish_reason == "cancelled" and seq.cache is None
    assert "".join(e.text for e in events) == h.tokenizer.decode(ids)


def test_request_stats_phases(h: Harness) -> None:
    seq = h.seq()
    seq.submitted, seq.admitted, seq.first_token_at, seq.last_token_at = 1.0, 1.5, 2.0, 4.0
    seq.generated, seq.cached_tokens, seq.peak_memory = [1, 2, 3], 2, 2**30
    stats = request_stats(seq, end=4.5)
    assert (stats.queue_time, stats.prompt_time, stats.completion_time) == (0.5, 0.5, 2.0)
    assert (stats.completion_tokens, stats.cached_tokens, stats.peak_memory_gib) == (3, 2, 1.0)
    never = h.seq()
    never.submitted = 1.0
    stats = request_stats(never, end=3.0)  # expired or cancelled before admission
    assert (stats.queue_time, stats.prompt_time, stats.completion_time) == (2.0, 0.0, 0.0)
