"""Sharded serving on MLX's distributed layer: group detection, sharded load, the step channel.

``afm serve`` started under ``mlx.launch`` (ring, MPI or JACCL backend) runs as several ranks.
Every rank loads its tensor-parallel shard of the model (``model.shard(group)``, mlx-lm's
qwen3/llama/...); each forward pass then all-sums its partial results inside the model, so every
rank ends a forward with the same logits. Rank 0 alone serves HTTP and decides every step; before
each runner operation that touches the model or its KV caches it sends a compact *op* (an op code
and int32 arguments: prompt tokens, row indices, input tokens) to the other ranks with two
``all_sum`` collectives (a fixed-size header, then the payload; the other ranks contribute zeros),
and every rank then runs the same operation (:mod:`engine.shard_worker`). Sampling, grammar masks,
logprobs and stop logic stay on rank 0; the tokens it samples reach the other ranks as the next
decode op's inputs.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engine import metrics

log = logging.getLogger(__name__)

RANK_ENV = ("MLX_RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK")
"""Environment variables a launcher sets to a process's rank (mlx.launch ring/JACCL; MPI)."""

# op codes (rank 0 -> other ranks); arguments are int32
PREPARE = 1  # sid, *prompt: a request was admitted (prefix-cache lookup, fresh caches)
PREFILL_TOGETHER = 2  # *sids: prefill these fresh prompts in one left-padded batch
JOIN_GROUP = 3  # *kept sids: the unfinished ones of that batch join the decode batch
PREFILL_CHUNK = 4  # sid, tokens: prefill the next chunk of one prompt
JOIN = 5  # sid: a prompt prefilled alone joins the decode batch
DECODE = 6  # *input tokens: one decode step of the whole batch
STORE = 7  # row, ntokens, ...: keep these finished rows' KV state in the prefix cache
DROP = 8  # *rows: remove decode-batch rows
RESET = 9  # forget the decode batch
RELEASE = 10  # *sids: admitted requests that leave before joining the decode batch
STOP = 11  # the server stops: leave the worker loop
NOP = 12  # rank 0 is idle: a heartbeat that fails when another rank is gone

OP_NAMES = {PREPARE: "prepare", PREFILL_TOGETHER: "batched prefill", JOIN_GROUP: "join group",
            PREFILL_CHUNK: "prefill chunk", JOIN: "join", DECODE: "decode", STORE: "store",
            DROP: "drop", RESET: "reset", RELEASE: "release", STOP: "stop", NOP: "heartbeat"}

HEARTBEAT_SECONDS = 1.0
"""An idle rank 0 checks this often that the other ranks are still there."""

STALL_SECONDS = float(os.environ.get("AFM_SHARD_STALL_SECONDS", "30"))
"""How long a rank waits inside the step channel (for the next op, or for the other ranks to
take one) beyond what the step before may still need; also the base of every step's budget.
Idle, rank 0 heartbeats every second, so a rank gone quiet this long is gone."""

TOKEN_SECONDS = float(os.environ.get("AFM_SHARD_TOKEN_SECONDS", "1.0"))
"""What each prompt token a step prefills adds to the step's budget. Generous: measured on two
cores shared with a dozen busy processes (Qwen2.5-Coder-0.5B in float32 across 2 ranks), a
batched prefill took 0.14 s a token, a lone decode step 5.6 s."""

DECODE_ROW_TOKENS = 8
"""A decode row counts as this many prompt tokens in a budget: a decode step reads every
weight for a few rows, so a row costs several times a token of a batched prefill."""

START_SECONDS = float(os.environ.get("AFM_SHARD_START_SECONDS", "300"))
"""The budget of the start-up, from a rank's step channel until rank 0 serves HTTP
(:func:`mark_started`): each rank prepares its weights at its own pace, and rank 0's heartbeats
may wait behind the rest of its start-up (the HTTP app is built on another thread)."""

PROGRESS_LIMIT = 10
"""A rank past its step's budget whose threads still compute (Linux: their CPU time grows)
is slow, not stuck: it may go on up to this many times the budget."""

MIN_PROGRESS_SECONDS = 0.05
"""CPU seconds a computing rank's step threads use at the least in :data:`STALL_SECONDS`; a
rank blocked in a collective that never completes uses none."""

_STARTED: list[bool] = []


def mark_started() -> None:
    """Rank 0 serves HTTP: its start-up is over, heartbeats get the short budget from now on."""
    _STARTED[:] = [True]


def step_budget(op: int, tokens: int) -> float:
    """Seconds one step may compute before its ranks declare the group lost (a collective
    that hangs instead of failing): :data:`STALL_SECONDS` plus :data:`TOKEN_SECONDS` for each
    token it prefills (:data:`DECODE_ROW_TOKENS` for each row it decodes)."""
    weight = DECODE_ROW_TOKENS if op == DECODE else 1
    return STALL_SECONDS + max(0, tokens) * weight * TOKEN_SECONDS


_on_lost: list[Callable[[str], None]] = []
_reported: list[str] = []


def on_lost(callback: Callable[[str], None]) -> None:
    """Call ``callback(reason)`` (on the engine thread) when the group stops serving."""
    _on_lost.append(callback)


def report_lost(reason: str) -> None:
    """Tell whoever registered with :func:`on_lost` that the group cannot serve any more
    (once; later reports are ignored)."""
    if _reported:
        return
    _reported.append(reason)
    for callback in list(_on_lost):
        try:
            callback(reason)
        except Exception:  # noqa: BLE001 - a callback must not hide the others
            log.exception("group-lost callback failed")


def lost_reason() -> str | None:
    """Why the group stopped serving (rank 0), None while it serves or when not sharded."""
    return _reported[0] if _reported else None


def backend_name() -> str:
    """The distributed backend the launcher chose, from the environment it set."""
    if os.environ.get("MLX_IBV_DEVICES") or os.environ.get("MLX_JACCL_COORDINATOR"):
        return "jaccl"
    if any(os.environ.get(n) for n in ("OMPI_COMM_WORLD_RANK", "PMI_RANK")):
        return "mpi"
    if os.environ.get("MLX_WORLD_SIZE") and not os.environ.get("MLX_HOSTFILE"):
        return "nccl"
    return "ring"


def rank_hosts(size: int) -> list[str | None]:
    """Each rank's address from the ring hostfile (``MLX_HOSTFILE``: one list of ``ip:port``
    per rank); rank 0's host name and None for the others when there is none to read."""
    import json
    import socket

    hosts: list[str | None] = [socket.gethostname()] + [None] * (size - 1)
    path = os.environ.get("MLX_HOSTFILE", "")
    try:
        with open(path, encoding="utf-8") as fh:
            ring = json.load(fh)
        found = [str(node[0]).rsplit(":", 1)[0] for node in ring]
    except (OSError, ValueError, TypeError, IndexError, KeyError):
        return hosts
    return found if len(found) == size else hosts


def describe() -> dict[str, Any] | None:
    """Rank 0's view of the group for ``/health`` and ``afm_profile`` (the contract's
    ``Sharding``); None when this process is not a sharded server's rank 0."""
    channel = _CHANNEL[0] if _CHANNEL else None
    if channel is None:
        return None
    reason = lost_reason()
    hosts = rank_hosts(channel.size)
    ranks = [{"rank": r, "host": hosts[r], "role": "http" if r == 0 else "worker",
              "status": "ok" if reason is None else ("stopping" if r == 0 else "unreachable")}
             for r in range(channel.size)]
    return {"world_size": channel.size, "rank": channel.rank, "backend": backend_name(),
            "mode": _MODE[0] if _MODE else "tensor",
            "status": "serving" if reason is None else "failed",
            "reason": reason, "ranks": ranks, "plan_ops": channel.stats.ops,
            "plan_collective_seconds": round(channel.stats.collective_seconds, 6)}


def env_rank() -> int:
    """This process's rank as set by the launcher (0 when not launched as a group).

    Read from the environment so `afm serve` can decide before MLX is imported (the BLAS
    choice must precede it) whether it serves HTTP (rank 0) or runs the worker loop.
    """
    for name in RANK_ENV:
        value = os.environ.get(name, "").strip()
        if value.isdigit():
            return int(value)
    return 0


_GROUP: Any = None
_CHANNEL: list[StepChannel] = []  # rank 0's step channel, once the sharded model is loaded
_MODE: list[str] = []  # how the loaded model is split: tensor | pipeline


def launched() -> bool:
    """Whether a launcher (mlx.launch, mpirun) started this process as one rank of a group."""
    return any(os.environ.get(name, "").strip().isdigit() for name in RANK_ENV)


def world() -> Any:
    """The distributed group (``mx.distributed.init()``), None when not launched as a group."""
    global _GROUP
    if _GROUP is None and launched():
        import mlx.core as mx

        _GROUP = mx.distributed.init() if mx.distributed.is_available() else None
    return _GROUP


def world_size() -> int:
    group = world()
    return int(group.size()) if group is not None else 1


def world_rank() -> int:
    group = world()
    return int(group.rank()) if group is not None else 0


def check_shardable(model: Any, n: int, mode: str = "tensor") -> None:
    """Raise ValueError (one line) when ``model`` cannot be split across ``n`` ranks in
    ``mode`` (``tensor``: ``model.shard()``; ``pipeline``: ``model.model.pipeline()``)."""
    if mode == "pipeline":
        kind = getattr(getattr(model, "args", None), "model_type", type(model).__name__)
        if not hasattr(getattr(model, "model", None), "pipeline"):
            raise ValueError(f"model type {kind} has no pipeline(); it cannot run pipeline-"
                             "parallel (use --shard-mode tensor)")
        layers = len(getattr(model, "layers", []))
        if layers < n:
            raise ValueError(f"{layers} layers cannot be split across {n} ranks")
        return
    if not hasattr(model, "shard"):
        kind = getattr(getattr(model, "args", None), "model_type", type(model).__name__)
        raise ValueError(f"model type {kind} has no tensor-parallel shard(); it cannot run "
                         f"across {n} ranks")
    args = getattr(model, "args", None)
    for field in ("num_attention_heads", "num_key_value_heads", "intermediate_size"):
        value = getattr(args, field, None)
        if isinstance(value, int) and value % n:
            raise ValueError(f"{field}={value} does not divide by the world size {n}; "
                             "start with a world size that divides it")


def load_sharded(path: str, group: Any, mode: str = "tensor") -> tuple[Any, Any]:
    """Load this rank's shard of the model at ``path``: (model, tokenizer). ``tensor``: a slice
    of every layer; ``pipeline``: a run of whole layers (rank 0 the last ones), the hidden state
    passed on with send/recv and gathered at the end, as mlx-lm's models implement it."""
    import mlx.core as mx
    from mlx_lm import load as mlx_load

    from engine.model_load import planar_layers

    if planar_layers(path):
        raise ValueError(
            f"{path}: its K-quant/Q5 layers are kept in the native kernel's 5- and 6-bit formats, "
            "which sharded serving does not split yet; set AFM_GGUF_DEQUANT=float32 to shard "
            "this GGUF file")
    model, tokenizer = mlx_load(path, lazy=True)[:2]
    check_shardable(model, int(group.size()), mode)
    if mode == "pipeline":
        model.model.pipeline(group)
    else:
        model.shard(group)
    _MODE[:] = [mode]
    mx.eval(model.parameters())
    mx.eval(mx.distributed.all_sum(mx.array(1.0), group=group, stream=mx.cpu))  # all loaded
    return model, tokenizer


@dataclass
class CollectiveStats:
    """Ops sent or received over the step channel and the seconds spent in those collectives."""

    ops: int = 0
    seconds: float = 0.0  # the whole send: framing and the collectives
    collective_seconds: float = 0.0  # inside the all_sum collectives alone


class StepChannel:
    """Ops from rank 0 to the other ranks over ``all_sum`` (the others contribute zeros).

    One op is one fixed-size frame ``[op, n, tokens, budget_ms, args...]`` of :attr:`FRAME`
    int32 values; the arguments that do not fit follow in a second collective of exactly the
    missing length. So a decode step of up to ``FRAME - 4`` rows costs one small collective.

    Every rank's watchdog (:meth:`watch`) tells a slow step from a lost rank by what the rank is
    doing: *computing* a step, which may take the budget rank 0 sent with its op (derived from
    the tokens it computes, :func:`step_budget`) and longer while its threads still compute,
    or *waiting* inside a channel collective, which may take whatever remains of that budget
    (the other rank may still be finishing the step) plus :data:`STALL_SECONDS`.
    """

    FRAME = 64
    HEAD = 4  # op, n, tokens, budget in milliseconds

    def __init__(self, group: Any) -> None:
        self.group = group
        self.rank = int(group.rank())
        self.size = int(group.size())
        self.stats = CollectiveStats()
        self.closed = False
        # the current step: its op, tokens, when it went through and its budget (seconds)
        self.op, self.tokens = NOP, 0
        self.started = time.monotonic()
        self.budget = START_SECONDS  # until the first op: the start-up
        self.waiting: float | None = None  # since when this rank waits in a collective
        self.thread: int | None = None  # native id of the thread that runs the steps
        metrics.world_size.set(self.size)
        if self.rank == 0:
            _CHANNEL[:] = [self]

    def _sum(self, values: list[int] | int) -> list[int]:
        import mlx.core as mx

        if isinstance(values, int):
            arr = mx.zeros((values,), dtype=mx.int32)
        else:
            arr = mx.array(values, dtype=mx.int32)
        tic = time.perf_counter()
        out = mx.distributed.all_sum(arr, group=self.group, stream=mx.cpu)
        mx.eval(out)
        dt = time.perf_counter() - tic
        self.stats.collective_seconds += dt
        if self.rank == 0:
            metrics.shard_collective_seconds.inc(dt)
        return [int(v) for v in out.tolist()]

    def _begin(self, op: int, tokens: int, budget: float) -> None:
        """The op went through: this rank now computes it (``budget`` seconds at most)."""
        now = time.monotonic()
        took = now - self.started
        if took > STALL_SECONDS and self.budget != START_SECONDS:
            log.info("rank %d: a slow %s step of %d tokens: %.1fs to the next op (budget %.0fs)",
                     self.rank, OP_NAMES.get(self.op, self.op), self.tokens, took, self.budget)
        self.op, self.tokens, self.budget = op, tokens, budget
        self.started = now
        self.waiting = None  # after ``started``: the watchdog reads the two in this order

    def send(self, op: int, args: list[int], tokens: int = 0) -> None:
        """Rank 0: announce one op that computes ``tokens`` tokens to the other ranks (returns
        once they have it)."""
        if self.closed:
            return
        tic = time.perf_counter()
        budget = step_budget(op, tokens) if _STARTED else START_SECONDS
        self.thread = threading.get_native_id()
        self.waiting = time.monotonic()
        head = self.FRAME - self.HEAD
        frame = [op, len(args), tokens, min(round(budget * 1000), 2**31 - 1), *args[:head]]
        self._sum(frame + [0] * (self.FRAME - len(frame)))
        if len(args) > head:
            self._sum([int(v) for v in args[head:]])
        self._begin(op, tokens, budget)
        dt = time.perf_counter() - tic
        self.stats.ops += 1
        self.stats.seconds += dt
        metrics.shard_ops.inc()
        metrics.shard_op_seconds.inc(dt)
        if op == STOP:
            self.closed = True

    def receive(self) -> tuple[int, list[int]]:
        """Other ranks: wait for rank 0's next op."""
        self.thread = threading.get_native_id()
        self.waiting = time.monotonic()
        frame = self._sum(self.FRAME)
        op, n, tokens, budget_ms = frame[: self.HEAD]
        args = frame[self.HEAD : self.HEAD + n]
        if n > len(args):
            args += self._sum(n - len(args))
        self._begin(op, tokens, budget_ms / 1000)
        self.stats.ops += 1
        if op == STOP:
            self.closed = True
        return op, args

    def overdue(self, now: float, progressing: bool = False) -> str | None:
        """Why this rank must consider the group lost at ``now``, or None while all is in
        time; ``progressing``: this rank's step threads computed during the last
        :data:`STALL_SECONDS` (a step past its budget may then go on, up to
        :data:`PROGRESS_LIMIT` times it)."""
        waiting = self.waiting
        step_end = self.started + self.budget
        if waiting is not None:
            if now > max(step_end, waiting) + STALL_SECONDS:
                return (f"no op went through the step channel for {now - waiting:.0f}s "
                        "(a rank stopped answering)")
            return None
        if now <= step_end:
            return None
        if progressing and now <= self.started + PROGRESS_LIMIT * self.budget:
            return None
        what = OP_NAMES.get(self.op, f"op {self.op}")
        tokens = f" of {self.tokens} tokens" if self.tokens > 0 else ""
        why = (f"still computing at {PROGRESS_LIMIT} times it" if progressing else
               f"and computed nothing for {STALL_SECONDS:.0f}s")
        return (f"a {what} step{tokens} ran {now - self.started:.0f}s, past its budget of "
                f"{self.budget:.0f}s {why} (a rank stopped answering)")

    def busy_seconds(self) -> float | None:
        """CPU seconds used so far by the threads that compute this rank's steps: every thread
        of the process but the other Python threads (HTTP, watchdog), which MLX's compute,
        BLAS and collective threads are not. None where ``/proc`` has no thread times."""
        others = {t.native_id for t in threading.enumerate() if t.native_id != self.thread}
        ticks = 0
        try:
            tasks = os.listdir("/proc/self/task")
        except OSError:
            return None
        for tid in tasks:
            if not tid.isdigit() or int(tid) in others:
                continue
            try:
                with open(f"/proc/self/task/{tid}/stat", encoding="ascii") as fh:
                    fields = fh.read().rsplit(")", 1)[1].split()
                ticks += int(fields[11]) + int(fields[12])  # utime, stime
            except (OSError, ValueError, IndexError):
                continue  # a thread that just ended
        return ticks / os.sysconf("SC_CLK_TCK")

    def watch(self, on_stall: Callable[[str], None]) -> None:
        """A daemon thread that calls ``on_stall(reason)`` once :meth:`overdue` says so (this
        rank's engine thread is then stuck inside a collective that a dead rank will never
        complete; MLX's ring backend does not always fail it)."""
        tick = min(1.0, STALL_SECONDS / 4)

        def run() -> None:
            samples: deque[tuple[float, float]] = deque()
            while not self.closed:
                time.sleep(tick)
                now = time.monotonic()
                busy = self.busy_seconds()
                progressing = False
                if busy is not None:
                    samples.append((now, busy))
                    while len(samples) > 1 and samples[1][0] <= now - STALL_SECONDS:
                        samples.popleft()  # keep one sample at or before the window
                    first_t, first_busy = samples[0]
                    # this thread slept far longer than a tick: no fresh window to judge by
                    stale = first_t < now - STALL_SECONDS - 2 * tick
                    progressing = stale or busy - first_busy >= MIN_PROGRESS_SECONDS
                reason = self.overdue(now, progressing)
                if reason is not None and not self.closed:
                    self.closed = True
                    on_stall(f"the sharded group failed: {reason}")
                    return

        threading.Thread(target=run, name="afm-shard-watchdog", daemon=True).start()
