"""The worker loop of ranks > 0 in a sharded server: replay rank 0's runner operations.

Each rank holds a :class:`~engine.model_runner.ModelRunner` over its shard. Rank 0's runner
announces every operation that runs the model or changes KV state (:mod:`engine.distributed`);
this loop receives them and makes the same calls on the same runner code with *shadow*
sequences (prompt tokens only, greedy row state), so the collectives inside each forward pair
up and the KV caches, decode batch and prefix cache stay identical to rank 0's. What rank 0
samples arrives as the next decode op's input tokens, so a decode step here runs only the
layers (they hold the collectives and fill the KV caches): no sampling, and no output head
unless the head itself is sharded (its matmul then holds a collective too).
"""

from __future__ import annotations

import logging
import os
import sys
import time
from typing import Any, cast

import mlx.core as mx

from engine import distributed as d
from engine.config import EngineConfig
from engine.model_runner import ModelRunner
from engine.sequence import Sequence
from engine.types import GenerationRequest, SamplingParams

log = logging.getLogger(__name__)


class DesyncError(RuntimeError):
    """This rank's state no longer matches rank 0's (a bug): the worker must stop."""


class ShardWorker:
    """Replays rank 0's operations on this rank's runner."""

    def __init__(self, config: EngineConfig) -> None:
        self.runner = ModelRunner(config)  # loads this rank's shard; it announces nothing
        self.forward = decode_forward(self.runner.model)
        self.channel = d.StepChannel(d.world())
        self.admitted: dict[int, Sequence] = {}  # prepared, not yet in the decode batch
        self.group: tuple[list[Sequence], list[Any]] | None = None  # a batched prefill's cache
        self.steps = 0

    def _lost(self, reason: str) -> None:
        """On the watchdog thread: a collective hangs (rank 0 died, or the ranks are out of
        step); leave the process rather than linger as an orphan."""
        print(f"afm: worker rank {self.channel.rank}: {reason}; exiting", file=sys.stderr,
              flush=True)
        os._exit(1)

    def _shadow(self, sid: int, prompt: list[int]) -> Sequence:
        req = GenerationRequest(f"shadow-{sid}", prompt, SamplingParams(temperature=0.0))
        seq = Sequence(req, cast(Any, None), cast(Any, None))
        seq.order = sid
        return seq

    def _take(self, sid: int) -> Sequence:
        seq = self.admitted.get(sid)
        if seq is None:
            raise DesyncError(f"rank 0 named request {sid}, which this rank never admitted")
        return seq

    def run(self) -> None:
        """Serve rank 0's operations until it stops (or the group breaks)."""
        log.info("rank %d of %d: worker loop ready", self.channel.rank, self.channel.size)
        self.channel.watch(self._lost)
        while True:
            op, args = self.channel.receive()
            if op == d.STOP:
                log.info("rank %d: stop from rank 0 after %d ops", self.channel.rank,
                         self.channel.stats.ops)
                return
            self.apply(op, args)

    def apply(self, op: int, args: list[int]) -> None:  # noqa: C901 - one branch per op
        runner = self.runner
        if op == d.PREPARE:
            seq = self._shadow(args[0], args[1:])
            runner.prepare(seq)
            self.admitted[seq.order] = seq
        elif op == d.PREFILL_TOGETHER:
            group = [self._take(sid) for sid in args]
            _, cache = runner.prefill_together(group)
            self.group = (group, cache)
        elif op == d.JOIN_GROUP:
            if self.group is None:
                raise DesyncError("join of a batched prefill that this rank did not run")
            group, cache = self.group
            self.group = None
            keep = set(args)
            for seq in group:
                seq.finished = seq.order not in keep
                self.admitted.pop(seq.order, None)
            runner.join_group(group, cache)
        elif op == d.PREFILL_CHUNK:
            runner.prefill_chunk(self._take(args[0]), tokens=args[1])
        elif op == d.JOIN:
            runner.join(self.admitted.pop(args[0]))
        elif op == d.DECODE:
            self.decode(args)
        elif op == d.STORE:
            self.store(args)
        elif op == d.DROP:
            runner.drop_rows(args)
        elif op == d.RESET:
            runner.reset()
        elif op == d.NOP:
            pass
        elif op == d.RELEASE:
            for sid in args:
                seq = self.admitted.pop(sid, None)
                if seq is not None:
                    seq.cache = None
        else:
            raise DesyncError(f"unknown op {op}")

    def decode(self, tokens: list[int]) -> None:
        """One decode step of the batch with rank 0's input tokens."""
        runner = self.runner
        if len(tokens) != len(runner.decoding):
            raise DesyncError(f"decode of {len(tokens)} rows, this rank has "
                              f"{len(runner.decoding)}")
        for seq, token in zip(runner.decoding, tokens, strict=True):
            seq.generated.append(token)
        inputs = mx.array([[t] for t in tokens], dtype=mx.uint32)
        mx.eval(self.forward(inputs, cache=runner.batch_cache))  # fills the KV caches
        self.steps += 1

    def store(self, args: list[int]) -> None:
        """Keep finished rows' KV state in the prefix cache, as rank 0 did."""
        kept = []
        for row, n in zip(args[::2], args[1::2], strict=True):
            seq = self.runner.decoding[row]
            tokens = seq.prompt + seq.generated
            if len(tokens) != n:
                raise DesyncError(f"row {row} holds {len(tokens)} tokens here, {n} on rank 0")
            kept.append((row, tokens))
        self.runner.store_rows(kept)


def decode_forward(model: Any) -> Any:
    """What a worker rank must run of a decode step: the model's layers alone (``model.model``,
    mlx-lm's transformer body) when nothing outside them is sharded, else the whole model.

    The tokens come from rank 0, so the output head and sampling would be discarded work;
    only a sharded module (a collective the other ranks wait for) must run on every rank.
    """
    body = getattr(model, "model", None)
    if not callable(body):
        return model
    for name, module in model.named_modules():
        if name != "model" and not name.startswith("model.") and "Sharded" in type(module).__name__:
            return model  # e.g. a vocabulary-sharded lm_head (qwen3_5)
    return body


def run_worker(config: EngineConfig) -> None:
    """Load this rank's shard and replay rank 0's steps until it stops."""
    tic = time.perf_counter()
    worker = ShardWorker(config)
    log.info("rank %d: shard loaded in %.1fs", worker.channel.rank, time.perf_counter() - tic)
    worker.run()
