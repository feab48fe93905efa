"""The MLX chat engine: one thread, continuous batching, streamed events per request.

All MLX work runs on a single engine thread. ``generate`` (asyncio side) puts a
:class:`~engine.sequence.Sequence` on a thread-safe inbox and reads events from its own asyncio
queue, which the engine thread fills through ``loop.call_soon_threadsafe``.

Each loop iteration of the engine thread:

1. drains the inbox (new requests, cancellations);
2. expires waiting requests past ``queue_timeout`` (the caller raises ServerBusyError);
3. admits waiting requests, lowest ``priority`` first, while fewer than ``concurrent`` run,
   reusing prefix-cache KV state for their prompts;
4. runs one batched decode step for every decoding sequence (left-padded BatchKVCache);
5. prefills one chunk (``prefill_step_size`` tokens) of the first prefilling sequence; when its
   prompt is done it samples the first token and joins the decode batch.

A failure that belongs to one request (bad token ids, a raising grammar constraint) finishes that
request with ``finish_reason="error"``; a failure of a batched forward finishes the requests of
that batch. The thread itself never dies from a request.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import logging
import queue
import threading
import time
import weakref
from collections.abc import AsyncIterator
from typing import Any

import mlx.core as mx
import numpy as np
from mlx.utils import tree_flatten
from mlx_lm import load as mlx_load
from mlx_lm.models.cache import BatchKVCache, make_prompt_cache

from engine import metrics
from engine.config import EngineConfig
from engine.detokenizer import IncrementalDetokenizer, TokenTable
from engine.prefix_cache import PrefixCache, supports_prefix_cache
from engine.sampling import RowState, SampleOutput, sample
from engine.scheduler import WaitQueue
from engine.sequence import QueueTimeout, Sequence
from engine.stops import StopMatcher
from engine.templating import render_tokens
from engine.types import (
    EngineUnavailableError,
    GenerationEvent,
    GenerationRequest,
    GenerationStats,
    ServerBusyError,
    TokenLogprob,
    TopLogprob,
)

log = logging.getLogger(__name__)

_GIB = float(2**30)
MIN_PREFIX_REUSE = 32  # prefix-cache hits shorter than this are recomputed
PREFILL_BATCH_TOKENS = 2048  # padded tokens one grouped prefill may process
_DEFAULT_CONTEXT = 32768
_LIVE_ENGINES: weakref.WeakSet[ChatEngine] = weakref.WeakSet()


@atexit.register
def _shutdown_live_engines() -> None:
    """Stop engine threads before interpreter teardown (MLX aborts if one is still running)."""
    for engine in list(_LIVE_ENGINES):
        engine.shutdown()


class ChatEngine:
    """Loads a model with mlx-lm and serves generation requests from one engine thread."""

    def __init__(self, config: EngineConfig) -> None:
        self.config = config
        self.model_id = config.model
        self._inbox: queue.SimpleQueue[tuple[str, Any]] = queue.SimpleQueue()
        self._live: dict[str, int] = {}
        self._live_lock = threading.Lock()
        self._ready = threading.Event()
        self._load_error: BaseException | None = None
        self._closed = False
        self._waiting: WaitQueue[Sequence] = WaitQueue()
        self._prefilling: list[Sequence] = []
        self._decoding: list[Sequence] = []
        self._batch_cache: list[Any] | None = None
        self._pending: tuple[list[Sequence], SampleOutput] | None = None
        self._prefix: PrefixCache | None = None
        self._stats: dict[str, Any] = {}
        self._peak_memory = 0
        self._last_prefill_tps = 0.0
        self._last_decode_tps = 0.0
        self._max_decode_batch = 0
        self._thread = threading.Thread(target=self._run, name="afm-engine", daemon=True)
        self._thread.start()
        self._ready.wait()
        if self._load_error is not None:
            raise self._load_error
        _LIVE_ENGINES.add(self)

    # ----------------------------------------------------------------- caller-facing API

    def render_chat(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
        template_kwargs: dict[str, Any],
        add_generation_prompt: bool = True,
    ) -> list[int]:
        """Prompt token ids from the model's chat template."""
        return render_tokens(
            self.tokenizer, messages, tools, template_kwargs, add_generation_prompt
        )

    def encode(self, text: str, add_special_tokens: bool = False) -> list[int]:
        return list(self.tokenizer.encode(text, add_special_tokens=add_special_tokens))

    def decode(self, ids: list[int]) -> str:
        return self.tokenizer.decode(ids)

    async def generate(self, req: GenerationRequest) -> AsyncIterator[GenerationEvent]:
        """Stream events for ``req``; the last one has ``finish_reason`` and ``stats`` set.

        Raises ServerBusyError (before any event) when no slot frees within ``queue_timeout``.
        Closing the iterator early cancels the request.
        """
        if self._closed:
            raise EngineUnavailableError("the chat engine is shut down")
        seq = Sequence(req, asyncio.get_running_loop(), asyncio.Queue())
        with self._live_lock:
            self._live[req.request_id] = self._live.get(req.request_id, 0) + 1
        self._inbox.put(("submit", seq))
        done = False
        try:
            while True:
                item = await seq.out.get()
                if isinstance(item, QueueTimeout):
                    done = True
                    raise ServerBusyError(
                        f"no generation slot became free within {self.config.queue_timeout:g}s"
                    )
                if item.finish_reason is not None:
                    done = True
                yield item
                if done:
                    return
        finally:
            if not done:
                self._inbox.put(("cancel_seq", seq))

    def cancel(self, request_id: str) -> bool:
        """Cancel a queued or running request; it ends with finish_reason "cancelled"."""
        with self._live_lock:
            known = request_id in self._live
        if known:
            self._inbox.put(("cancel", request_id))
        return known

    def active_request_ids(self) -> set[str]:
        with self._live_lock:
            return set(self._live)

    def stats(self) -> dict[str, Any]:
        """A snapshot: running/waiting counts, memory (bytes) and last measured throughputs."""
        return dict(self._stats)

    def shutdown(self) -> None:
        """Stop the engine thread; unfinished requests end with finish_reason "cancelled"."""
        if self._closed:
            return
        self._closed = True
        self._inbox.put(("stop", None))
        self._thread.join(timeout=60)
        if not self._thread.is_alive():
            self._close_out()  # a request submitted while the thread was stopping

    # ----------------------------------------------------------------- engine thread

    def _run(self) -> None:
        try:
            self._load()
        except BaseException as exc:  # noqa: BLE001 - reported to the constructor
            self._load_error = exc
            self._ready.set()
            return
        self._ready.set()
        while True:
            try:
                if not self._drain_inbox():
                    break
                self._iterate()
            except Exception as exc:  # noqa: BLE001 - the engine thread must survive anything
                log.exception("engine iteration failed")
                self._fail_all(f"{type(exc).__name__}: {exc}")
        self._close_out()

    def _iterate(self) -> None:
        """One scheduling round: expire, admit, one decode step, one prefill chunk."""
        for seq in self._waiting.expire(time.perf_counter()):
            self._unregister(seq)
            seq.send(QueueTimeout())
        self._admit()
        if self._decoding:
            self._guarded_decode()
        if self._prefilling:
            self._guarded_prefill()
        self._publish_stats()

    def _fail_all(self, message: str) -> None:
        """Finish every admitted request with an error and reset the batch state."""
        for seq in self._prefilling + self._decoding:
            if not seq.finished:
                with contextlib.suppress(Exception):
                    self._finish(seq, "error", error=message)
        self._prefilling, self._decoding, self._batch_cache = [], [], None
        self._pending = None

    def _close_out(self) -> None:
        """Thread exit: cancel what is queued, running, or still in the inbox."""
        pending = self._waiting.items() + self._prefilling + self._decoding
        while True:
            try:
                kind, payload = self._inbox.get_nowait()
            except queue.Empty:
                break
            if kind == "submit":
                pending.append(payload)
        for seq in pending:
            with contextlib.suppress(Exception):
                self._finish(seq, "cancelled")
        self._prefilling, self._decoding, self._batch_cache = [], [], None
        self._pending = None
        with contextlib.suppress(Exception):
            self._publish_stats()

    def _load(self) -> None:
        model, tokenizer = mlx_load(self.config.model)[:2]
        self.model = model
        self.tokenizer = tokenizer
        args = getattr(model, "args", None)
        self.vocab_size = int(getattr(args, "vocab_size", 0) or len(tokenizer))
        self.max_context = int(getattr(args, "max_position_embeddings", 0) or _DEFAULT_CONTEXT)
        self.eos_token_ids = set(tokenizer.eos_token_ids)
        self.token_table = TokenTable(tokenizer)
        self.weights_bytes = sum(v.nbytes for _, v in tree_flatten(model.parameters()))
        # plain KV caches can be prefilled together in one left-padded batch
        self._plain_kv = supports_prefix_cache(make_prompt_cache(model))
        if self.config.prefix_cache and supports_prefix_cache(make_prompt_cache(model)):
            self._prefix = PrefixCache(self.config.prefix_cache_bytes)
        self._publish_stats()

    def _drain_inbox(self) -> bool:
        """Apply pending messages, blocking only when idle before the first. False means stop."""
        block = not (self._decoding or self._prefilling or len(self._waiting))
        while True:
            try:
                kind, payload = self._inbox.get() if block else self._inbox.get_nowait()
            except queue.Empty:
                return True
            block = False
            if kind == "stop":
                return False
            if kind == "submit":
                deadline = payload.submitted + self.config.queue_timeout
                self._waiting.push(payload, payload.request.priority, deadline)
            elif kind == "cancel":
                self._cancel_where(lambda s, rid=payload: s.request.request_id == rid)
            elif kind == "cancel_seq":
                self._cancel_where(lambda s, target=payload: s is target)

    def _cancel_where(self, pred: Any) -> None:
        for seq in self._waiting.remove(pred):
            self._finish(seq, "cancelled")
        for seq in [s for s in self._prefilling if pred(s)]:
            self._prefilling.remove(seq)
            self._finish(seq, "cancelled")
        gone = [i for i, s in enumerate(self._decoding) if pred(s)]
        for i in gone:
            self._finish(self._decoding[i], "cancelled")
        if gone:
            self._drop_rows(gone)

    def _admit(self) -> None:
        while len(self._waiting) and self._running() < self.config.concurrent:
            seq = self._waiting.pop()
            seq.admitted = time.perf_counter()
            try:
                self._setup(seq)
            except ValueError as exc:
                log.warning("request %s rejected: %s", seq.request.request_id, exc)
                self._finish(seq, "error", error=str(exc))
                continue
            except Exception as exc:  # noqa: BLE001 - a bad request must not kill the thread
                log.exception("request %s rejected", seq.request.request_id)
                self._finish(seq, "error", error=f"{type(exc).__name__}: {exc}")
                continue
            self._prefilling.append(seq)
            self._prefilling.sort(key=lambda s: s.sort_key)

    def _setup(self, seq: Sequence) -> None:
        """Validate the prompt, create sampling/text state and the (prefix-reused) KV cache."""
        prompt = seq.prompt
        if not prompt:
            raise ValueError("empty prompt")
        bad = [t for t in prompt if not (0 <= int(t) < self.vocab_size)]
        if bad:
            raise ValueError(f"token id {bad[0]} outside the vocabulary (0..{self.vocab_size - 1})")
        if len(prompt) >= self.max_context:
            raise ValueError(
                f"prompt of {len(prompt)} tokens does not fit the context of {self.max_context}"
            )
        params = seq.request.params
        seq.row = RowState.create(params, prompt, self.vocab_size)
        seq.detok = IncrementalDetokenizer(self.token_table)
        seq.stops = StopMatcher(params.stop)
        metrics.prompt_tokens.inc(len(prompt))
        reused, cache = 0, None
        if self._prefix is not None:
            reused, cache = self._prefix.lookup(prompt, limit=len(prompt) - 1)
            if reused < MIN_PREFIX_REUSE:  # cheaper to recompute, and keeps batched prefill
                reused, cache = 0, None
            metrics.prefix_cache_queries.inc(len(prompt))
            metrics.prefix_cache_hits.inc(reused)
        seq.cache = cache if cache is not None else make_prompt_cache(self.model)
        seq.prefill_pos = seq.cached_tokens = reused

    def _running(self) -> int:
        return len(self._prefilling) + len(self._decoding)

    # ----------------------------------------------------------------- prefill

    def _guarded_prefill(self) -> None:
        group = self._prefill_group()
        if len(group) > 1:
            try:
                self._prefill_together(group)
            except Exception as exc:  # noqa: BLE001
                log.exception("grouped prefill failed")
                for seq in group:
                    if seq in self._prefilling:
                        self._prefilling.remove(seq)
                    if not seq.finished:
                        self._finish(seq, "error", error=f"{type(exc).__name__}: {exc}")
            return
        seq = self._prefilling[0]
        try:
            self._prefill_chunk(seq)
        except Exception as exc:  # noqa: BLE001
            log.exception("prefill failed for %s", seq.request.request_id)
            if seq in self._prefilling:
                self._prefilling.remove(seq)
            if not seq.finished:
                self._finish(seq, "error", error=f"{type(exc).__name__}: {exc}")

    def _prefill_group(self) -> list[Sequence]:
        """Newcomers whose whole prompt fits one chunk and reuses no cache, led by the next
        sequence in priority order: they are prefilled together in one batched forward."""
        step = self.config.prefill_step_size
        if not self._plain_kv:
            return []
        group: list[Sequence] = []
        longest = 0
        for seq in self._prefilling:
            fresh = seq.prefill_pos == 0 and len(seq.prompt) <= step
            if not fresh:
                if not group:
                    return []  # the next in line needs chunked or cached prefill first
                continue
            longest = max(longest, len(seq.prompt))
            if longest * (len(group) + 1) > PREFILL_BATCH_TOKENS:
                break
            group.append(seq)
        return group

    def _prefill_together(self, group: list[Sequence]) -> None:
        """Prefill several fresh prompts in one left-padded batch, sample their first tokens and
        move the survivors into the decode batch."""
        tic = time.perf_counter()
        mx.reset_peak_memory()
        longest = max(len(s.prompt) for s in group)
        pads = [longest - len(s.prompt) for s in group]
        cache = [BatchKVCache(pads) for _ in make_prompt_cache(self.model)]
        inputs = mx.array([[0] * pad + s.prompt for s, pad in zip(group, pads, strict=True)])
        logits = self.model(inputs, cache=cache)[:, -1, :]
        bitmask, masked = self._fill_masks(group)
        out = sample(logits, [s.row for s in group if s.row is not None], bitmask, masked)
        mx.eval(out.arrays(), [c.state for c in cache])
        for i, seq in enumerate(group):
            seq.prefill_pos = len(seq.prompt)
            self._note_prefill(seq, len(seq.prompt), tic)
            self._prefilling.remove(seq)
            if self._prefix is not None:
                self._prefix.insert(seq.prompt, [c.extract(i) for c in cache])
        self._on_tokens(group, out)
        keep = [i for i, s in enumerate(group) if not s.finished]
        if not keep:
            return
        if len(keep) < len(group):
            for c in cache:
                c.filter(keep)
        if self._batch_cache is None:
            self._batch_cache = cache
        else:
            for batch_c, new_c in zip(self._batch_cache, cache, strict=True):
                batch_c.extend(new_c)
        for i in keep:
            group[i].cache = None
            self._decoding.append(group[i])

    def _prefill_chunk(self, seq: Sequence) -> None:
        prompt, step = seq.prompt, self.config.prefill_step_size
        start = seq.prefill_pos
        end = min(start + step, len(prompt))
        last = end == len(prompt)
        tic = time.perf_counter()
        mx.reset_peak_memory()
        if not last:
            self.model(mx.array([prompt[start:end]]), cache=seq.cache)
            mx.eval([c.state for c in seq.cache])
            seq.prefill_pos = end
            self._note_prefill(seq, end - start, tic)
            return
        if end - 1 > start:
            self.model(mx.array([prompt[start : end - 1]]), cache=seq.cache)
        logits = self.model(mx.array([prompt[end - 1 :]]), cache=seq.cache)[:, -1, :]
        bitmask, masked = self._fill_masks([seq])
        out = sample(logits, [seq.row], bitmask, masked)
        mx.eval(out.arrays(), [c.state for c in seq.cache])
        seq.prefill_pos = end
        self._note_prefill(seq, end - start, tic)
        self._prefilling.remove(seq)
        if self._prefix is not None:
            self._prefix.insert(prompt, seq.cache)
        self._on_tokens([seq], out)
        if seq.finished:
            return
        self._join_batch(seq)

    def _note_prefill(self, seq: Sequence, n: int, tic: float) -> None:
        dt = time.perf_counter() - tic
        if dt > 0:
            self._last_prefill_tps = n / dt
        seq.peak_memory = max(seq.peak_memory, mx.get_peak_memory())

    def _join_batch(self, seq: Sequence) -> None:
        assert seq.cache is not None
        single = [c.merge([c]) for c in seq.cache]
        if self._batch_cache is None:
            self._batch_cache = single
        else:
            for batch_c, new_c in zip(self._batch_cache, single, strict=True):
                batch_c.extend(new_c)
        seq.cache = None
        self._decoding.append(seq)

    def _drop_rows(self, rows: list[int]) -> None:
        """Remove decode-batch rows (their sequences already finished)."""
        drop = set(rows)
        keep = [i for i in range(len(self._decoding)) if i not in drop]
        self._decoding = [self._decoding[i] for i in keep]
        if not keep:
            self._batch_cache = None
            self._pending = None
        elif self._batch_cache is not None:
            for c in self._batch_cache:
                c.filter(keep)

    # ----------------------------------------------------------------- decode

    def _guarded_decode(self) -> None:
        try:
            self._decode_step()
        except Exception as exc:  # noqa: BLE001
            log.exception("decode step failed")
            message = f"{type(exc).__name__}: {exc}"
            for seq in self._decoding:
                if not seq.finished:
                    self._finish(seq, "error", error=message)
            self._decoding = []
            self._batch_cache = None
            self._pending = None

    def _decode_step(self) -> None:
        """One decode step for the batch, software-pipelined when the batch allows it.

        When no row needs its previous token before the next step can be built (no grammar,
        no penalties) and the batch is stable, step k+1 is launched with ``mx.async_eval`` from
        step k's still-lazy tokens *before* step k's tokens are turned into events, so Python
        work (detokenising, stop matching, event hand-off, the HTTP side) overlaps the model's
        compute. Rows that finish at step k get one discarded extra step.
        """
        seqs = self._decoding
        self._max_decode_batch = max(self._max_decode_batch, len(seqs))
        tic = time.perf_counter()
        mx.reset_peak_memory()
        pending = self._pending
        self._pending = None
        if pending is None:
            inputs = mx.array([[s.last_token] for s in seqs], dtype=mx.uint32)
            pending = (list(seqs), self._launch(seqs, inputs, ahead=0))
        p_seqs, p_out = pending
        if self._can_pipeline(p_seqs, lazy=True):
            self._pending = (list(seqs), self._launch(seqs, p_out.tokens[:, None], ahead=1))
        elif self._can_pipeline(p_seqs, lazy=False):
            self._pending = (list(seqs), self._launch_after_accept(seqs, p_out))
        self._collect(p_seqs, p_out, tic)
        if any(s.finished for s in self._decoding) and self._pending is not None:
            # the step already launched includes rows that just finished: take it now
            q_seqs, q_out = self._pending
            self._pending = None
            self._collect(q_seqs, q_out, time.perf_counter())
        done = [i for i, s in enumerate(self._decoding) if s.finished]
        if done:
            self._store_finished([self._decoding[i] for i in done], done)
            self._drop_rows(done)

    def _launch(self, seqs: list[Sequence], inputs: mx.array, ahead: int) -> SampleOutput:
        """Build one decode step's graph and start evaluating it (asynchronously)."""
        bitmask, masked = self._fill_masks(seqs) if ahead == 0 else (None, None)
        logits = self.model(inputs, cache=self._batch_cache)[:, -1, :]
        out = sample(logits, [s.row for s in seqs if s.row is not None], bitmask, masked,
                     ahead=ahead)
        mx.async_eval(out.arrays())
        return out

    def _collect(self, seqs: list[Sequence], out: SampleOutput, tic: float) -> None:
        """Wait for a launched step and turn its tokens into events."""
        mx.eval(out.arrays())
        dt = time.perf_counter() - tic
        if dt > 0:
            self._last_decode_tps = len(seqs) / dt
        peak = mx.get_peak_memory()
        for s in seqs:
            s.peak_memory = max(s.peak_memory, peak)
        self._on_tokens(seqs, out)

    def _launch_after_accept(self, seqs: list[Sequence], out: SampleOutput) -> SampleOutput:
        """Read step k's tokens, feed them to each row's sampling state and grammar, then launch
        step k+1 (with fresh masks) before step k's text and events are produced."""
        tokens = out.tokens.tolist()
        for seq, token in zip(seqs, tokens, strict=True):
            if seq.row is None:
                continue
            seq.row.accept(int(token))
            constraint = seq.request.constraint
            if constraint is not None:
                try:
                    constraint.accept(int(token))
                except Exception as exc:  # noqa: BLE001 - fails only this request
                    seq.error = f"grammar: {type(exc).__name__}: {exc}"
            seq.pre_accepted = True
        return self._launch(seqs, out.tokens[:, None], ahead=0)

    def _can_pipeline(self, launched: list[Sequence], *, lazy: bool) -> bool:
        """Step k+1 may be launched before step k's tokens become events: same rows as
        launched and no newcomer waiting to join. ``lazy`` (build k+1 from k's still-lazy
        tokens) also needs rows whose next sampling depends on nothing but the token itself
        (no grammar state, no penalty counts)."""
        rows = self._decoding
        if self._prefilling or len(rows) != len(launched):
            return False
        for seq, other in zip(rows, launched, strict=True):
            row = seq.row
            if seq is not other or seq.finished or seq.error is not None or row is None:
                return False
            if lazy and (seq.request.constraint is not None
                         or row.counts is not None or row.seen is not None):
                return False
        return True

    def _store_finished(self, seqs: list[Sequence], rows: list[int]) -> None:
        """Keep the KV state (prompt + output) of cleanly finished rows in the prefix cache."""
        if self._prefix is None or self._batch_cache is None:
            return
        for seq, row in zip(seqs, rows, strict=True):
            if seq.error is not None or seq.request.constraint is not None:
                continue
            tokens = seq.prompt + seq.generated[:-1]
            try:
                cache = [c.extract(row) for c in self._batch_cache]
                for c in cache:  # a pipelined step may have run one token past the end
                    if c.offset > len(tokens) and c.is_trimmable():
                        c.trim(c.offset - len(tokens))
                if all(c.offset == len(tokens) for c in cache):
                    self._prefix.insert(tokens, cache)
            except Exception:  # noqa: BLE001 - caching is best effort
                log.exception("prefix cache store failed")

    def _fill_masks(self, seqs: list[Sequence]) -> tuple[np.ndarray | None, list[bool] | None]:
        """Ask each constraint for its allowed tokens; a raising constraint fails its request."""
        if not any(s.request.constraint is not None for s in seqs):
            return None, None
        words = (self.vocab_size + 31) // 32
        bitmask = np.full((len(seqs), words), -1, dtype=np.int32)
        masked = [False] * len(seqs)
        for i, s in enumerate(seqs):
            constraint = s.request.constraint
            if constraint is None or s.error is not None:
                continue
            try:
                masked[i] = bool(constraint.fill_bitmask(bitmask, i))
            except Exception as exc:  # noqa: BLE001
                s.error = f"grammar: {type(exc).__name__}: {exc}"
        return bitmask, masked

    # ----------------------------------------------------------------- tokens -> events

    def _on_tokens(self, seqs: list[Sequence], out: SampleOutput) -> None:
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
                self._finish(seq, "error", error=seq.error)
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
                self._advance(seq, token, logprobs, now)
            except Exception as exc:  # noqa: BLE001
                log.exception("token handling failed for %s", seq.request.request_id)
                self._finish(seq, "error", error=f"{type(exc).__name__}: {exc}")

    def _advance(self, seq: Sequence, token: int, logprobs: list[TokenLogprob], now: float) -> None:
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
        self._finish(seq, reason, text=text, token_ids=[token], logprobs=logprobs)

    def _token_logprob(self, token: int, logprob: float, tops: list[TopLogprob]) -> TokenLogprob:
        raw = self.token_table.bytes_of(token)
        return TokenLogprob(
            token=raw.decode("utf-8", errors="replace"),
            logprob=_finite(logprob),
            bytes=list(raw),
            top_logprobs=tops,
        )

    def _top(self, token: int, logprob: float) -> TopLogprob:
        raw = self.token_table.bytes_of(int(token))
        return TopLogprob(
            token=raw.decode("utf-8", errors="replace"), logprob=_finite(logprob), bytes=list(raw)
        )

    def _finish(
        self,
        seq: Sequence,
        reason: str,
        *,
        text: str = "",
        token_ids: list[int] | None = None,
        logprobs: list[TokenLogprob] | None = None,
        error: str | None = None,
    ) -> None:
        """Send the final event, record metrics and forget the request."""
        if seq.finished:
            return
        seq.finished = True
        if reason == "error" and seq.error is None:
            seq.error = error or "generation failed"
        if reason != "error" and seq.detok is not None and seq.stops is not None:
            if not seq.stops.stopped:
                text += seq.stops.feed(seq.detok.flush())
            text += seq.stops.flush()
        end = time.perf_counter()
        admitted = seq.admitted or end
        first = seq.first_token_at or end
        last = seq.last_token_at or first
        stats = GenerationStats(
            prompt_tokens=len(seq.prompt),
            cached_tokens=seq.cached_tokens,
            completion_tokens=len(seq.generated),
            queue_time=admitted - seq.submitted,
            prompt_time=(first - admitted) if seq.admitted else 0.0,
            completion_time=max(last - first, 0.0),
            peak_memory_gib=seq.peak_memory / _GIB,
        )
        seq.cache = None
        self._unregister(seq)
        seq.send(
            GenerationEvent(
                text=text,
                token_ids=token_ids or [],
                logprobs=logprobs or [],
                finish_reason=reason,
                stats=stats,
                error=seq.error if reason == "error" else None,
            )
        )
        self._observe(seq, reason, stats, end)

    def _observe(self, seq: Sequence, reason: str, stats: GenerationStats, end: float) -> None:
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

    def _unregister(self, seq: Sequence) -> None:
        rid = seq.request.request_id
        with self._live_lock:
            n = self._live.get(rid, 0) - 1
            if n > 0:
                self._live[rid] = n
            else:
                self._live.pop(rid, None)

    def _publish_stats(self) -> None:
        kv = 0
        if self._batch_cache is not None:
            kv += sum(c.nbytes for c in self._batch_cache)
        for s in self._prefilling:
            if s.cache is not None:
                kv += sum(c.nbytes for c in s.cache)
        with contextlib.suppress(Exception):
            self._peak_memory = max(self._peak_memory, mx.get_peak_memory())
        running, waiting = self._running(), len(self._waiting)
        metrics.num_requests_running.set(running)
        metrics.num_requests_waiting.set(waiting)
        prefix = self._prefix
        self._stats = {
            "running": running,
            "waiting": waiting,
            "concurrent": self.config.concurrent,
            "decode_batch": len(self._decoding),
            "max_decode_batch": self._max_decode_batch,
            "weights_bytes": getattr(self, "weights_bytes", 0),
            "kv_bytes": kv,
            "prefix_cache_bytes": prefix.nbytes if prefix is not None else 0,
            "prefix_cache_entries": len(prefix) if prefix is not None else 0,
            "active_memory_bytes": mx.get_active_memory(),
            "peak_memory_bytes": self._peak_memory,
            "last_prefill_tokens_per_second": self._last_prefill_tps,
            "last_decode_tokens_per_second": self._last_decode_tps,
        }


def _finite(x: float) -> float:
    """JSON has no -inf: clamp impossible tokens to a very negative finite logprob."""
    return x if x > -1e30 else -9999.0
