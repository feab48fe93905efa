"""`afm serve` under `mlx.launch` itself (ring backend, 2 ranks on loopback), as README shows.

The launcher starts both ranks (``MLX_RANK`` and the ring hostfile are its own); the test finds
them as the launcher's children, talks to rank 0 over HTTP, then stops the group the documented
way (SIGTERM to rank 0) and checks that both ranks and the launcher are gone.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.conftest import ROOT, free_port
from tests.waiting import eventually


def _children(pid: int) -> dict[int, int]:
    """The launcher's child processes as {rank: pid} (their MLX_RANK)."""
    ranks: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            if ppid != pid:
                continue
            env = (entry / "environ").read_bytes().split(b"\0")
        except (OSError, ValueError, IndexError):
            continue
        for var in env:
            if var.startswith(b"MLX_RANK="):
                ranks[int(var[9:])] = int(entry.name)
    return ranks


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(sys.platform != "linux", reason="finds the ranks through /proc")
def test_mlx_launch_serves_and_stops_on_sigterm(tmp_path: Path, tiny_model: Path) -> None:
    port, ring_port = free_port(), free_port()
    launch = [str(Path(sys.executable).parent / "mlx.launch"), "--backend", "ring", "-n", "2",
              "--starting-port", str(ring_port), "--",
              sys.executable, "-m", "afm", "serve", "--port", str(port),
              "--data-dir", str(tmp_path / "data"), "--model", str(tiny_model)]
    log = (tmp_path / "launch.log").open("wb")
    launcher = subprocess.Popen(launch, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=log,
                                stderr=subprocess.STDOUT)
    ranks: dict[int, int] = {}
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 240  # as ShardedServer.wait_healthy: a loaded CI box
        health = None
        while time.monotonic() < deadline and launcher.poll() is None:
            ranks = ranks if len(ranks) == 2 else _children(launcher.pid)
            try:
                health = httpx.get(url + "/health", timeout=2)
                if health.status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            time.sleep(0.3)
        text = (tmp_path / "launch.log").read_text(errors="replace")
        assert health is not None and health.status_code == 200, text[-3000:]
        sharding = health.json()["sharding"]
        assert sharding["world_size"] == 2 and sharding["backend"] == "ring"
        assert [r["host"] for r in sharding["ranks"]] == ["127.0.0.1", "127.0.0.1"]
        reply = httpx.post(url + "/v1/chat/completions", timeout=60, json={
            "model": "tiny", "messages": [{"role": "user", "content": "Hi"}], "max_tokens": 8,
            "temperature": 1.0, "seed": 1, "ignore_eos": True}).json()
        assert reply["usage"]["completion_tokens"] == 8
        assert sorted(ranks) == [0, 1], ranks

        os.kill(ranks[0], signal.SIGTERM)
        assert launcher.wait(timeout=30) is not None
        eventually(lambda: not any(_alive(p) for p in ranks.values()), 10,
                   "no rank outlives mlx.launch", interval=0.2,
                   detail=lambda: [r for r, p in ranks.items() if _alive(p)])
        text = (tmp_path / "launch.log").read_text(errors="replace")
        assert "stop from rank 0" in text, text[-3000:]
        # both ranks exit 0 (rank 0 drains, then stops the worker): mlx.launch warns otherwise
        assert "exited with code" not in text and "was killed" not in text, text[-3000:]
    finally:
        for pid in ranks.values():
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
        if launcher.poll() is None:
            launcher.kill()
            launcher.wait()
        log.close()
