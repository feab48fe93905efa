"""The engine thread's work: inbox messages and scheduling rounds over the three engine units.

:class:`~engine.scheduler.Scheduler` decides, :class:`~engine.model_runner.ModelRunner` computes,
:class:`~engine.emitter.EventEmitter` turns tokens into events. Each round:

1. drains the inbox (new requests, cancellations);
2. expires waiting requests past ``queue_timeout`` (the caller raises ServerBusyError);
3. admits waiting requests, lowest ``priority`` first, while fewer than ``concurrent`` run,
   reusing prefix-cache KV state for their prompts;
4. runs one batched decode step for every decoding sequence (left-padded BatchKVCache);
5. prefills one chunk of the first prefilling sequence, or several fresh short prompts together;
   a sequence whose prompt is done samples its first token and joins the decode batch.

A failure that belongs to one request (bad token ids, a raising grammar constraint) finishes that
request with ``finish_reason="error"``; a failure of a batched forward finishes the requests of
that batch. The thread itself never dies from a request.
"""

from __future__ import annotations

import contextlib
import logging
import queue
import time
from collections.abc import Callable
from typing import Any

import mlx.core as mx

from engine import distributed, metrics
from engine.config import EngineConfig
from engine.emitter import EventEmitter
from engine.model_runner import ModelRunner
from engine.scheduler import Scheduler
from engine.sequence import Draining, QueueTimeout, Sequence
from engine.speculative import Speculator

log = logging.getLogger(__name__)

SETTLE_SECONDS = 0.002
"""Woken from idle by a request, the loop waits this long for a second one before it starts."""
BURST_GAP = 0.015
"""Once a second request came that soon, more are taken in while they keep coming this close
together: under ``afm serve`` the requests of 16 clients that send at once reach the engine
over ~40 ms, up to ~13 ms apart (each is parsed, validated and templated in turn), and taken in
together they prefill as one group instead of two or three one after another."""
SETTLE_LIMIT = 0.06  # at most this long in all

Inbox = queue.SimpleQueue[tuple[str, Any]]
"""Messages to the engine thread: ("submit", Sequence), ("cancel", request_id),
("cancel_seq", Sequence), ("drain", None), ("cancel_all", None), ("stop", None)."""


class EngineLoop:
    """Owns the scheduler, runner and emitter; every method runs on the engine thread.

    Constructing it loads the model. ``on_finished`` is told of each request that leaves the
    engine (finished or expired).
    """

    def __init__(
        self, config: EngineConfig, inbox: Inbox, on_finished: Callable[[Sequence], None]
    ) -> None:
        self.config = config
        self.inbox = inbox
        self.on_finished = on_finished
        self.runner = ModelRunner(config)
        self.scheduler = Scheduler(config.concurrent, config.queue_timeout,
                                   config.prefill_step_size)
        self.speculator = Speculator.create(self.runner)  # None unless --spec-ngram/--draft-model
        self.emitter = EventEmitter(self.runner.token_table, self.runner.eos_token_ids,
                                    self.runner.max_context, on_finished)
        self.stats: dict[str, Any] = {}
        self.lost: str | None = None  # why a sharded group stopped serving
        self.draining = False  # shutting down: admitted requests run on, no new ones
        self._peak_memory = 0
        self._published = (0, 0)  # running, waiting: this engine's share of the gauges
        self.publish_stats()
        if self.runner.channel is not None:
            self.runner.channel.watch(self._stalled)

    def _stalled(self, reason: str) -> None:
        """Sharded, on the watchdog thread: the engine thread hangs in a collective that will
        never complete, so end every request from here (it will not touch them again)."""
        self.lost = reason
        log.error("%s", reason)
        distributed.report_lost(reason)  # /health says so before clients see the error
        with contextlib.suppress(Exception):
            self.fail_all(reason)

    def run(self) -> None:
        """Serve until a "stop" message, then cancel whatever is left.

        Sharded, a failed step means the ranks are out of step or one is gone: every request
        ends with an error, :attr:`lost` says why and the loop ends (the caller stops serving).
        """
        while True:
            try:
                if not self.drain_inbox():
                    break
                self.iterate()
            except Exception as exc:  # noqa: BLE001 - the engine thread must survive anything
                message = f"{type(exc).__name__}: {exc}"
                if self.runner.channel is not None:
                    self.runner.channel.closed = True
                    self.lost = f"the sharded group failed: {message}"
                log.exception("engine iteration failed")
                if self.lost:  # /health says so before clients see the error
                    distributed.report_lost(self.lost)
                self.fail_all(self.lost or message)
                if self.lost:
                    break
        self.close_out()

    def drain_inbox(self) -> bool:
        """Apply pending messages, blocking only when idle before the first (and then taking in
        a burst of requests as it lands: :data:`SETTLE_SECONDS`). False means stop."""
        block = self.scheduler.idle(len(self.runner.decoding))
        beat = self.runner.channel is not None
        settle_until = 0.0  # woken from idle by a request: wait for more until then
        gap = 0.0  # how long to wait for the next one (read when the first comes)
        while True:
            try:
                wait = min(gap, settle_until - time.perf_counter())
                if not block and wait > 0:
                    kind, payload = self.inbox.get(timeout=wait)
                elif not block:
                    kind, payload = self.inbox.get_nowait()
                elif beat:  # sharded and idle: check the other ranks are still there
                    kind, payload = self.inbox.get(timeout=distributed.HEARTBEAT_SECONDS)
                else:
                    kind, payload = self.inbox.get()
            except queue.Empty:
                if block:
                    self.runner.heartbeat()
                    continue
                return True
            if block and kind == "submit":
                settle_until = time.perf_counter() + SETTLE_LIMIT
                gap = SETTLE_SECONDS
            elif settle_until and kind == "submit":
                gap = BURST_GAP  # a burst: wait for the rest of it
            block = False
            if kind == "stop":
                return False
            if kind == "submit":
                if self.draining:
                    self.refuse([payload])
                else:
                    self.scheduler.submit(payload)
            elif kind == "drain":
                self.draining = True
                self.refuse(self.scheduler.waiting.remove(lambda s: True))
            elif kind == "cancel_all":
                self.cancel_where(lambda s: True)
            elif kind == "cancel":
                self.cancel_where(lambda s, rid=payload: s.request.request_id == rid)
            elif kind == "cancel_seq":
                self.cancel_where(lambda s, target=payload: s is target)

    def iterate(self) -> None:
        """One scheduling round: expire, admit, one decode step, one prefill."""
        for seq in self.scheduler.expire(time.perf_counter()):
            self.on_finished(seq)
            seq.send(QueueTimeout())
        self.admit()
        if self.runner.decoding:
            self.guarded_decode()
        if self.scheduler.prefilling:
            self.guarded_prefill()
        self.publish_stats()

    def refuse(self, seqs: list[Sequence]) -> None:
        """End requests that were never admitted: their callers raise EngineDrainingError."""
        for seq in seqs:
            self.on_finished(seq)
            seq.send(Draining())

    def cancel_where(self, pred: Callable[[Sequence], bool]) -> None:
        removed = self.scheduler.remove(pred)
        if any(s.cache is not None for s in removed):
            self.runner.release([s for s in removed if s.cache is not None])
        for seq in removed:
            self.emitter.finish(seq, "cancelled")
        gone = [i for i, s in enumerate(self.runner.decoding) if pred(s)]
        for i in gone:
            self.emitter.finish(self.runner.decoding[i], "cancelled")
        if gone:
            self.runner.drop_rows(gone)

    def admit(self) -> None:
        """Admit waiting requests while slots are free; a request that cannot run ends here."""
        while (seq := self.scheduler.next_admission(len(self.runner.decoding))) is not None:
            seq.admitted = time.perf_counter()
            try:
                self.runner.prepare(seq)
                self.emitter.prepare(seq)
            except ValueError as exc:
                log.warning("request %s rejected: %s", seq.request.request_id, exc)
                self._release_failed([seq])
                self.emitter.finish(seq, "error", error=str(exc))
                continue
            except Exception as exc:  # noqa: BLE001 - a bad request must not kill the thread
                log.exception("request %s rejected", seq.request.request_id)
                self._release_failed([seq])
                self.emitter.finish(seq, "error", error=f"{type(exc).__name__}: {exc}")
                continue
            self.scheduler.start_prefill(seq)

    def guarded_decode(self) -> None:
        """One decode step; if the batched forward fails, its requests end with an error."""
        try:
            newcomers = bool(self.scheduler.prefilling)
            if self.speculator is not None:
                self.speculator.decode(self.emitter.on_tokens, newcomers=newcomers)
            else:
                self.runner.decode_step(self.emitter.on_tokens, newcomers=newcomers)
        except Exception as exc:  # noqa: BLE001
            if self.runner.channel is not None:
                raise  # sharded: the ranks may be out of step (see run)
            log.exception("decode step failed")
            message = f"{type(exc).__name__}: {exc}"
            for seq in self.runner.decoding:
                if not seq.finished:
                    self.emitter.finish(seq, "error", error=message)
            self.runner.reset()

    def guarded_prefill(self) -> None:
        """Prefill a group of fresh prompts together, else one chunk of the next in line."""
        group = self.scheduler.prefill_group(self.runner.plain_kv)
        if len(group) <= 1:
            group = self.scheduler.prefilling[:1]
        try:
            if len(group) > 1:
                self._prefill_together(group)
            else:
                self._prefill_chunk(group[0])
        except Exception as exc:  # noqa: BLE001
            if self.runner.channel is not None:
                raise  # sharded: the ranks may be out of step (see run)
            if len(group) > 1:
                log.exception("grouped prefill failed")
            else:
                log.exception("prefill failed for %s", group[0].request.request_id)
            self.scheduler.discard(group)
            self._release_failed(group)
            for seq in group:
                if not seq.finished:
                    self.emitter.finish(seq, "error", error=f"{type(exc).__name__}: {exc}")

    def _release_failed(self, seqs: list[Sequence]) -> None:
        with contextlib.suppress(Exception):
            self.runner.release([s for s in seqs if s.cache is not None])

    def _prefill_together(self, group: list[Sequence]) -> None:
        out, cache = self.runner.prefill_together(group)
        self.scheduler.discard(group)
        self.emitter.on_tokens(group, out)
        self.runner.join_group(group, cache)

    def _prefill_chunk(self, seq: Sequence) -> None:
        out = self.runner.prefill_chunk(seq)
        if out is None:
            return
        self.scheduler.discard([seq])
        self.emitter.on_tokens([seq], out)
        if not seq.finished:
            self.runner.join(seq)
        else:
            self.runner.release([seq])

    def fail_all(self, message: str) -> None:
        """Finish every admitted request with an error and reset the batch state; once a
        sharded group is lost, the waiting requests too (none will ever run)."""
        waiting = self.scheduler.waiting.remove(lambda _: True) if self.lost else []
        for seq in self.scheduler.prefilling + self.runner.decoding + waiting:
            if not seq.finished:
                with contextlib.suppress(Exception):
                    self.emitter.finish(seq, "error", error=message)
        self._release_failed(self.scheduler.prefilling)
        self.scheduler.prefilling = []
        self.runner.reset()

    def close_out(self) -> None:
        """Thread exit: cancel what is queued, running, or still in the inbox."""
        pending = self.scheduler.waiting.items() + self.scheduler.prefilling + self.runner.decoding
        while True:
            try:
                kind, payload = self.inbox.get_nowait()
            except queue.Empty:
                break
            if kind == "submit":
                pending.append(payload)
        for seq in pending:
            with contextlib.suppress(Exception):
                if self.lost:  # the group failed: an error the caller maps to 503
                    self.emitter.finish(seq, "error", error=self.lost)
                else:
                    self.emitter.finish(seq, "cancelled")
        self._release_failed(self.scheduler.prefilling)
        self.scheduler.prefilling = []
        with contextlib.suppress(Exception):  # sharded: the other ranks may be gone already
            self.runner.reset()
            self.runner.close()
        with contextlib.suppress(Exception):
            self.publish_stats()

    def publish_stats(self) -> None:
        """Refresh :attr:`stats` (read by other threads) and the request gauges."""
        runner, scheduler = self.runner, self.scheduler
        with contextlib.suppress(Exception):
            self._peak_memory = max(self._peak_memory, mx.get_peak_memory())
        running = scheduler.running(len(runner.decoding))
        waiting = len(scheduler.waiting)
        # the gauges add up every engine of the process (one per loaded model)
        metrics.num_requests_running.inc(running - self._published[0])
        metrics.num_requests_waiting.inc(waiting - self._published[1])
        self._published = (running, waiting)
        prefix = runner.prefix
        self.stats = {
            "running": running,
            "waiting": waiting,
            "concurrent": self.config.concurrent,
            "decode_batch": len(runner.decoding),
            "max_decode_batch": runner.max_decode_batch,
            "weights_bytes": runner.weights_bytes,
            "kv_bytes": runner.kv_bytes(scheduler.prefilling),
            "prefix_cache_bytes": prefix.nbytes if prefix is not None else 0,
            "prefix_cache_entries": len(prefix) if prefix is not None else 0,
            "active_memory_bytes": mx.get_active_memory(),
            "peak_memory_bytes": self._peak_memory,
            "last_prefill_tokens_per_second": runner.last_prefill_tps,
            "last_decode_tokens_per_second": runner.last_decode_tps,
            "speculative": self.speculator.method if self.speculator is not None else None,
        }
        if runner.channel is not None:
            self.stats.update(world_size=runner.channel.size, rank=runner.channel.rank,
                              shard_ops=runner.channel.stats.ops,
                              shard_op_seconds=runner.channel.stats.seconds,
                              shard_collective_seconds=runner.channel.stats.collective_seconds)
