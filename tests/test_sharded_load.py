"""A sharded server under load on a real model (issue 35): `mlx.launch` ranks on loopback.

SmolLM2-135M-Instruct (9 attention heads, 3 KV heads, MLP 1536) divides across 3 ranks, not 2,
so the group here has 3 (``mlx.launch --backend ring -n 3``). ``AFM_SHARD_STALL_SECONDS=3`` is
far shorter than one batched prefill of these prompts on two shared cores: a watchdog that
measured a step against the stall limit (as before issue 35) ends the group during the first
burst. 8 and then 16 concurrent streams of different prompt lengths must give the greedy text
of one process; then a killed worker rank ends every request in flight within a bound, a
non-streamed one with 503 ``backend_unavailable`` and ``Retry-After``.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import ROOT, LiveServer, free_port, wait_for_health
from tests.real_weights import real_model
from tests.test_sharded_launch import _alive, _children
from tests.waiting import eventually

pytestmark = pytest.mark.slow

RANKS = 3
STALL_SECONDS = 3  # the group's channel-wait limit: far shorter than one batched prefill
MAX_TOKENS = 4
TEXT = ("the sea and the sky and the long road home under a quiet moon while the old ship "
        "sails past the harbour lights")


def _prompt(i: int) -> str:
    """Prompt ``i``: 1 to 12 words after its number, so no two are alike."""
    return f"Line {i}: " + " ".join(TEXT.split()[: 1 + (i * 5) % 12])


class LaunchedGroup:
    """`afm serve` under `mlx.launch` (ring, ``RANKS`` ranks on loopback)."""

    def __init__(self, base: Path, model: Path) -> None:
        self.port = free_port()
        self.base = base
        launch = [str(Path(sys.executable).parent / "mlx.launch"), "--backend", "ring",
                  "-n", str(RANKS), "--starting-port", str(free_port()), "--",
                  sys.executable, "-m", "afm", "serve", "--port", str(self.port),
                  "--data-dir", str(base / "data"), "--model", str(model),
                  "--concurrent", "16"]
        env = {**os.environ, "AFM_SHARD_STALL_SECONDS": str(STALL_SECONDS)}
        self.log = (base / "launch.log").open("wb")
        self.launcher = subprocess.Popen(launch, cwd=ROOT, env=env, stdin=subprocess.DEVNULL,
                                         stdout=self.log, stderr=subprocess.STDOUT)
        self.ranks: dict[int, int] = {}

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def text(self) -> str:
        return (self.base / "launch.log").read_text(errors="replace")

    def wait_healthy(self, timeout: float = 300.0) -> LaunchedGroup:
        def exited() -> bool:
            if len(self.ranks) < RANKS:
                self.ranks = _children(self.launcher.pid)
            return self.launcher.poll() is not None

        state = wait_for_health(self.url, exited, timeout)
        assert state == "healthy", f"{state}\n{self.text()[-3000:]}"
        self.ranks = _children(self.launcher.pid)
        assert sorted(self.ranks) == list(range(RANKS)), self.ranks
        return self

    def close(self) -> None:
        for pid in self.ranks.values():
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
        if self.launcher.poll() is None:
            self.launcher.kill()
            self.launcher.wait()
        self.log.close()


@pytest.fixture(scope="module")
def smol() -> Path:
    return real_model("smollm2")


@pytest.fixture(scope="module")
def group(tmp_path_factory: pytest.TempPathFactory, smol: Path) -> Iterator[LaunchedGroup]:
    launched = LaunchedGroup(tmp_path_factory.mktemp("sharded-load"), smol)
    try:
        yield launched.wait_healthy()
    finally:
        launched.close()


@pytest.fixture(scope="module")
def single(live_server: Callable[..., LiveServer], smol: Path) -> LiveServer:
    return live_server("--concurrent", "16", model=smol)


def _stream(url: str, i: int, max_tokens: int = MAX_TOKENS) -> str:
    body = {"model": "m", "messages": [{"role": "user", "content": _prompt(i)}],
            "stream": True, "temperature": 0, "max_tokens": max_tokens}
    text = []
    # the first bytes come after the burst's batched prefill: minutes on two busy cores
    with httpx.stream("POST", url + "/v1/chat/completions", json=body, timeout=900) as response:
        assert response.status_code == 200, response.read()
        for line in response.iter_lines():
            if line.startswith("data: {"):
                chunk = json.loads(line[6:])
                assert "error" not in chunk, chunk
                text += [c["delta"].get("content") or "" for c in chunk["choices"]]
    return "".join(text)


def _burst(url: str, ids: list[int]) -> dict[int, str]:
    with ThreadPoolExecutor(len(ids)) as pool:
        return dict(zip(ids, pool.map(lambda i: _stream(url, i), ids), strict=True))


def test_ranks_run_the_native_kernel(group: LaunchedGroup) -> None:
    """Every rank's tensor-parallel quantized slices run on AFM's kernel, not MLX's scalar one
    (3x the batched prefill time here before)."""
    body = {"model": "m", "messages": [{"role": "user", "content": _prompt(0)}],
            "max_tokens": 1}
    reply = httpx.post(group.url + "/v1/chat/completions", json=body, timeout=300,
                       headers={"X-AFM-Profile": "true"})
    assert reply.status_code == 200, reply.text
    weights = reply.json()["afm_profile"]["cpu_weights"]
    assert weights["weights"] == "native", weights
    assert "native quantized CPU kernel" in weights["reason"], weights
    assert group.text().count("quantized layers use the native kernel") == RANKS, group.text()


@pytest.mark.parametrize("n", [8, 16])
def test_concurrent_streams_match_one_process(group: LaunchedGroup, single: LiveServer,
                                              n: int) -> None:
    ids = list(range(100 * n, 100 * n + n))  # fresh prompts each burst: no prefix-cache hits
    sharded = _burst(group.url, ids)
    alone = {i: _stream(single.url, i) for i in ids}
    assert sharded == alone
    assert all(alone.values())
    health = httpx.get(group.url + "/health", timeout=10).json()
    assert health["sharding"]["status"] == "serving", health


def _running(group: LaunchedGroup) -> float:
    for line in httpx.get(group.url + "/metrics", timeout=10).text.splitlines():
        if line.startswith("afm:num_requests_running "):
            return float(line.split()[1])
    raise AssertionError("no afm:num_requests_running in /metrics")


def test_killed_worker_ends_requests_in_flight(group: LaunchedGroup) -> None:
    """Last in this module: it ends the group."""
    got: dict[str, Any] = {}

    def non_streamed() -> None:
        got["reply"] = httpx.post(group.url + "/v1/chat/completions", timeout=120, json={
            "model": "m", "messages": [{"role": "user", "content": _prompt(1)}],
            "max_tokens": 100000, "ignore_eos": True, "temperature": 0})

    waiter = threading.Thread(target=non_streamed)
    waiter.start()
    eventually(lambda: _running(group) >= 1, 60, "the request runs", interval=0.2)
    assert _running(group) == 1  # in flight when the rank dies, not refused at admission
    events: list[str] = []
    tic = 0.0
    with httpx.stream("POST", group.url + "/v1/chat/completions", timeout=120, json={
            "model": "m", "messages": [{"role": "user", "content": _prompt(2)}],
            "stream": True, "max_tokens": 100000, "ignore_eos": True}) as response:
        for line in response.iter_lines():
            if line.startswith("data: "):
                events.append(line)
                if len(events) == 3:
                    os.kill(group.ranks[RANKS - 1], signal.SIGKILL)
                    tic = time.monotonic()
    waiter.join(timeout=120)
    took = time.monotonic() - tic
    # the ring fails the step at once, or a watchdog ends it within a decode step's budget
    assert tic and took < 2 * STALL_SECONDS + 15, took
    assert any('"error"' in e for e in events[3:]), events[-3:]
    reply = got["reply"]
    assert reply.status_code == 503, reply.text
    assert reply.headers["Retry-After"] == "10"
    assert reply.json()["error"]["type"] == "backend_unavailable"
    assert group.launcher.wait(timeout=60) is not None, group.text()[-3000:]
    assert not [r for r, p in group.ranks.items() if _alive(p)], "a rank outlived the group"
    assert "the sharded group failed" in group.text()
