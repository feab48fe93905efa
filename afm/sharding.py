"""`afm serve` as one rank of a group started by ``mlx.launch`` (see README, "Running sharded").

Rank 0 serves HTTP, storage and the batch worker as usual, its engine announcing each step to
the other ranks; every other rank only loads its shard and replays those steps
(:mod:`engine.shard_worker`). Start-up checks that differ from a single process live here.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
from collections.abc import Callable

from afm.settings import Settings
from afm.startup import EXIT_MODEL_LOAD, EXIT_OK, EXIT_USAGE, StartupError

log = logging.getLogger("afm")


def check_settings(settings: Settings) -> None:
    """A sharded server serves exactly one chat model: refuse what would need more."""
    if len(settings.models) > 1 or settings.models_dir is not None:
        raise StartupError(EXIT_USAGE, "afm: a sharded server (started by mlx.launch) serves "
                           "one chat model; pass a single --model and no --models-dir")
    if settings.backend != "mlx":
        raise StartupError(EXIT_USAGE, "afm: a sharded server needs --backend mlx")


LOST_GRACE_SECONDS = 1.0
"""After the group fails, rank 0 lets error events reach clients this long, then stops."""

HARD_EXIT_SECONDS = 10.0
"""After the graceful stop began, rank 0 exits (code 1) at the latest this much later."""

lost_reason: list[str] = []


def _hard_exit() -> None:
    from afm.startup import EXIT_UNEXPECTED

    print("afm: the engine did not stop after the group failed; exiting", file=sys.stderr)
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(EXIT_UNEXPECTED)  # as afm.server.exit_now, without importing it (no cycle)


def stop_when_lost(stop: Callable[[], None]) -> None:
    """Rank 0: when the group fails, say so in one line and call ``stop`` (the HTTP server's
    graceful stop) after :data:`LOST_GRACE_SECONDS`, so error events reach clients first."""
    from engine import distributed

    def lost(reason: str) -> None:
        lost_reason.append(reason)
        print(f"afm: {reason}; stopping (restart every rank with mlx.launch)", file=sys.stderr)
        timer = threading.Timer(LOST_GRACE_SECONDS, stop)
        timer.daemon = True
        timer.start()
        # the engine thread may be stuck inside a collective: never wait for it for long
        hard = threading.Timer(LOST_GRACE_SECONDS + HARD_EXIT_SECONDS, _hard_exit)
        hard.daemon = True
        hard.start()

    distributed.on_lost(lost)


def describe_group() -> str:
    """``rank r of n`` for logs (MLX must be importable: call after the BLAS choice)."""
    from engine import distributed

    return f"rank {distributed.world_rank()} of {distributed.world_size()}"


def serve_worker_rank(settings: Settings) -> int:
    """Ranks > 0: load this rank's shard and replay rank 0's steps until it stops."""
    from afm.model_catalog import chat_catalogue
    from afm.model_pool import engine_config
    from engine.shard_worker import run_worker

    check_settings(settings)
    entry = chat_catalogue(settings.models, None)[0]
    config = engine_config(entry, settings)
    log.info("afm: %s, model %s", describe_group(), config.model)
    try:
        run_worker(config)
    except ValueError as exc:
        raise StartupError(EXIT_MODEL_LOAD, f"afm: model {config.model} cannot run sharded: "
                           f"{exc}") from None
    return EXIT_OK
