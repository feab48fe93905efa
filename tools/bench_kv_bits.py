"""What ``--kv-bits`` costs and saves: KV bytes per token, peak memory at a long prompt, and the
accuracy effect against the unquantized cache, on real models. Prints a table.

    PYTHONPATH=$PWD .venv/bin/python tools/bench_kv_bits.py [--models smollm2,qwen-0.5b]
        [--tokens 300] [--long 4096]

Accuracy: one text is run teacher-forced through the model in 64-token chunks (the way prefill
and decode read the cache) with the plain and the quantized cache; per position it compares the
argmax (top-1 agreement) and the log-probability of the actual next token (mean and max absolute
difference). Greedy: ``--tokens`` tokens generated from a prompt with each cache; the share of
positions equal to the unquantized run and the first position that differs. Memory: a
``--long``-token prompt prefilled in 256-token chunks in a fresh process per setting; its peak
RSS and MLX peak memory.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SETTINGS = (None, 8, 4)


def _runner(name: str, bits: int | None):  # noqa: ANN202
    from afm.real_models import cached_path
    from engine.config import EngineConfig
    from engine.gguf_load import cached_folder
    from engine.model_runner import ModelRunner

    path = cached_path(name)
    if path is None:
        raise SystemExit(f"{name} is not cached: run `afm fetch-models {name}`")
    folder = cached_folder(path) if path.suffix == ".gguf" else path
    return ModelRunner(EngineConfig(model=str(folder), kv_bits=bits, prefix_cache=False))


def _text_tokens(runner, n: int) -> list[int]:  # noqa: ANN001
    text = (ROOT / "README.md").read_text()
    return runner.tokenizer.encode(text)[:n]


def _filled_bytes(cache: list) -> int:
    """Bytes of the filled positions (buffers grow in steps of 256)."""
    total = 0
    for c in cache:
        for part in (c.keys, c.values):
            for x in part if isinstance(part, (tuple, list)) else (part,):
                total += x.nbytes * c.offset // x.shape[2]
    return total


def _rss_mib() -> tuple[float, float]:
    """(VmRSS, VmHWM) of this process, MiB."""
    fields = dict(line.split(":", 1) for line in Path("/proc/self/status").read_text()
                  .splitlines() if ":" in line)
    return (int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024)


def _forced(runner, tokens: list[int]):  # noqa: ANN001, ANN202
    import mlx.core as mx

    cache = runner._new_cache()  # noqa: SLF001
    out = []
    for i in range(0, len(tokens), 64):
        logits = runner.model(mx.array([tokens[i : i + 64]]), cache=cache)[0]
        out.append(logits - mx.logsumexp(logits, axis=-1, keepdims=True))
    logp = mx.concatenate(out).astype(mx.float32)
    mx.eval(logp)
    return logp, _filled_bytes(cache)


def _greedy(runner, prompt: list[int], n: int) -> list[int]:  # noqa: ANN001
    import mlx.core as mx

    cache = runner._new_cache()  # noqa: SLF001
    logits = runner.model(mx.array([prompt]), cache=cache)[:, -1]
    out = []
    for _ in range(n):
        tok = int(mx.argmax(logits, axis=-1).item())
        out.append(tok)
        logits = runner.model(mx.array([[tok]]), cache=cache)[:, -1]
    return out


def accuracy(name: str, n: int) -> list[dict]:
    import mlx.core as mx

    rows = []
    ref_logp = ref_greedy = None
    for bits in SETTINGS:
        runner = _runner(name, bits)
        tokens = _text_tokens(runner, n + 1)
        logp, kv = _forced(runner, tokens)
        prompt = runner.tokenizer.encode("def fibonacci(n):\n    \"\"\"Return the n-th Fibonacci "
                                         "number.\"\"\"\n")
        greedy = _greedy(runner, prompt, n)
        row = {"model": name, "kv_bits": bits or "off",
               "kv_bytes_per_token": round(kv / len(tokens))}
        if ref_logp is None:
            ref_logp, ref_greedy = logp, greedy
        nxt = mx.array(tokens[1:])
        pos = mx.arange(len(tokens) - 1)
        a, b = ref_logp[:-1][pos, nxt], logp[:-1][pos, nxt]
        diff = mx.abs(a - b)
        row["top1_agree_%"] = round(100 * float(mx.mean(
            mx.argmax(ref_logp, -1) == mx.argmax(logp, -1)).item()), 1)
        row["mean_abs_dlogp"] = round(float(mx.mean(diff).item()), 4)
        row["max_abs_dlogp"] = round(float(mx.max(diff).item()), 3)
        same = [x == y for x, y in zip(ref_greedy, greedy, strict=True)]
        row["greedy_same_%"] = round(100 * sum(same) / len(same), 1)
        row["first_diff"] = same.index(False) if False in same else "-"
        rows.append(row)
        del runner
    return rows


def memory_child(name: str, bits: int | None, long: int) -> None:
    import mlx.core as mx

    runner = _runner(name, bits)
    text = (ROOT / "README.md").read_text()
    ids = runner.tokenizer.encode(text)
    tokens = (ids * (long // len(ids) + 1))[:long]
    mx.reset_peak_memory()
    before = _rss_mib()[0]
    tic = time.perf_counter()
    cache = runner._new_cache()  # noqa: SLF001
    for i in range(0, long, 256):
        runner.model(mx.array([tokens[i : i + 256]]), cache=cache)
        mx.eval([c.state for c in cache])
    after, peak = _rss_mib()
    print(json.dumps({"prefill_s": time.perf_counter() - tic,
                      "kv_mib": _filled_bytes(cache) / 2**20,
                      "mlx_peak_mib": mx.get_peak_memory() / 2**20,
                      "rss_loaded_mib": before, "rss_after_prefill_mib": after,
                      "rss_peak_mib": peak}))


def memory(name: str, long: int) -> list[dict]:
    rows = []
    for bits in SETTINGS:
        cmd = [sys.executable, __file__, "--child", name, "--child-bits", str(bits or 0),
               "--long", str(long)]
        out = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, check=True)
        data = json.loads(out.stdout.strip().splitlines()[-1])
        rows.append({"model": name, "kv_bits": bits or "off", "prompt": long,
                     **{k: round(v) for k, v in data.items()}})
    return rows


def table(rows: list[dict]) -> str:
    keys = list(rows[0])
    width = {k: max(len(k), *(len(str(r[k])) for r in rows)) for k in keys}
    lines = [" | ".join(k.ljust(width[k]) for k in keys),
             "-|-".join("-" * width[k] for k in keys)]
    lines += [" | ".join(str(r[k]).ljust(width[k]) for k in keys) for r in rows]
    return "\n".join(lines)


def main() -> None:
    from engine.blas import preload_fast_blas

    preload_fast_blas()
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--models", default="smollm2,qwen-0.5b")
    p.add_argument("--tokens", type=int, default=300)
    p.add_argument("--long", type=int, default=4096)
    p.add_argument("--child", help=argparse.SUPPRESS)
    p.add_argument("--child-bits", type=int, default=0, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        memory_child(args.child, args.child_bits or None, args.long)
        return
    acc, mem = [], []
    for name in args.models.split(","):
        acc += accuracy(name, args.tokens)
        if args.long:
            mem += memory(name, args.long)
    print(f"accuracy vs the unquantized cache ({args.tokens} tokens teacher-forced; "
          f"{args.tokens} greedy tokens)")
    print(table(acc))
    if mem:
        print(f"\nmemory at a {args.long}-token prompt (a fresh process each)")
        print(table(mem))


if __name__ == "__main__":
    main()
