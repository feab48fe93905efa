"""A/B benchmark of `afm serve` from two checkouts, interleaved, on the same model.

Use it to show that a change keeps speed: both servers run side by side (one at a time per
wave, alternating A, B, A, B...), each wave streams ``--tokens`` tokens per request at each
concurrency level, and the table gives the median aggregate tok/s and the ratio B/A (the median
of the per-round ratios: A and B ran back to back in each round).

    .venv/bin/python tools/bench_ab.py --a /tmp/base --b . --rounds 3

Each checkout's code is imported from its own folder (PYTHONPATH and cwd), with this
venv's packages. ``--env-a`` / ``--env-b`` set environment variables for one side, so one
checkout can be measured against itself with a switch flipped::

    .venv/bin/python tools/bench_ab.py --a . --env-a AFM_FUSED_LINEAR=0 --rounds 5
 The model is the bench preset the project builds. Besides tok/s, the table
gives each server process's CPU time per generated token (user + system, all threads, from
/proc), which other load on a shared machine disturbs much less than wall-clock rates.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tools.bench_lib.client import run_wave  # noqa: E402
from tools.bench_lib.servers import Server, afm_spec, free_port  # noqa: E402


class CheckoutServer(Server):
    """`afm serve` importing its code from another checkout."""

    def __init__(self, checkout: Path, key: str, model: Path, log_dir: Path,
                 concurrent: int = 8, env: dict[str, str] | None = None) -> None:
        port = free_port()
        spec = afm_spec(model, port, concurrent,
                        ["--data-dir", tempfile.mkdtemp(prefix="afm-ab-")])
        spec.key, spec.label = key, f"afm serve ({checkout})"
        spec.env = dict(env or {})
        super().__init__(spec, port, log_dir)
        self.checkout = checkout

    def start(self, timeout: float = 300.0) -> None:
        old = os.environ.get("PYTHONPATH")
        os.environ["PYTHONPATH"] = str(self.checkout)
        import tools.bench_lib.servers as servers

        saved, servers.ROOT = servers.ROOT, self.checkout
        try:
            super().start(timeout)
        finally:
            servers.ROOT = saved
            if old is None:
                os.environ.pop("PYTHONPATH", None)
            else:
                os.environ["PYTHONPATH"] = old


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process so far (all its threads)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def bodies(model_id: str | None, c: int, tokens: int, round_: int) -> list[dict]:
    return [{"model": model_id, "max_tokens": tokens, "temperature": 0.0, "ignore_eos": True,
             "messages": [{"role": "user", "content": f"Round {round_} request {c}-{i}: tell a "
                                                      f"long story about {i * 7 + c}."}]}
            for i in range(c * 2)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--a", type=Path, required=True, help="baseline checkout")
    parser.add_argument("--b", type=Path, default=ROOT, help="changed checkout")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--tokens", type=int, default=64)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 8])
    parser.add_argument("--concurrent", type=int, default=8, help="each server's slots")
    parser.add_argument("--model", type=Path, help="model folder (default: the bench preset)")
    parser.add_argument("--env-a", nargs="*", default=[], metavar="KEY=VALUE")
    parser.add_argument("--env-b", nargs="*", default=[], metavar="KEY=VALUE")
    args = parser.parse_args(argv)
    env_a, env_b = (dict(kv.split("=", 1) for kv in e) for e in (args.env_a, args.env_b))
    from modelbuilder import ensure_model

    model = args.model or ensure_model("bench")
    log_dir = Path(tempfile.mkdtemp(prefix="afm-ab-logs-"))
    servers = {"A": CheckoutServer(args.a.resolve(), "A", model, log_dir, args.concurrent, env_a),
               "B": CheckoutServer(args.b.resolve(), "B", model, log_dir, args.concurrent, env_b)}
    results: dict[tuple[str, int], list[float]] = {}
    cpu: dict[tuple[str, int], list[float]] = {}
    try:
        for server in servers.values():
            server.start()
            asyncio.run(run_wave(f"{server.base}/v1/chat/completions",
                                 bodies(server.model_id, 1, 8, -1), 1))  # warm-up
        for r in range(args.rounds):
            for c in args.concurrency:
                for key in ("A", "B") if r % 2 == 0 else ("B", "A"):
                    s = servers[key]
                    assert s.proc is not None
                    before = cpu_seconds(s.proc.pid)
                    stats = asyncio.run(run_wave(f"{s.base}/v1/chat/completions",
                                                 bodies(s.model_id, c, args.tokens, r), c))
                    if stats.failed:
                        raise RuntimeError(f"{key} c={c}: {stats.errors}")
                    results.setdefault((key, c), []).append(stats.tok_s)
                    cpu.setdefault((key, c), []).append(
                        (cpu_seconds(s.proc.pid) - before) / max(stats.tokens, 1) * 1000)
                    print(f"round {r + 1} {key} c={c}: {stats.tok_s:.1f} tok/s",
                          file=sys.stderr)
    finally:
        for server in servers.values():
            server.stop()
    print(f"A = {args.a} {env_a or ''}, B = {args.b} {env_b or ''}; median of {args.rounds} "
          f"interleaved rounds, {args.tokens} tokens per request, aggregate tok/s\n")
    print("| clients | A tok/s | B tok/s | B/A | A CPU ms/token | B CPU ms/token | B/A |\n"
          "|---|---|---|---|---|---|---|")
    for c in args.concurrency:
        a, b = (statistics.median(results[(k, c)]) for k in ("A", "B"))
        ca, cb = (statistics.median(cpu[(k, c)]) for k in ("A", "B"))
        paired = statistics.median(y / x for x, y in zip(results[("A", c)], results[("B", c)],
                                                         strict=True))
        cpu_paired = statistics.median(y / x for x, y in zip(cpu[("A", c)], cpu[("B", c)],
                                                             strict=True))
        print(f"| {c} | {a:.1f} | {b:.1f} | {paired:.3f} | {ca:.2f} | {cb:.2f} | "
              f"{cpu_paired:.3f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
