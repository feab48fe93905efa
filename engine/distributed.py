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
PREFILL_CHUNK = 4  # sid: prefill the next chunk of one prompt
JOIN = 5  # sid: a prompt prefilled alone joins the decode batch
DECODE = 6  # *input tokens: one decode step of the whole batch
STORE = 7  # row, ntokens, ...: keep these finished rows' KV state in the prefix cache
DROP = 8  # *rows: remove decode-batch rows
RESET = 9  # forget the decode batch
RELEASE = 10  # *sids: admitted requests that leave before joining the decode batch
STOP = 11  # the server stops: leave the worker loop
NOP = 12  # rank 0 is idle: a heartbeat that fails when another rank is gone

HEARTBEAT_SECONDS = 1.0
"""An idle rank 0 checks this often that the other ranks are still there."""

STALL_SECONDS = float(os.environ.get("AFM_SHARD_STALL_SECONDS", "30"))
"""Rank 0 declares the group lost when no op went through for this long (a collective that
hangs instead of failing). Busy or idle (heartbeat), ops normally pass several times a second."""

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

    One op is one fixed-size frame ``[op, n, args...]`` of :attr:`FRAME` int32 values; the
    arguments that do not fit follow in a second collective of exactly the missing length. So
    a decode step of up to ``FRAME - 2`` rows costs one small collective.
    """

    FRAME = 64

    def __init__(self, group: Any) -> None:
        self.group = group
        self.rank = int(group.rank())
        self.size = int(group.size())
        self.stats = CollectiveStats()
        self.closed = False
        self.last_ok = time.monotonic()
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

    def send(self, op: int, args: list[int]) -> None:
        """Rank 0: announce one op to the other ranks (returns once they have it)."""
        if self.closed:
            return
        tic = time.perf_counter()
        head = self.FRAME - 2
        frame = [op, len(args), *args[:head]]
        self._sum(frame + [0] * (self.FRAME - len(frame)))
        if len(args) > head:
            self._sum([int(v) for v in args[head:]])
        dt = time.perf_counter() - tic
        self.last_ok = time.monotonic()
        self.stats.ops += 1
        self.stats.seconds += dt
        metrics.shard_ops.inc()
        metrics.shard_op_seconds.inc(dt)
        if op == STOP:
            self.closed = True

    def watch(self, on_stall: Callable[[str], None],
              stall_seconds: float = STALL_SECONDS) -> None:
        """Rank 0: a daemon thread that calls ``on_stall(reason)`` when no op went through for
        ``stall_seconds`` (the engine thread is then stuck inside a collective that a dead
        rank will never complete; MLX's ring backend does not always fail it)."""

        def run() -> None:
            while not self.closed:
                time.sleep(min(1.0, stall_seconds / 4))
                idle = time.monotonic() - self.last_ok
                if not self.closed and idle > stall_seconds:
                    self.closed = True
                    on_stall(f"the sharded group failed: no step went through for "
                             f"{idle:.0f}s (a rank stopped answering)")
                    return

        threading.Thread(target=run, name="afm-shard-watchdog", daemon=True).start()

    def receive(self) -> tuple[int, list[int]]:
        """Other ranks: wait for rank 0's next op."""
        frame = self._sum(self.FRAME)
        op, n = frame[0], frame[1]
        args = frame[2 : 2 + n]
        if n > len(args):
            args += self._sum(n - len(args))
        self.stats.ops += 1
        return op, args
