"""1 rank vs 2 ranks (ring on loopback): decode speed and the lockstep overhead per step.

Usage: .venv/bin/python tools/bench_sharded.py [MODEL_PRESET_OR_PATH] [TOKENS]

Starts `afm serve` once as one process and once as two ranks (as ``mlx.launch --backend ring
-n 2`` would, with MLX_RANK and a ring hostfile), streams one request of TOKENS tokens on each
(decode batch 1) and prints decode tokens/s and, for 2 ranks, the step ops rank 0 sent, the
microseconds it spent sending them per op and per token, and the part of that inside the plan
collectives (waits for the other rank included; from /metrics).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _metric(url: str, name: str) -> float:
    for line in httpx.get(url + "/metrics", timeout=10).text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    return 0.0


def _start(model: str, ranks: int, base: Path) -> tuple[str, list[subprocess.Popen[bytes]]]:
    port = _port()
    hosts = base / "hosts.json"
    hosts.write_text(json.dumps([[f"127.0.0.1:{_port()}"] for _ in range(ranks)]))
    procs = []
    for rank in reversed(range(ranks)):
        env = dict(os.environ)
        if ranks > 1:
            env.update(MLX_RANK=str(rank), MLX_HOSTFILE=str(hosts))
        cmd = [sys.executable, "-m", "afm", "serve", "--model", model, "--port", str(port),
               "--data-dir", str(base / f"data{ranks}")]
        procs.append(subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                                      stderr=subprocess.DEVNULL))
    url = f"http://127.0.0.1:{port}"
    for _ in range(600):
        try:
            if httpx.get(url + "/health", timeout=2).status_code == 200:
                return url, procs
        except httpx.HTTPError:
            time.sleep(0.5)
    raise RuntimeError("server did not start")


def _run(url: str, tokens: int) -> float:
    body = {"model": "m", "messages": [{"role": "user", "content": "Write about the sea."}],
            "max_tokens": tokens, "temperature": 1.0, "seed": 1, "ignore_eos": True}
    r = httpx.post(url + "/v1/chat/completions", json=body, timeout=600).json()
    return float(r["usage"]["completion_tokens_per_second"])


def main() -> None:
    from modelbuilder import ensure_model

    target = sys.argv[1] if len(sys.argv) > 1 else "tiny"
    tokens = int(sys.argv[2]) if len(sys.argv) > 2 else 256
    model = target if Path(target).is_dir() else str(ensure_model(target))
    with tempfile.TemporaryDirectory() as tmp:
        for ranks in (1, 2):
            url, procs = _start(model, ranks, Path(tmp))
            try:
                _run(url, 16)  # warm-up
                ops0 = _metric(url, "afm:shard_ops_total")
                sec0 = _metric(url, "afm:shard_op_seconds_total")
                coll0 = _metric(url, "afm:shard_collective_seconds_total")
                tps = _run(url, tokens)
                ops = _metric(url, "afm:shard_ops_total") - ops0
                sec = _metric(url, "afm:shard_op_seconds_total") - sec0
                coll = _metric(url, "afm:shard_collective_seconds_total") - coll0
                line = f"{Path(model).name} ranks={ranks} decode {tps:.1f} tok/s"
                if ranks > 1 and ops:
                    line += (f"; {ops:.0f} plan ops, {sec / ops * 1e6:.0f} us/op, "
                             f"{sec / tokens * 1e6:.0f} us/token sending plans, of which "
                             f"{coll / tokens * 1e6:.0f} us/token inside the collectives")
                print(line, flush=True)
            finally:
                procs[-1].send_signal(signal.SIGTERM)  # rank 0 stops the others
                for p in procs:
                    try:
                        p.wait(timeout=30)
                    except subprocess.TimeoutExpired:
                        p.kill()


if __name__ == "__main__":
    main()
