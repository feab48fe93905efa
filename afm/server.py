"""Start the server: fast BLAS first (before MLX loads), then the app on uvicorn."""

from __future__ import annotations

import logging
import os
import sys

from afm.settings import Settings

log = logging.getLogger("afm")


def configure_logging(level: str) -> None:
    logging.basicConfig(
        level=level.upper(),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )


def _check_data_dir(settings: Settings) -> None:
    """Fail fast, without a traceback, when another server holds the data directory."""
    from afm.storage import StorageError, Store

    try:
        Store(settings.data_dir).close()
    except StorageError as exc:
        raise SystemExit(f"afm: {exc}; pass another --data-dir") from None


def serve(settings: Settings) -> None:
    """Run `afm serve` until interrupted."""
    from engine.blas import blas_report

    configure_logging(settings.log_level)
    _check_data_dir(settings)
    blas = blas_report()  # must precede the first `import mlx.core`
    log.info("BLAS in use: %s (%.1f GFLOP/s)", blas.name, blas.gflops or 0.0)

    import uvicorn

    from afm.app import create_app

    # The engine thread and the HTTP event loop share the GIL; with CPython's default 5 ms
    # switch interval a launch of the next decode step can wait behind HTTP work for a whole
    # token's time. A short interval keeps the engine fed.
    sys.setswitchinterval(0.0005)
    app = create_app(settings)
    log.info("AFM listening on http://%s:%d (docs at /docs)", settings.host, settings.port)
    code = 0
    try:
        uvicorn.run(app, host=settings.host, port=settings.port, log_level=settings.log_level,
                    timeout_graceful_shutdown=5, access_log=settings.log_level == "debug")
    except SystemExit as exc:  # uvicorn exits with 3 when start-up fails
        code = exc.code if isinstance(exc.code, int) else 1
    exit_now(code)


def exit_now(code: int) -> None:
    """End the process without running C++ static destructors.

    MLX used from a non-main thread (our engine thread) can abort at interpreter exit
    ("terminate called without an active exception", ml-explore/mlx#3126): seen here in about
    half of the exits of a process that loaded a model on a worker thread. Everything of ours
    is already shut down by the lifespan, so flush and leave.
    """
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
