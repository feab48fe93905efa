"""A/B benchmark of `afm serve` from two checkouts, interleaved, on the same model.

Use it to show that a change keeps speed: both servers run side by side (one at a time per
wave, alternating A, B, A, B...), each wave streams ``--tokens`` tokens per request at each
concurrency level, and the table gives the median aggregate tok/s and the ratio B/A.

    .venv/bin/python tools/bench_ab.py --a /tmp/base --b . --rounds 3

Each checkout's code is imported from its own folder (PYTHONPATH and cwd), with this
venv's packages. The model is the bench preset the project builds.
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

    def __init__(self, checkout: Path, key: str, model: Path, log_dir: Path) -> None:
        port = free_port()
        spec = afm_spec(model, port, 8, ["--data-dir", tempfile.mkdtemp(prefix="afm-ab-")])
        spec.key, spec.label = key, f"afm serve ({checkout})"
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
    args = parser.parse_args(argv)
    try:
        from modelbuilder import ensure_model
    except ImportError:  # before the builder moved out of engine/
        from engine.model_builder import ensure_model

    model = ensure_model("bench")
    log_dir = Path(tempfile.mkdtemp(prefix="afm-ab-logs-"))
    servers = {"A": CheckoutServer(args.a.resolve(), "A", model, log_dir),
               "B": CheckoutServer(args.b.resolve(), "B", model, log_dir)}
    results: dict[tuple[str, int], list[float]] = {}
    try:
        for server in servers.values():
            server.start()
            asyncio.run(run_wave(f"{server.base}/v1/chat/completions",
                                 bodies(server.model_id, 1, 8, -1), 1))  # warm-up
        for r in range(args.rounds):
            for c in args.concurrency:
                for key in ("A", "B") if r % 2 == 0 else ("B", "A"):
                    s = servers[key]
                    stats = asyncio.run(run_wave(f"{s.base}/v1/chat/completions",
                                                 bodies(s.model_id, c, args.tokens, r), c))
                    if stats.failed:
                        raise RuntimeError(f"{key} c={c}: {stats.errors}")
                    results.setdefault((key, c), []).append(stats.tok_s)
                    print(f"round {r + 1} {key} c={c}: {stats.tok_s:.1f} tok/s",
                          file=sys.stderr)
    finally:
        for server in servers.values():
            server.stop()
    print(f"A = {args.a}, B = {args.b}; median of {args.rounds} interleaved rounds, "
          f"{args.tokens} tokens per request, aggregate tok/s\n")
    print("| clients | A tok/s | B tok/s | B/A |\n|---|---|---|---|")
    for c in args.concurrency:
        a, b = (statistics.median(results[(k, c)]) for k in ("A", "B"))
        print(f"| {c} | {a:.1f} | {b:.1f} | {b / a:.3f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
