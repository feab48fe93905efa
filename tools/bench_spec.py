"""Speculative decoding benchmark: plain vs prompt lookup vs draft model decode at c=1.

One code-editing request (the prompt holds a source file and asks for it back with one change),
greedy, to ``afm serve`` started once per configuration on the same files:

- ``afm plain``; ``afm ngram`` (``--spec-ngram``); ``afm draft`` (``--draft-model DRAFT``);
- with ``--llama``: ``llama-server`` on the same GGUF files, plain, ``--spec-type ngram-simple``
  and ``--spec-type draft-simple -md DRAFT`` (the peer rows).

It prints a table, one row as each configuration finishes: decode tok/s (the server's own
``timings.predicted_per_second``), the speed-up over the same server's plain row, and the
acceptance rate (afm: ``afm_profile.speculative``; llama-server: ``timings.draft_n_accepted /
draft_n``). Each row is the best of ``--rounds`` requests after one warm-up. Examples::

    python tools/bench_spec.py --model /work/models/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf
    python tools/bench_spec.py --model ~/.cache/afm/real/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf \\
        --draft /work/models/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf --llama
"""

from __future__ import annotations

import argparse
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
LLAMA = Path.home() / ".cache/afm/llama.cpp/build/bin/llama-server"
EDIT_FILE = ROOT / "engine" / "stops.py"
INSTRUCTION = ("Rename the method `feed` to `push` everywhere in this file. Reply with the whole "
               "updated file in one code block and nothing else.")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_ready(url: str, proc: subprocess.Popen[bytes], timeout: float = 600) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}")
        try:
            if httpx.get(url + "/health", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    raise RuntimeError("server did not become ready")


def start(cmd: list[str], url: str, log: Path) -> subprocess.Popen[bytes]:
    with log.open("ab") as out:
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)
    wait_ready(url, proc)
    return proc


def request(url: str, tokens: int) -> dict[str, Any]:
    body = {"model": "m", "temperature": 0, "max_tokens": tokens, "messages": [
        {"role": "user", "content": f"{INSTRUCTION}\n\n```python\n{EDIT_FILE.read_text()}```"}]}
    r = httpx.post(url + "/v1/chat/completions", json=body, timeout=900,
                   headers={"X-AFM-Profile": "true"})
    r.raise_for_status()
    return r.json()


def measure(name: str, cmd: list[str], port: int, tokens: int, rounds: int, log: Path
            ) -> dict[str, Any]:
    url = f"http://127.0.0.1:{port}"
    proc = start(cmd, url, log)
    try:
        request(url, 16)  # warm-up
        best: dict[str, Any] = {}
        for _ in range(rounds):
            r = request(url, tokens)
            t = r.get("timings") or {}
            tps = float(t.get("predicted_per_second") or 0.0)
            spec = (r.get("afm_profile") or {}).get("speculative")
            if spec is not None:
                rate = spec.get("acceptance_rate")
            elif t.get("draft_n"):
                rate = t["draft_n_accepted"] / t["draft_n"]
            else:
                rate = None
            if tps > best.get("tps", -1.0):
                best = {"name": name, "tps": tps, "rate": rate,
                        "tokens": r["usage"]["completion_tokens"],
                        "text": r["choices"][0]["message"]["content"]}
        return best
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", required=True, help="target GGUF file (or any --model source)")
    ap.add_argument("--draft", help="draft GGUF file; omitted: no draft-model rows")
    ap.add_argument("--num-draft-tokens", type=int, default=4)
    ap.add_argument("--tokens", type=int, default=160)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--llama", action="store_true", help="add llama-server peer rows")
    ap.add_argument("--only", default="", help="comma-separated row names to run")
    args = ap.parse_args()
    k = str(args.num_draft_tokens)
    data = Path(tempfile.mkdtemp(prefix="afm-bench-spec-"))
    log = data / "servers.log"

    def afm(*flags: str) -> tuple[list[str], int]:
        port = free_port()
        return ([sys.executable, "-m", "afm", "serve", "--model", args.model, "--port",
                 str(port), "--concurrent", "1", "--no-webui", "--data-dir", str(data / str(port)),
                 "--num-draft-tokens", k, *flags], port)

    def llama(*flags: str) -> tuple[list[str], int]:
        port = free_port()
        return ([str(LLAMA), "-m", args.model, "--port", str(port), "-c", "4096", "-np", "1",
                 "-t", "2", *flags], port)

    rows: list[tuple[str, tuple[list[str], int]]] = [("afm plain", afm()),
                                                     ("afm ngram", afm("--spec-ngram"))]
    if args.draft:
        rows.append(("afm draft", afm("--draft-model", args.draft)))
    if args.llama:
        rows += [("llama plain", llama()),
                 ("llama ngram", llama("--spec-type", "ngram-simple",
                                       "--spec-draft-n-max", k))]
        if args.draft:
            rows.append(("llama draft", llama("--spec-type", "draft-simple", "-md", args.draft,
                                              "--spec-draft-n-max", k, "-td", "2")))
    only = {s.strip() for s in args.only.split(",") if s.strip()}
    print(f"model {args.model}; draft {args.draft}; {args.tokens} tokens, greedy, c=1, "
          f"{args.num_draft_tokens} draft tokens; prompt: {EDIT_FILE.name} + one rename\n")
    print(f"{'row':<14}{'tok/s':>8}{'speed-up':>10}{'accept':>8}{'tokens':>8}  same text",
          flush=True)
    base: dict[str, dict[str, Any]] = {}
    for name, (cmd, port) in rows:
        if only and name not in only:
            continue
        r = measure(name, cmd, port, args.tokens, args.rounds, log)
        server = r["name"].split()[0]
        base.setdefault(server, r)
        ref = base[server]
        rate = f"{r['rate']:.2f}" if r["rate"] is not None else "-"
        speed = r["tps"] / ref["tps"] if ref["tps"] else 0.0
        print(f"{r['name']:<14}{r['tps']:>8.1f}{speed:>9.2f}x{rate:>8}{r['tokens']:>8}  "
              f"{r['text'] == ref['text']}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
