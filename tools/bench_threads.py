"""Which BLAS threading serves best: the raw engine and ``afm serve`` under each configuration.

Issue 14 item 4 asks whether the model can use both cores without the HTTP side starving it.
This runs, in interleaved rounds (the machine is shared and noisy; figures are medians):

- the raw engine (``tools/bench_lib/raw.py``: batched greedy decode, no HTTP) at each batch;
- ``afm serve`` streaming to 1..16 clients;

once per BLAS configuration available here (``tools/bench_lib/formats.blas_variants``: MKL
sequential, MKL threaded, OpenBLAS pthreads), plus ``--variant NAME=ENV=VALUE,...`` extras.
It prints a Markdown table: tok/s per configuration, and each configuration's ratio to MKL
sequential (the engine's default on two cores)::

    HF_HUB_OFFLINE=1 python tools/bench_threads.py --rounds 2 --tokens 64
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tools.bench_lib.client import run_wave  # noqa: E402
from tools.bench_lib.formats import blas_variants  # noqa: E402
from tools.bench_lib.report import md_table  # noqa: E402
from tools.bench_lib.servers import ROOT, Server, afm_spec, free_port  # noqa: E402


def raw(model: Path, env: dict[str, str], batches: list[int], tokens: int) -> dict[int, float]:
    """Raw engine tok/s per batch under ``env`` (fresh interpreter: the BLAS loads first)."""
    cmd = [sys.executable, str(ROOT / "tools/bench_lib/raw.py"), "--model", str(model),
           "--tokens", str(tokens), "--batch", *map(str, batches)]
    full = {k: v for k, v in os.environ.items() if k != "AFM_BLAS"} | env
    out = subprocess.run(cmd, cwd=ROOT, env=full, capture_output=True, text=True, check=True)
    rows = json.loads(out.stdout.strip().splitlines()[-1])["rows"]
    return {r["batch"]: r["tok_s"] for r in rows}


def served(model: Path, env: dict[str, str], clients: list[int], tokens: int,
           log_dir: Path) -> dict[int, float]:
    """``afm serve`` aggregate tok/s per client count under ``env``."""
    port = free_port()
    spec = afm_spec(model, port, max(clients), [], "afm", "afm serve")
    spec.env.update(env)
    server = Server(spec, port, log_dir)
    server.start()
    try:
        url = f"{server.base}/v1/chat/completions"

        def body(i: int, n: int) -> dict[str, object]:
            return {"model": server.model_id or model.name, "max_tokens": n, "temperature": 0.0,
                    "ignore_eos": True,
                    "messages": [{"role": "user", "content": f"Story {i}: tell a long story."}]}

        asyncio.run(run_wave(url, [body(i, 8) for i in range(8)], 8))  # warm-up
        out = {}
        for c in clients:
            stats = asyncio.run(run_wave(url, [body(i, tokens) for i in range(c)], c))
            out[c] = stats.tok_s if not stats.failed else 0.0
        return out
    finally:
        server.stop()


def main(argv: list[str] | None = None) -> int:
    """Measure every configuration in interleaved rounds and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--tokens", type=int, default=64)
    parser.add_argument("--batches", type=int, nargs="+", default=[1, 8, 16])
    parser.add_argument("--clients", type=int, nargs="+", default=[1, 8, 16])
    parser.add_argument("--variant", action="append", default=[],
                        help="extra configuration NAME=K=V,K=V (e.g. "
                        "mkl2-passive=AFM_BLAS=mkl,MKL_NUM_THREADS=2,OMP_WAIT_POLICY=PASSIVE)")
    parser.add_argument("--only", help="comma-separated configuration names to run")
    parser.add_argument("--hog", action="store_true",
                        help="keep one core busy with a spinning process the whole run (how "
                        "each configuration copes when other work takes a core)")
    args = parser.parse_args(argv)
    if args.model is None:
        from modelbuilder import ensure_model

        args.model = ensure_model("bench")
    variants = {name: env for name, (_, env) in blas_variants().items()}
    for text in args.variant:
        name, _, rest = text.partition("=")
        variants[name] = dict(kv.split("=", 1) for kv in rest.split(",") if kv)
    if args.only:
        keep = set(args.only.split(","))
        variants = {k: v for k, v in variants.items() if k in keep}
    log_dir = Path(tempfile.mkdtemp(prefix="afm-bench-threads-"))
    raw_runs: dict[str, list[dict[int, float]]] = {k: [] for k in variants}
    srv_runs: dict[str, list[dict[int, float]]] = {k: [] for k in variants}
    hog = (subprocess.Popen([sys.executable, "-c", "while 1: pass"]) if args.hog else None)
    try:
        for rnd in range(args.rounds):
            for name, env in variants.items():
                raw_runs[name].append(raw(args.model, env, args.batches, args.tokens))
                srv_runs[name].append(served(args.model, env, args.clients, args.tokens,
                                             log_dir))
                print(f"[threads] round {rnd + 1} {name}: raw {raw_runs[name][-1]} "
                      f"served {srv_runs[name][-1]}", file=sys.stderr, flush=True)
    finally:
        if hog is not None:
            hog.kill()

    def med(runs: list[dict[int, float]], key: int) -> float:
        return statistics.median(r[key] for r in runs)

    base = next(iter(variants))
    header = ["Configuration", *[f"raw B={b}" for b in args.batches],
              *[f"afm c={c}" for c in args.clients]]
    rows = []
    for name, env in variants.items():
        cells = [f"{name} (`{' '.join(f'{k}={v}' for k, v in env.items())}`)"]
        for runs, keys in ((raw_runs, args.batches), (srv_runs, args.clients)):
            for k in keys:
                mine, ref = med(runs[name], k), med(runs[base] if runs is raw_runs
                                                    else srv_runs[base], k)
                cells.append(f"{mine:.1f}" + (f" ({mine / ref:.2f}x)" if name != base and ref
                                               else ""))
        rows.append(cells)
    print(f"\nMedian of {args.rounds} interleaved rounds, {args.tokens} tokens; tok/s "
          f"(ratio to {base})" + ("; one core kept busy by a spinning process" if args.hog
                                  else "") + f". Server logs in {log_dir}.\n")
    print(md_table(header, rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
