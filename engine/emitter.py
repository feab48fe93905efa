"""Event emission: sampled tokens become :class:`~engine.types.GenerationEvent`s.

Per token: detokenise, match stop strings, end on EOS, a finished grammar or a length limit, attach
logprobs, and hand the event to the caller's event loop. The last event of a request carries
``finish_reason`` and :class:`~engine.types.GenerationStats`; finishing also records the request's
Prometheus metrics. Runs on the engine thread; knows nothing of the model beyond its token table.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from engine import metrics
from engine.detokenizer import IncrementalDetokenizer, TokenTable
from engine.sampling import SampleOutput
from engine.sequence import Sequence
from engine.stops import StopMatcher
from engine.types import GenerationEvent, GenerationStats, TokenLogprob, TopLogprob

log = logging.getLogger(__name__)

_GIB = float(2**30)


class EventEmitter:
    """Turns each step's tokens into events and finishes requests.

    ``on_finished`` is called once per request as it finishes, before its last event is sent.
    """

    def __init__(
        self,
        token_table: TokenTable,
        eos_token_ids: set[int],
        max_context: int,
        on_finished: Callable[[Sequence], None],
    ) -> None:
        self.token_table = token_table
        self.eos_token_ids = eos_token_ids
        self.max_context = max_context
        self.on_finished = on_finished

    def prepare(self, seq: Sequence) -> None:
        """Create the request's text state (incremental detokenizer and stop matcher)."""
        seq.detok = IncrementalDetokenizer(self.token_table)
        seq.stops = StopMatcher(seq.request.params.stop)

    def on_tokens(self, seqs: list[Sequence], out: SampleOutput) -> None:
        """Account one sampled token per sequence (already evaluated); skip finished ones and
        finish those whose row failed during the step."""
        tokens = out.tokens.tolist()
        want_lp = any(s.request.params.logprobs for s in seqs)
        chosen = out.logprobs.tolist() if want_lp else None
        top_ids = out.top_ids.tolist() if want_lp and out.top_ids is not None else None
        top_lp = out.top_logprobs.tolist() if want_lp and out.top_logprobs is not None else None
        now = time.perf_counter()
        for i, seq in enumerate(seqs):
            if seq.finished:
                continue
            if seq.error is not None:
                self.finish(seq, "error", error=seq.error)
                continue
            token = int(tokens[i])
            logprobs: list[TokenLogprob] = []
            if seq.request.params.logprobs and chosen is not None:
                n = seq.request.params.top_logprobs
                tops = []
                if n and top_ids is not None and top_lp is not None:
                    tops = [
                        self._top(t, v) for t, v in zip(top_ids[i][:n], top_lp[i][:n], strict=True)
                    ]
                logprobs = [self._token_logprob(token, chosen[i], tops)]
            try:
                self.advance(seq, token, logprobs, now)
            except Exception as exc:  # noqa: BLE001
                log.exception("token handling failed for %s", seq.request.request_id)
                self.finish(seq, "error", error=f"{type(exc).__name__}: {exc}")

    def advance(self, seq: Sequence, token: int, logprobs: list[TokenLogprob], now: float) -> None:
        """Account one sampled token: text, stop checks, constraint, limits; emit an event."""
        assert seq.row is not None and seq.detok is not None and seq.stops is not None
        params = seq.request.params
        if not seq.generated:
            seq.first_token_at = now
        seq.last_token_at = now
        seq.generated.append(token)
        seq.last_token = token
        pre_accepted, seq.pre_accepted = seq.pre_accepted, False
        if not pre_accepted:
            seq.row.accept(token)
        metrics.generation_tokens.inc()
        reason: str | None = None
        text = ""
        if token in self.eos_token_ids and not params.ignore_eos:
            reason = "stop"
        else:
            if token in self.token_table.special_ids:
                seq.hidden_token = True
            text = seq.stops.feed(seq.detok.add(token))
            if seq.stops.stopped:
                reason = "stop"
        constraint = seq.request.constraint
        if constraint is not None and reason is None:
            if not pre_accepted:
                constraint.accept(token)
            if constraint.is_finished():
                reason = "stop"
        if reason is None and (
            len(seq.generated) >= params.max_tokens
            or len(seq.prompt) + len(seq.generated) >= self.max_context
        ):
            reason = "length"
        if reason is None:
            seq.send(GenerationEvent(text=text, token_ids=[token], logprobs=logprobs))
            return
        self.finish(seq, reason, text=text, token_ids=[token], logprobs=logprobs)

    def _token_logprob(self, token: int, logprob: float, tops: list[TopLogprob]) -> TokenLogprob:
        raw = self.token_table.bytes_of(token)
        return TokenLogprob(
            token=raw.decode("utf-8", errors="replace"),
            logprob=finite(logprob),
            bytes=list(raw),
            top_logprobs=tops,
        )

    def _top(self, token: int, logprob: float) -> TopLogprob:
        raw = self.token_table.bytes_of(int(token))
        return TopLogprob(
            token=raw.decode("utf-8", errors="replace"), logprob=finite(logprob), bytes=list(raw)
        )

    def finish(
        self,
        seq: Sequence,
        reason: str,
        *,
        text: str = "",
        token_ids: list[int] | None = None,
        logprobs: list[TokenLogprob] | None = None,
        error: str | None = None,
    ) -> None:
        """Send the final event (with the text held back), record metrics, forget the request."""
        if seq.finished:
            return
        seq.finished = True
        if reason == "error" and seq.error is None:
            seq.error = error or "generation failed"
        if reason != "error" and seq.detok is not None and seq.stops is not None:
            if not seq.stops.stopped:
                text += seq.stops.feed(seq.detok.flush())
            text += seq.stops.flush()
        stops = seq.stops
        end = time.perf_counter()
        stats = request_stats(seq, end)
        seq.cache = None
        self.on_finished(seq)
        seq.send(
            GenerationEvent(
                text=text,
                token_ids=token_ids or [],
                logprobs=logprobs or [],
                finish_reason=reason,
                stats=stats,
                error=seq.error if reason == "error" else None,
                stop_sequence=stops.matched if stops is not None else None,
                text_exact=text_exact(seq, self.token_table),
            )
        )
        observe(seq, reason, stats, end)


def text_exact(seq: Sequence, table: TokenTable) -> bool:
    """Whether the request's text is exactly its tokens' decoding (less an ending EOS): no
    stop string cut it, no hidden token was dropped, and the vocabulary's bytes are known."""
    return (table.kind != "naive" and not seq.hidden_token
            and not (seq.stops is not None and seq.stops.stopped))


def request_stats(seq: Sequence, end: float) -> GenerationStats:
    """Token counts and phase times of a request finishing at ``end`` (perf_counter)."""
    admitted = seq.admitted or end
    first = seq.first_token_at or end
    last = seq.last_token_at or first
    return GenerationStats(
        prompt_tokens=len(seq.prompt),
        cached_tokens=seq.cached_tokens,
        completion_tokens=len(seq.generated),
        queue_time=admitted - seq.submitted,
        prompt_time=(first - admitted) if seq.admitted else 0.0,
        completion_time=max(last - first, 0.0),
        peak_memory_gib=seq.peak_memory / _GIB,
        spec_draft_tokens=seq.spec_draft_tokens,
        spec_accepted_tokens=seq.spec_accepted_tokens,
    )


def observe(seq: Sequence, reason: str, stats: GenerationStats, end: float) -> None:
    """Record a finished request in the Prometheus metrics."""
    metrics.request_success.labels(finished_reason=reason).inc()
    metrics.e2e_request_latency.observe(end - seq.submitted)
    metrics.request_queue_time.observe(stats.queue_time)
    if seq.generated:
        metrics.request_prefill_time.observe(stats.prompt_time)
        metrics.request_decode_time.observe(stats.completion_time)
        metrics.time_to_first_token.observe(seq.first_token_at - seq.submitted)
        if len(seq.generated) > 1:
            metrics.time_per_output_token.observe(
                stats.completion_time / (len(seq.generated) - 1)
            )


def finite(x: float) -> float:
    """JSON has no -inf: clamp impossible tokens to a very negative finite logprob."""
    return x if x > -1e30 else -9999.0
