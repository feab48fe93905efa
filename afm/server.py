"""Start the server: cheap checks first (address, exposure, data directory, model source), then
the fast BLAS (before MLX loads), the model, and uvicorn on the socket bound at the start.

Every start-up failure ends the process with a short message on stderr and the exit code
listed in :mod:`afm.startup`; the traceback is logged only with ``--log-level debug``.
"""

from __future__ import annotations

import logging
import os
import socket
import sys
from typing import Any

from afm.logs import configure_logging
from afm.settings import Settings
from afm.startup import (
    EXIT_DATA_DIR,
    EXIT_MODEL_LOAD,
    EXIT_OK,
    EXIT_UNEXPECTED,
    StartupError,
    bind_socket,
    check_default_model,
    check_exposure,
    check_model_source,
    check_prompt_cache_dir,
)

log = logging.getLogger("afm")


def _check_data_dir(settings: Settings) -> None:
    """Fail fast when another server holds the data directory (or it cannot be created)."""
    from afm.storage import Store, StoreInUse

    try:
        Store(settings.data_dir).close()
    except StoreInUse as exc:
        raise StartupError(EXIT_DATA_DIR, f"afm: {exc}; stop that server or pass another "
                           "--data-dir (two servers need two data directories)") from None
    except OSError as exc:
        raise StartupError(EXIT_DATA_DIR, f"afm: data directory {settings.data_dir} cannot be "
                           f"used ({exc.strerror or exc}); pass a writable --data-dir") from None


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


def serve(settings: Settings) -> None:
    """Run `afm serve` until interrupted; never returns (see :func:`exit_now`)."""
    configure_logging(settings.log_level, settings.log_format)
    debug = settings.log_level == "debug"
    from engine.distributed import env_rank, launched

    try:
        if launched() and env_rank() > 0:
            exit_now(_serve_other_rank(settings))
        check_exposure(settings.host, settings.api_keys, settings.allow_unauthenticated)
        sock = bind_socket(settings.host, settings.port)
        _check_data_dir(settings)
        check_prompt_cache_dir(settings.prompt_cache_dir)
        from engine.blas import blas_report

        blas = blas_report()  # must precede the first `import mlx.core`
        log.info("BLAS in use: %s (%.1f GFLOP/s)", blas.name, blas.gflops or 0.0)
        if launched():
            from afm.sharding import check_settings, describe_group

            check_settings(settings)
            log.info("afm: sharded, %s: this rank serves HTTP", describe_group())
        if settings.backend == "mlx":
            from afm.model_catalog import chat_catalogue, parse_model_value

            for value in settings.models:  # each --model (NAME=SOURCE: its source)
                check_model_source(parse_model_value(value)[1])
            if settings.draft_model:
                check_model_source(settings.draft_model)
            if chat_catalogue(settings.models, settings.models_dir)[0].source is None:
                check_default_model()  # no model given: the real default, fetched once
        code = _run(settings, sock)
    except StartupError as exc:
        print(exc.message, file=sys.stderr)
        code = exc.code
    except KeyboardInterrupt:
        code = EXIT_OK
    except Exception as exc:  # noqa: BLE001 - the one place that turns any failure into a line
        if debug:
            log.exception("afm: unexpected error")
        print(f"afm: unexpected error: {_first_line(exc)}; rerun with --log-level debug for "
              "the traceback", file=sys.stderr)
        code = EXIT_UNEXPECTED
    exit_now(code)


def _serve_other_rank(settings: Settings) -> int:
    """A rank > 0 of a sharded server: no HTTP, only the worker loop (afm.sharding).

    It ignores Ctrl-C (a terminal sends it to every rank): it stops when rank 0 tells it to,
    or when rank 0 is gone.
    """
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        from engine.blas import blas_report

        blas_report()  # must precede the first `import mlx.core`
        from afm.model_catalog import parse_model_value
        from afm.sharding import serve_worker_rank

        for value in settings.models:
            check_model_source(parse_model_value(value)[1])
        return serve_worker_rank(settings)
    except StartupError as exc:
        print(exc.message, file=sys.stderr)
        return exc.code
    except Exception as exc:  # noqa: BLE001 - one line, as for rank 0
        if settings.log_level == "debug":
            log.exception("afm: worker rank failed")
        print(f"afm: worker rank failed: {_first_line(exc)}", file=sys.stderr)
        return EXIT_UNEXPECTED


UVICORN_GRACE_SECONDS = 5.0
"""uvicorn's own graceful-shutdown timeout, after our drain (afm.drain) ended every request: it
only closes idle keep-alive connections by then, so it never cancels a request."""


def _run(settings: Settings, sock: socket.socket) -> int:
    """Load everything on uvicorn's event loop, then serve ``sock`` until told to stop."""
    import uvicorn
    from uvicorn._compat import asyncio_run

    from afm.app import create_app
    from afm.state import AppState

    # The engine thread and the HTTP event loop share the GIL; with CPython's default 5 ms
    # switch interval a launch of the next decode step can wait behind HTTP work for a whole
    # token's time. A short interval keeps the engine fed.
    sys.setswitchinterval(0.0005)
    state = AppState(settings)
    app = create_app(settings, state=state)
    config = uvicorn.Config(app, log_config=None, log_level=settings.log_level,
                            access_log=False, timeout_graceful_shutdown=UVICORN_GRACE_SECONDS)
    server = _listening_server(config, settings, state)
    from engine.distributed import launched

    if launched():
        from afm.sharding import stop_when_lost

        stop_when_lost(lambda: setattr(server, "should_exit", True))

    async def main() -> None:
        try:
            await state.start()
        except BaseException as exc:
            await state.stop()  # stop the engine thread before the process exits
            if isinstance(exc, StartupError) or not isinstance(exc, Exception):
                raise
            from engine.speculative import DraftModelError

            cause = exc.__cause__ if isinstance(exc.__cause__, DraftModelError) else exc
            if isinstance(cause, DraftModelError):
                raise StartupError(EXIT_MODEL_LOAD, f"afm: --draft-model {settings.draft_model} "
                                   f"cannot draft for model {settings.model or 'default'}: "
                                   f"{cause}") from None
            if settings.log_level == "debug":
                log.exception("model load failed")
            raise StartupError(EXIT_MODEL_LOAD, f"afm: model {settings.model or 'default'} "
                               f"failed to load: {_first_line(exc)}; check the model folder "
                               "or rerun with --log-level debug") from None
        await server.serve(sockets=[sock])

    asyncio_run(main(), loop_factory=config.get_loop_factory())
    from afm.sharding import lost_reason

    return EXIT_UNEXPECTED if lost_reason else EXIT_OK


def _listening_server(config: Any, settings: Settings, state: Any) -> Any:
    """uvicorn's server, logging "listening" once it serves the bound socket, and stopping
    on SIGTERM / SIGINT by draining first (afm.drain); a second signal exits at once."""
    import asyncio
    import contextlib
    import signal

    import uvicorn

    from afm.drain import drain

    class ListeningServer(uvicorn.Server):
        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            await super().startup(sockets=sockets)
            if not self.should_exit:
                from engine.distributed import mark_started

                mark_started()  # sharded: rank 0's start-up budget ends here
                log.info("AFM listening on http://%s:%d (docs at /docs)", settings.host,
                         settings.port)

        @contextlib.contextmanager
        def capture_signals(self) -> Any:
            # uvicorn's own re-raises the signal after serving (the process would end by
            # SIGTERM, not exit 0); ours only drains, then lets serve() return
            self._loop = asyncio.get_running_loop()
            self._signalled = False
            self._drain_task: asyncio.Task[None] | None = None
            originals = {sig: signal.signal(sig, self.handle_exit)
                         for sig in (signal.SIGINT, signal.SIGTERM)}
            try:
                yield
            finally:
                for sig, handler in originals.items():
                    signal.signal(sig, handler)

        def handle_exit(self, sig: int, frame: Any) -> None:
            if self._signalled:
                print(f"afm: {signal.Signals(sig).name} again: exiting at once", file=sys.stderr)
                exit_now(EXIT_OK)
            self._signalled = True
            if not self.started:  # still starting: nothing to drain
                self.should_exit = True
                return
            self._loop.call_soon_threadsafe(self._start_drain)

        def _start_drain(self) -> None:
            self._drain_task = asyncio.create_task(self._drain_then_exit(), name="afm-drain")

        async def _drain_then_exit(self) -> None:
            try:
                await drain(state, self._close_connections)
            except Exception:  # noqa: BLE001 - the stop goes on whatever the drain hit
                log.exception("the drain failed; shutting down")
            self.should_exit = True

        def _close_connections(self) -> int:
            connections = list(self.server_state.connections)
            for connection in connections:
                connection.transport.close()
            return len(connections)

    return ListeningServer(config)


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
