"""Start and stop the servers under test as subprocesses, each on a free local port."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]

_PRELOADED_MLXLM = (
    "import sys; from engine.blas import preload_fast_blas; info = preload_fast_blas(); "
    "print('bench: mlx_lm.server with BLAS', info, file=sys.stderr, flush=True); "
    "import runpy; sys.argv = ['mlx_lm.server'] + sys.argv[1:]; "
    "runpy.run_module('mlx_lm.server', run_name='__main__', alter_sys=True)"
)


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class ServerSpec:
    """How to start one server kind."""

    key: str
    label: str
    argv: list[str]
    env: dict[str, str] = field(default_factory=dict)
    send_model: bool = True
    """Whether requests carry ``model`` (mlx_lm.server would try to load it as a path)."""
    ignore_eos: bool = True
    """Whether the server honours the ``ignore_eos`` extension (else EOS gets logit_bias)."""


def afm_spec(model: Path, port: int, concurrent: int, extra: list[str], key: str = "afm",
             label: str = "afm serve") -> ServerSpec:
    """``afm serve`` on ``model``."""
    argv = [sys.executable, "-m", "afm", "serve", "--model", str(model), "--port", str(port),
            "--concurrent", str(concurrent), *extra]
    return ServerSpec(key, label, argv)


def mlxlm_spec(model: Path, port: int, same_blas: bool, blas_label: str = "same BLAS",
               env: dict[str, str] | None = None) -> ServerSpec:
    """``mlx_lm.server`` as installed, or started after :func:`engine.blas.preload_fast_blas`
    (``env`` chooses the library and its threads, e.g. ``AFM_BLAS``/``MKL_THREADING_LAYER``)."""
    flags = ["--model", str(model), "--port", str(port), "--log-level", "WARNING"]
    if same_blas:
        argv = [sys.executable, "-c", _PRELOADED_MLXLM, *flags]
        return ServerSpec("mlxlm-blas", f"mlx_lm.server + {blas_label}", argv, env=dict(env or {}),
                          send_model=False, ignore_eos=False)
    argv = [sys.executable, "-m", "mlx_lm.server", *flags]
    return ServerSpec("mlxlm-installed", "mlx_lm.server as installed", argv,
                      send_model=False, ignore_eos=False)


class Server:
    """A running server process; use as a context manager."""

    def __init__(self, spec: ServerSpec, port: int, log_dir: Path) -> None:
        self.spec = spec
        self.port = port
        self.base = f"http://127.0.0.1:{port}"
        self.log_path = log_dir / f"{spec.key}.log"
        self.proc: subprocess.Popen[bytes] | None = None
        self.model_id: str | None = None

    def start(self, timeout: float = 300.0) -> None:
        """Start the process and wait until ``GET /v1/models`` answers 200."""
        env = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "AFM_BLAS")}
        env.update(self.spec.env)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
        log = open(self.log_path, "wb")  # noqa: SIM115 - lives as long as the process
        self.proc = subprocess.Popen(self.spec.argv, cwd=ROOT, env=env, stdout=log,
                                     stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.spec.label} exited with {self.proc.returncode}; "
                                   f"log: {self.log_path}\n{self.log_tail()}")
            try:
                resp = httpx.get(f"{self.base}/v1/models", timeout=5.0)
            except httpx.HTTPError:
                resp = None
            if resp is not None and resp.status_code == 200:
                try:
                    data = resp.json().get("data") or []
                    self.model_id = data[0].get("id") if data else None
                except (ValueError, AttributeError, IndexError):
                    self.model_id = None  # mlx_lm.server may answer with an empty body
                return
            time.sleep(0.5)
        self.stop()
        raise RuntimeError(f"{self.spec.label} not ready after {timeout:.0f}s; log: "
                           f"{self.log_path}\n{self.log_tail()}")

    def log_tail(self, lines: int = 15) -> str:
        """The end of the server's log."""
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""

    def stop(self) -> None:
        """SIGTERM the process group, then SIGKILL after 10 s."""
        if self.proc is None or self.proc.poll() is not None:
            return
        try:
            os.killpg(self.proc.pid, signal.SIGTERM)
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)
        except ProcessLookupError:
            pass

    def __enter__(self) -> Server:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
