"""Shared fixtures: real `afm serve` processes on models the project builds offline.

`live_server(*flags)` starts (once per distinct flag set, for the whole session) a real server
process on the `tiny` test model and a fresh data directory; tests talk to it over HTTP with the
official `openai` SDK or httpx.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

import httpx
import pytest

from engine.blas import preload_fast_blas

preload_fast_blas()  # before any test module imports mlx.core

from tests.waiting import eventually  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent

PINNED_SAMPLING = ["--temperature", "0.7", "--top-p", "1", "--top-k", "0", "--min-p", "0",
                   "--repetition-penalty", "1"]
"""The sampling defaults every test server starts with (a test's own flags and a request's
fields still win): the seeds of the random-weight tests were chosen under these values, the
server's defaults before models' own generation defaults applied (the `tiny` model's
generation_config.json states temperature 0.6, top_p 0.95, top_k 20; the packaged Qwen coder
files' table a repetition penalty of 1.1, under which the 0.5B model's greedy answer after a
tool result repeats the call). Tests of the defaults
themselves start with ``LiveServer(..., sampling=[])``."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for_health(url: str, exited: Callable[[], bool], timeout: float) -> str:
    """Poll ``url``/health until it answers 200 (``"healthy"``), ``exited()`` turns true
    (``"exited"``) or ``timeout`` seconds pass (``"timeout"``)."""
    def state() -> str | None:
        if exited():
            return "exited"
        try:
            return "healthy" if httpx.get(url + "/health", timeout=2).status_code == 200 else None
        except httpx.HTTPError:
            return None

    try:
        return eventually(state, timeout, f"{url}/health answers 200", interval=0.3)
    except AssertionError:
        return "timeout"


@dataclass
class LiveServer:
    """A real `afm serve` process."""

    args: list[str]
    data_dir: Path
    log_path: Path
    port: int = field(default_factory=free_port)
    proc: subprocess.Popen[bytes] | None = None
    log_file: BinaryIO | None = None
    sampling: list[str] = field(default_factory=lambda: list(PINNED_SAMPLING))
    """Flags placed before :attr:`args` (which win over them): see PINNED_SAMPLING."""

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 180.0) -> LiveServer:
        cmd = [sys.executable, "-m", "afm", "serve", "--port", str(self.port),
               "--data-dir", str(self.data_dir), *self.sampling, *self.args]
        self._close_log()
        self.log_file = self.log_path.open("ab")
        self.proc = subprocess.Popen(cmd, cwd=ROOT, stdout=self.log_file,
                                     stderr=subprocess.STDOUT)
        proc = self.proc
        state = wait_for_health(self.url, lambda: proc.poll() is not None, timeout)
        if state == "healthy":
            return self
        if state == "exited":
            self._close_log()
            raise RuntimeError(f"afm serve exited early:\n{self.log_tail()}")
        self.stop()
        raise RuntimeError(f"afm serve did not become healthy:\n{self.log_tail()}")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._close_log()

    def kill(self) -> None:
        """SIGKILL: a crash, with no chance to clean up."""
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
        self._close_log()

    def _close_log(self) -> None:
        if self.log_file is not None:
            self.log_file.close()
            self.log_file = None

    def log_tail(self, n: int = 60) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-n:])
        except OSError:
            return ""

    def openai(self, **kw: object) -> object:
        import openai

        return openai.OpenAI(base_url=self.url + "/v1", api_key="unused", max_retries=0,
                             **kw)  # type: ignore[arg-type]


@pytest.fixture(scope="session")
def tiny_model() -> Path:
    from modelbuilder import ensure_model

    return ensure_model("tiny")


MAX_OTHER_SERVERS = int(os.environ.get("AFM_TEST_MAX_OTHER_SERVERS", "4"))
"""Shared servers of other models than the tiny one (real weights: up to ~3 GiB each) kept
running at once; starting one more stops the least recently used (24 GiB hold only so many)."""

_TESTS_RUN = [0]
_LAST_USE: dict[int, int] = {}  # id(LiveServer) -> the test count when it was last used


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_call(item: pytest.Item) -> None:
    """Count tests, and note the shared servers each one takes as an argument."""
    _TESTS_RUN[0] += 1
    for value in getattr(item, "funcargs", {}).values():
        if isinstance(value, LiveServer):
            _LAST_USE[id(value)] = _TESTS_RUN[0]


def _make_room(servers: dict[tuple[str, ...], LiveServer], tiny: str) -> None:
    """Stop least recently used servers of other models until one more fits the bound."""
    others = [k for k in servers if k[1] != tiny]
    others.sort(key=lambda k: _LAST_USE.get(id(servers[k]), 0))
    while len(others) >= MAX_OTHER_SERVERS:
        servers.pop(others.pop(0)).stop()


@pytest.fixture(scope="session")
def live_server(tmp_path_factory: pytest.TempPathFactory, tiny_model: Path
                ) -> Iterator[Callable[..., LiveServer]]:
    """Factory: `live_server("--flag", "value", model=path)` -> a started LiveServer, shared by
    every test asking for the same arguments."""
    servers: dict[tuple[str, ...], LiveServer] = {}

    def get(*flags: str, model: Path | str | None = None) -> LiveServer:
        args = ["--model", str(model or tiny_model), *flags]
        key = tuple(args)
        if key not in servers:
            if args[1] != str(tiny_model):
                _make_room(servers, str(tiny_model))
            base = tmp_path_factory.mktemp("afm-server")
            servers[key] = LiveServer(args, base / "data", base / "server.log").start()
        _LAST_USE[id(servers[key])] = _TESTS_RUN[0]
        return servers[key]

    yield get
    for server in servers.values():
        server.stop()


@pytest.fixture(scope="session")
def server(live_server: Callable[..., LiveServer]) -> LiveServer:
    """The default test server: tiny model, 4 slots."""
    return live_server("--concurrent", "4")


@pytest.fixture(scope="session")
def client(server: LiveServer) -> object:
    """The official openai SDK pointed at the default test server."""
    return server.openai()


os.environ.setdefault("HF_HUB_OFFLINE", "1")

_exit_status: int | None = None


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    global _exit_status
    _exit_status = int(exitstatus)


def pytest_unconfigure(config: pytest.Config) -> None:
    """Leave without C++ static destructors once pytest is done: engines used MLX from their
    own threads, and MLX can then abort at interpreter exit (ml-explore/mlx#3126)."""
    if _exit_status is not None and "mlx.core" in sys.modules:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(_exit_status)
