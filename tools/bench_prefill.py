"""Cold prefill and one-stream decode on a real GGUF file: afm's engine in process, with and
without the prefill paths (tiled attention, BLAS tiles for many-row quantized matmuls), and
llama-server on the same file, paired per round.

    PYTHONPATH=. python tools/bench_prefill.py \\
        --model /work/models/SmolLM2-135M-Instruct.Q4_1.gguf \\
        --lengths 256 1024 4096 --rounds 2 [--llama] [--step 256 1024] [--rows]

afm here is the engine's model call path without HTTP (the GGUF file read by
``tools/bench_lib/gguf_mlx.py``, prepared as ``afm serve`` prepares a model:
``cpu_weights.prepare``): prefill in chunks of ``--step`` tokens into a fresh KV cache, then the
first token, timed from the first chunk to the first token (the TTFT of a cold prompt without
HTTP). Prompts are random token ids, different in every round and length, so no cache helps.
``afm-old`` turns the two prefill paths off at run time (``set_blas_rows(0)``, long attention to
MLX's graph). llama-server gets the same token ids through ``/completion`` (``n_predict`` 1,
``cache_prompt`` false) at its best settings found here: ``-t`` all cores, ``-b``/``-ub`` 512,
flash attention on (``-fa on``); its TTFT is the request's wall time. ``--llama-bench on|off``
runs llama.cpp's ``llama-bench`` instead (same settings, ``-r 1``; TTFT = tokens / its prompt
rate, decode at depth 32; peak RSS by /usr/bin/time), for machines where the server is not
built. Decode: 64 greedy tokens after a 32-token prompt, tok/s of the decode steps (llama: its
``timings.predicted_per_second``). ``--rows`` times the quantized matmul per row count on both
paths (how the BLAS threshold was chosen). ``--attention`` times the attention op alone as a
chunked prefill of each length calls it on the model's shape (every chunk's queries against the
keys so far, causal), summed over the layers, with its multiply-add rate and share of the
prompt's TTFT: how far the prefill rate at a length can fall for attention alone; once with
the extension's own panel kernels and once with the BLAS tiles (``set_attention_panels``).
Ratios are afm over the peer, per round: above 1 afm is faster.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.blas import preload_fast_blas  # noqa: E402

preload_fast_blas()

import mlx.core as mx  # noqa: E402
from mlx_lm.models.cache import make_prompt_cache  # noqa: E402

from engine import cpu_weights, fast_ops, qkernels  # noqa: E402
from tools.bench_lib.gguf_mlx import load_llama_gguf  # noqa: E402
from tools.bench_lib.llama import _binary  # noqa: E402
from tools.bench_lib.servers import free_port  # noqa: E402


def variant(name: str) -> None:
    """afm's prefill paths on (``afm``) or off (``afm-old``), at run time."""
    new = name == "afm"
    qkernels._ext.set_blas_rows(qkernels.DEFAULT_BLAS_ROWS if new else 0)  # noqa: SLF001
    fast_ops._TILED = new and fast_ops.tiled_available()  # noqa: SLF001


def afm_ttft(model: object, ids: list[int], step: int) -> float:
    """Seconds from the first chunk to the first token (greedy), fresh cache."""
    cache = make_prompt_cache(model)
    x = mx.array([ids])
    tic = time.perf_counter()
    for start in range(0, len(ids) - 1, step):
        end = min(start + step, len(ids) - 1)
        model(x[:, start:end], cache=cache)  # type: ignore[operator]
        mx.eval([c.state for c in cache])
    logits = model(x[:, -1:], cache=cache)  # type: ignore[operator]
    mx.eval(mx.argmax(logits[:, -1, :], axis=-1))
    return time.perf_counter() - tic


def afm_decode(model: object, ids: list[int], n: int = 64) -> float:
    """Greedy decode tok/s after the prompt ``ids`` (one stream, batch 1)."""
    cache = make_prompt_cache(model)
    logits = model(mx.array([ids]), cache=cache)  # type: ignore[operator]
    tok = mx.argmax(logits[:, -1, :], axis=-1)
    mx.eval(tok)
    tic = time.perf_counter()
    for _ in range(n):
        logits = model(tok[:, None], cache=cache)  # type: ignore[operator]
        tok = mx.argmax(logits[:, -1, :], axis=-1)
        mx.async_eval(tok)
    mx.eval(tok)
    return n / (time.perf_counter() - tic)


class Llama:
    """llama-server on the GGUF file (its best settings here, see the module docstring)."""

    def __init__(self, model: Path, ctx: int, threads: int, log: Path) -> None:
        server = _binary("llama-server")
        if server is None:
            raise SystemExit("llama-server not built (tools/bench_lib/llama.py says how)")
        self.port = free_port()
        self.argv = [str(server), "-m", str(model), "--host", "127.0.0.1", "--port",
                     str(self.port), "-t", str(threads), "-c", str(ctx), "-np", "1",
                     "-b", "512", "-ub", "512", "-fa", "on", "--no-warmup"]
        self.log = open(log, "wb")  # noqa: SIM115
        self.proc = subprocess.Popen(self.argv, stdout=self.log, stderr=subprocess.STDOUT,
                                     start_new_session=True)
        import httpx

        self.http = httpx.Client(base_url=f"http://127.0.0.1:{self.port}", timeout=1800)
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            try:
                if self.http.get("/health").status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            if self.proc.poll() is not None:
                raise SystemExit(f"llama-server exited; log {log}")
            time.sleep(0.5)
        raise SystemExit(f"llama-server not ready; log {log}")

    def ttft(self, ids: list[int]) -> float:
        tic = time.perf_counter()
        r = self.http.post("/completion", json={"prompt": ids, "n_predict": 1,
                                                "cache_prompt": False, "temperature": 0})
        r.raise_for_status()
        return time.perf_counter() - tic

    def decode(self, ids: list[int], n: int = 64) -> float:
        r = self.http.post("/completion", json={"prompt": ids, "n_predict": n,
                                                "cache_prompt": False, "temperature": 0,
                                                "ignore_eos": True})
        r.raise_for_status()
        return float(r.json()["timings"]["predicted_per_second"])

    def peak_rss_mib(self) -> float:
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
        return float("nan")

    def close(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self.log.close()


class LlamaBench:
    """llama.cpp's own ``llama-bench`` on the GGUF file, one measurement per call (the same
    engine as llama-server, without HTTP; used where the server is not built)."""

    def __init__(self, model: Path, threads: int, fa: str) -> None:
        self.bin = _binary("llama-bench")
        if self.bin is None:
            raise SystemExit("llama-bench not built (tools/bench_lib/llama.py says how)")
        self.base = [str(self.bin), "-m", str(model), "-t", str(threads), "-fa", fa,
                     "-b", "512", "-ub", "512", "-r", "1", "-o", "json"]
        self.peak = 0.0

    def _run(self, flags: list[str]) -> float:
        cmd = ["/usr/bin/time", "-f", "%M", *self.base, *flags]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=1800, check=True)
        self.peak = max(self.peak, int(done.stderr.strip().splitlines()[-1]) / 1024)
        return float(json.loads(done.stdout)[0]["avg_ts"])

    def ttft(self, ids: list[int]) -> float:
        return len(ids) / self._run(["-p", str(len(ids)), "-n", "0"])

    def decode(self, ids: list[int], n: int = 64) -> float:
        return self._run(["-p", "0", "-n", str(n), "-d", str(len(ids))])

    def peak_rss_mib(self) -> float:
        return self.peak

    def close(self) -> None:
        pass


def rows_table(k: int = 576, n: int = 1536) -> None:
    """ms per quantized matmul (4-bit g32, K x N of the 135M model's MLP) by row count: the
    per-row kernel, the float32 BLAS tiles and, on CPUs with AMX-BF16, the AMX tiles."""
    w = mx.random.normal((n, k), key=mx.random.key(0))
    wq, s, b = mx.quantize(w, group_size=32, bits=4)
    s, b = s.astype(mx.float32), b.astype(mx.float32)
    from engine.qkernel_isa import candidates

    ext = qkernels._ext  # noqa: SLF001
    x1 = mx.random.normal((1, k), key=mx.random.key(1))
    paths = {}
    for isa in candidates(ext):  # the path the engine's load-time timing would pick
        mx.eval(ext.quantized_matmul(x1, wq, s, b, 32, 4, isa))
        tic = time.perf_counter()
        for _ in range(20):
            mx.eval(ext.quantized_matmul(x1, wq, s, b, 32, 4, isa))
        paths[isa] = time.perf_counter() - tic
    best = min(paths, key=paths.__getitem__)
    ext.set_auto_isa(4, best)
    print(f"per-row kernel: {best} (fastest at 1 row of {sorted(paths)})\n")
    amx = ext.amx_bf16_available()  # AMX bfloat16 tiles (the inexact opt-in) as a third column
    head = "| rows | per-row kernel ms | BLAS tiles ms | ratio |"
    print(head + (" AMX bf16 tiles ms | ratio |\n|---|---|---|---|---|---|" if amx
                  else "\n|---|---|---|---|"))
    for m in (8, 16, 32, 48, 64, 96, 128, 256, 512):
        x = mx.random.normal((m, k), key=mx.random.key(m))
        ms = {}
        for path in ("rows", "blas", "amx") if amx else ("rows", "blas"):
            ext.set_blas_rows(0 if path == "rows" else 1)
            ext.set_blas_bf16(path == "amx")
            mx.eval(ext.quantized_matmul(x, wq, s, b, 32, 4))
            best = 1e9
            for _ in range(7):
                tic = time.perf_counter()
                mx.eval(ext.quantized_matmul(x, wq, s, b, 32, 4))
                best = min(best, time.perf_counter() - tic)
            ms[path] = best * 1e3
        line = f"| {m} | {ms['rows']:.2f} | {ms['blas']:.2f} | {ms['rows'] / ms['blas']:.2f}x |"
        if amx:
            line += f" {ms['amx']:.2f} | {ms['rows'] / ms['amx']:.2f}x |"
        print(line, flush=True)
    ext.set_blas_rows(qkernels.DEFAULT_BLAS_ROWS)
    qkernels.reload_environment()


def attention_table(config: dict, lengths: list[int], step: int,
                    ttft: dict[tuple[str, int], list[float]]) -> None:
    """The attention op alone, as a prefill of each length in chunks of ``step`` calls it
    (fast_ops' route: the tiled native op where installed), all layers."""
    heads, kv_heads = config["num_attention_heads"], config["num_key_value_heads"]
    d = config["hidden_size"] // heads
    layers = config["num_hidden_layers"]
    variant("afm")
    print(f"\nattention alone: {layers} layers, {heads} heads / {kv_heads} KV heads of {d}, "
          f"chunks of {step}, {'tiled native op' if fast_ops._TILED else 'MLX graph'}\n")  # noqa: SLF001
    ext = qkernels._ext  # noqa: SLF001
    kernels = [True, False] if ext is not None and hasattr(ext, "set_attention_panels") else [None]
    print("| kernel | prompt tokens | attention s (all layers, best of 3) | GMAC/s "
          "| share of afm's TTFT |")
    print("|---|---|---|---|---|")
    for panels in kernels:
        if panels is not None:
            ext.set_attention_panels(panels)
        name = "-" if panels is None else "panels" if panels else "BLAS tiles"
        try:
            _attention_rows(name, kv_heads, heads, d, layers, lengths, step, ttft)
        finally:
            if panels is not None:
                ext.set_attention_panels(True)


def _attention_rows(name: str, kv_heads: int, heads: int, d: int, layers: int,
                    lengths: list[int], step: int,
                    ttft: dict[tuple[str, int], list[float]]) -> None:
    """attention_table's rows for one kernel of the tiled op."""
    for n in lengths:
        key = mx.random.key(n)
        k = mx.random.normal((1, kv_heads, n, d), key=key)
        v = mx.random.normal((1, kv_heads, n, d), key=mx.random.key(n + 1))
        mx.eval(k, v)
        total, macs = 0.0, 0.0
        for s0 in range(0, n, step):
            s1 = min(s0 + step, n)
            q = mx.random.normal((1, heads, s1 - s0, d), key=mx.random.key(s0))
            ks, vs = k[:, :, :s1], v[:, :, :s1]
            mx.eval(q, ks, vs)
            best = 1e9
            for _ in range(3):
                tic = time.perf_counter()
                mx.eval(mx.fast.scaled_dot_product_attention(q, ks, vs, scale=d ** -0.5,
                                                             mask="causal"))
                best = min(best, time.perf_counter() - tic)
            total += best
            pairs = sum(s0 + i + 1 for i in range(s1 - s0))  # (query, visible key) pairs
            macs += heads * 2 * d * pairs
        total *= layers
        gmacs = macs * layers / total / 1e9
        afm = ttft.get((f"afm@{step}", n))
        share = f"{total / statistics.median(afm):.0%}" if afm else "-"
        print(f"| {name} | {n} | {total:.2f} | {gmacs:.0f} | {share} |", flush=True)


def _fmt(xs: list[float], f: str = "{:.0f}") -> str:
    return " / ".join(f.format(x) for x in xs)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", type=Path,
                    default=Path("/work/models/SmolLM2-135M-Instruct.Q4_1.gguf"))
    ap.add_argument("--lengths", type=int, nargs="+", default=[256, 1024, 4096])
    ap.add_argument("--step", type=int, nargs="+", default=[256])
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--variants", nargs="+", default=["afm", "afm-old"])
    ap.add_argument("--old-max", type=int, default=1024,
                    help="afm-old only up to this prompt length (its 4k prefill takes minutes)")
    ap.add_argument("--llama", action="store_true", help="also llama-server on the same file")
    ap.add_argument("--llama-bench", default=None, metavar="FA",
                    help="also llama-bench on the same file, flash attention FA (on/off)")
    ap.add_argument("--rows", action="store_true", help="only the row-count table")
    ap.add_argument("--rows-shape", type=int, nargs=2, default=[576, 1536], metavar=("K", "N"),
                    help="--rows: the product's depth and width (default: SmolLM2's MLP)")
    ap.add_argument("--attention", action="store_true",
                    help="also the attention op alone per length (time, GMAC/s, TTFT share)")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    if args.rows:
        rows_table(*args.rows_shape)
        return 0
    load = os.getloadavg()
    model, config = load_llama_gguf(args.model)
    choice = cpu_weights.prepare(model, "auto")  # what the engine does at load
    print(f"# {args.model.name}: {choice.reason}; load average {load[0]:.1f}", flush=True)
    vocab = config["vocab_size"]
    llama: Llama | LlamaBench | None = None
    threads = len(os.sched_getaffinity(0))
    if args.llama:
        llama = Llama(args.model, max(args.lengths) + 64, threads,
                      Path("/tmp/bench_prefill_llama.log"))
    elif args.llama_bench:
        llama = LlamaBench(args.model, threads, args.llama_bench)
    peer = "llama-server" if args.llama else f"llama-bench-fa-{args.llama_bench}"
    targets = [f"{v}@{s}" for v in args.variants for s in args.step] + ([peer] if llama else [])
    ttft: dict[tuple[str, int], list[float]] = {}
    decode: dict[str, list[float]] = {}
    try:
        for r in range(args.rounds):
            for n in args.lengths:
                ids = mx.random.randint(0, vocab, (n,), key=mx.random.key(1000 * r + n)).tolist()
                for t in targets:  # each target its own prompt: nothing cached anywhere
                    ids = [(i + 7919) % vocab for i in ids]
                    if t.startswith("afm-old") and n > args.old_max:
                        continue
                    if t == peer:
                        dt = llama.ttft(ids)  # type: ignore[union-attr]
                    else:
                        name, step = t.split("@")
                        variant(name)
                        dt = afm_ttft(model, ids, int(step))
                    ttft.setdefault((t, n), []).append(dt)
                    print(f"round {r} {t:>14} {n:6d} tok: {dt:7.2f} s {n / dt:6.0f} tok/s",
                          flush=True)
            short = mx.random.randint(0, vocab, (32,), key=mx.random.key(r)).tolist()
            for t in targets:
                if t == peer:
                    tps = llama.decode(short)  # type: ignore[union-attr]
                else:
                    variant(t.split("@")[0])
                    tps = afm_decode(model, short)
                decode.setdefault(t, []).append(tps)
                print(f"round {r} {t:>14} decode c=1: {tps:.1f} tok/s", flush=True)
        rss = {"afm (process)": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}
        if llama:
            rss[peer] = llama.peak_rss_mib()
    finally:
        if llama:
            llama.close()
    print(f"\nload average at end {os.getloadavg()[0]:.1f}\n")
    print("| target | prompt tokens | TTFT s (rounds) | prefill tok/s (rounds) |")
    print("|---|---|---|---|")
    for (t, n), xs in ttft.items():
        print(f"| {t} | {n} | {_fmt(xs, '{:.2f}')} | {_fmt([n / x for x in xs])} |")
    print("\n| target | decode c=1 tok/s (rounds) |\n|---|---|")
    for t, xs in decode.items():
        print(f"| {t} | {_fmt(xs, '{:.1f}')} |")
    print("\nPaired per-round ratios (latency of the peer over afm's: above 1 afm is faster)\n")
    print("| afm | peer | prompt | ratio per round | median |\n|---|---|---|---|---|")
    base = targets[0]
    for peer in targets[1:]:
        for n in args.lengths:
            if (peer, n) not in ttft:
                continue
            rs = [p / a for a, p in zip(ttft[(base, n)], ttft[(peer, n)], strict=True)]
            print(f"| {base} | {peer} | {n} | {_fmt(rs, '{:.2f}')} | "
                  f"{statistics.median(rs):.2f}x |")
        rs = [a / p for a, p in zip(decode[base], decode[peer], strict=True)]
        print(f"| {base} | {peer} | decode c=1 | {_fmt(rs, '{:.2f}')} | "
              f"{statistics.median(rs):.2f}x |")
    print("\nPeak RSS MiB: " + ", ".join(f"{k} {v:.0f}" for k, v in rss.items()))
    if args.attention:
        attention_table(config, args.lengths, args.step[0], ttft)
    if args.json:
        args.json.write_text(json.dumps({"ttft": {f"{t}@{n}": v for (t, n), v in ttft.items()},
                                         "decode": decode, "rss_mib": rss}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
