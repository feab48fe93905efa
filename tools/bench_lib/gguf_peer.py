"""afm and llama-server on the same real GGUF files, side by side (``tools/bench.py --gguf``).

For each file both servers run at once (idle between their turns) and take turns in every
round, the order alternating between rounds:

- decode: ``c`` streaming clients (1, 4, 16), ``--tokens`` tokens each (EOS ignored), short
  unique prompts; aggregate tok/s over the wave's wall time; with ``--staggered C`` also C
  clients in a closed loop over 3 C requests of unequal lengths (the decode batch's rows end and
  join at different steps, as under a real load);
- cold prompts: one request at a time, ``max_tokens`` 1, a prompt of about N tokens of random
  words unique to the request (so no prompt cache helps past the chat template's preamble,
  which both servers reuse and report as ``usage.prompt_tokens_details.cached_tokens``); TTFT,
  and the tokens computed (prompt less reused) / TTFT;
  with ``--long`` a 16k prompt once (first round), where the model's context holds it;
- peak RSS of each server process (``VmHWM``) after load and at the end;
- each server's prefill rate (tokens computed / TTFT) at every longer prompt against its rate at
  the shortest, per round, beside the same ratio if every multiply-add of the model cost the
  same time (:func:`equal_cost_rate_ratio`, from the file's header): causal attention's share
  of the work grows with the prompt, so a rate ratio near that figure means both parts of
  prefill run at one speed.

Each ratio is afm over llama-server within a round (decode: tok/s; prompts: the inverse ratio of
TTFTs, so above 1 afm is faster), then the median over rounds.

llama-server runs ``-t <T> -np 16 -kvu -c <ctx> --jinja`` with ``-fa`` as ``--llama-fa``
says (default ``auto``) and its default batch sizes (``-b 2048 -ub 512``); T is 1 or all
cores, whichever a ``llama-bench`` decode probe finds faster at the start of each file (on a
loaded 2-core machine its two spinning threads collapsed to 2 tok/s where one thread ran 20), or
``--llama-threads``. afm runs
``afm serve --model FILE`` with its defaults (16 slots). Neither is niced.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import string
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .client import StreamResult, WaveStats, run_wave, stream_chat
from .llama import _binary
from .report import md_table
from .servers import ROOT, Server, ServerSpec, afm_spec, free_port

REAL_MODELS = ("smollm2", "qwen-0.5b", "qwen-1.5b")
"""The packaged real files benchmarked when ``--gguf`` names none (those cached by
``afm fetch-models``)."""


def real_files() -> list[Path]:
    """The cached packaged GGUF files of :data:`REAL_MODELS`, in that order."""
    from afm.real_models import cached_path

    return [p for p in (cached_path(name) for name in REAL_MODELS) if p is not None]


def _threads() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def llama_gguf_spec(gguf: Path, port: int, ctx: int, fa: str, threads: int | None = None,
                    slots: int = 16) -> ServerSpec:
    """llama-server on ``gguf``: ``threads`` (default: all cores), ``slots`` slots sharing one
    ``ctx``-token KV cache."""
    server = _binary("llama-server")
    if server is None:
        raise FileNotFoundError("llama-server is not built (see tools/bench_lib/llama.py)")
    argv = [str(server), "-m", str(gguf), "--host", "127.0.0.1", "--port", str(port),
            "-t", str(threads or _threads()), "-np", str(slots), "-kvu", "-c", str(ctx), "--jinja",
            "-fa", fa]
    return ServerSpec("llama", f"llama-server {' '.join(argv[7:])}", argv)


def probe_threads(gguf: Path) -> tuple[int, str]:
    """llama.cpp's faster thread count right now (1 or all cores), by a short ``llama-bench``
    decode run of each: on a loaded machine its spinning threads collapse at 2 threads (2 vs
    20 tok/s measured), on a quiet one 2 threads win. Returns it and what was measured."""
    import subprocess

    bench = _binary("llama-bench")
    cores = _threads()
    if bench is None or cores == 1:
        return cores, "llama-bench not built: all cores"
    rates: dict[int, float] = {}
    for t in sorted({1, cores}):
        try:
            out = subprocess.run([str(bench), "-m", str(gguf), "-t", str(t), "-p", "0", "-n", "16",
                                  "-r", "1", "-o", "json"], capture_output=True, text=True,
                                 timeout=180, check=True).stdout
            rates[t] = float(json.loads(out)[0]["avg_ts"])
        except (subprocess.SubprocessError, ValueError, KeyError, IndexError, OSError):
            rates[t] = 0.0
    best = max(rates, key=lambda t: rates[t])
    return best, ", ".join(f"-t {t}: {r:.1f} tok/s" for t, r in sorted(rates.items()))


def rss_mib(pid: int) -> dict[str, float]:
    """Current (VmRSS) and peak (VmHWM) resident memory of a process, MiB."""
    out: dict[str, float] = {}
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                out[key] = int(value.split()[0]) / 1024
    except OSError:
        pass
    return out


def _tokenizer_dir(gguf: Path) -> Path | None:
    """The folder afm converted ``gguf`` into (its tokenizer.json counts prompt tokens)."""
    hits = sorted((Path.home() / ".cache/afm/gguf").glob(f"{gguf.stem}-*/tokenizer.json"))
    return hits[-1].parent if hits else None


def _context(folder: Path | None) -> int | None:
    try:
        return int(json.loads((folder / "config.json").read_text())["max_position_embeddings"])  # type: ignore[operator]
    except (OSError, ValueError, KeyError, TypeError):
        return None


class Words:
    """Random-word texts of about N tokens of the model, unique per call."""

    def __init__(self, folder: Path | None, seed: int) -> None:
        self.tok = None
        if folder is not None:
            from tokenizers import Tokenizer

            self.tok = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.rng = random.Random(seed)

    def text(self, n_tokens: int) -> str:
        words: list[str] = []
        while True:
            words += ["".join(self.rng.choices(string.ascii_lowercase, k=self.rng.randint(2, 9)))
                      for _ in range(max(50, n_tokens // 2))]
            if self.tok is None:
                if len(words) >= n_tokens // 2:
                    return " ".join(words[: n_tokens // 2])
                continue
            ids = self.tok.encode(" ".join(words), add_special_tokens=False).ids
            if len(ids) >= n_tokens:
                return self.tok.decode(ids[:n_tokens])


@dataclass
class Cell:
    """One measurement of one server in one round."""

    value: float  # decode: tok/s; prompt: TTFT seconds
    extra: str = ""
    error: str = ""
    tokens: int = 0  # prompt: the tokens it prefilled (its prompt tokens less those reused)
    prompt: int = 0  # prompt: its tokens as the server counted them


@dataclass
class FileResults:
    gguf: Path
    rows: list[str] = field(default_factory=list)
    cells: dict[tuple[str, str], list[Cell]] = field(default_factory=dict)  # (row, server)
    rss: dict[str, dict[str, float]] = field(default_factory=dict)
    rss_loaded: dict[str, dict[str, float]] = field(default_factory=dict)
    labels: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    work: PrefillWork | None = None

    def add(self, row: str, server: str, cell: Cell) -> None:
        if row not in self.rows:
            self.rows.append(row)
        self.cells.setdefault((row, server), []).append(cell)


def _body(server: Server, user: str, tokens: int) -> dict[str, Any]:
    return {"model": server.model_id or "model", "messages": [{"role": "user", "content": user}],
            "max_tokens": tokens, "temperature": 0.0, "ignore_eos": True}


async def _one(server: Server, body: dict[str, Any]) -> StreamResult:
    import httpx

    async with httpx.AsyncClient(timeout=httpx.Timeout(1800.0)) as client:
        return await stream_chat(client, f"{server.base}/v1/chat/completions", body)


def _wave_cell(server: Server, words: Words, lengths: list[int], c: int) -> Cell:
    """One story request per entry of ``lengths`` (its ``max_tokens``), ``c`` at a time:
    aggregate tok/s over the wave's wall time, with the median inter-token latency."""
    bodies = [_body(server, "Write a long story about " + words.text(24), n) for n in lengths]
    wave: WaveStats = asyncio.run(run_wave(f"{server.base}/v1/chat/completions", bodies, c))
    if wave.failed:
        return Cell(0.0, error="; ".join(wave.errors))
    itl = f"ITL p50 {1000 * wave.itl_p50:.0f} ms" if wave.itl_p50 else ""
    return Cell(wave.tok_s, extra=itl)


def decode_cell(server: Server, words: Words, c: int, tokens: int) -> Cell:
    """``c`` streams of ``tokens`` tokens started together."""
    return _wave_cell(server, words, [tokens] * c, c)


def staggered_cell(server: Server, words: Words, c: int, tokens: int) -> Cell:
    """``c`` clients in a closed loop over ``3 c`` requests of 0.5-1.5x ``tokens`` tokens (the
    same lengths, in the same order, for every server): streams end and start at different
    steps, so the decode batch runs at 10-16 rows rather than all ``c`` together."""
    lengths = [max(1, round(tokens * (0.5 + (i * 7 % 11) / 10))) for i in range(3 * c)]
    return _wave_cell(server, words, lengths, c)


def deep_decode_cell(server: Server, words: Words, n: int, tokens: int) -> Cell:
    """One stream's decode after a cold prompt of about ``n`` tokens (an agent's long first
    turn): generated tokens after the first over the time after the first (TTFT left out)."""
    body = _body(server, words.text(n) + "\nWrite a long story about these words.", tokens)
    res = asyncio.run(_one(server, body))
    if not res.ok or res.ttft is None or res.tokens < 2 or res.total <= res.ttft:
        return Cell(0.0, error=res.error or "no tokens after the first")
    return Cell((res.tokens - 1) / (res.total - res.ttft),
                extra=f"{res.prompt_tokens} tok prompt, TTFT {res.ttft:.1f} s")


def prompt_cell(server: Server, words: Words, n: int) -> Cell:
    res = asyncio.run(_one(server, _body(server, words.text(n) + "\nSay one word.", 1)))
    if not res.ok or res.ttft is None:
        return Cell(0.0, error=res.error)
    prompt, cached = res.prompt_tokens or 0, res.cached_tokens or 0
    filled = max(prompt - cached, 0)
    reused = f" ({cached} reused)" if cached else ""
    tps = f", {filled / res.ttft:.0f} tok/s" if filled else ""
    return Cell(res.ttft, extra=f"{prompt} tok{reused}{tps}", tokens=filled, prompt=prompt)


@dataclass(frozen=True)
class PrefillWork:
    """Multiply-adds of a transformer's prefill: ``linear`` a token (its projections and MLP;
    the LM head runs for the last token only) and ``attention`` a token per earlier position
    it attends to (Q K^T and P V over all heads)."""

    linear: int
    attention: int

    def total(self, n: int) -> int:
        """Multiply-adds of a causal prefill of ``n`` tokens."""
        return n * self.linear + self.attention * n * (n + 1) // 2


def prefill_work(meta: dict[str, Any]) -> PrefillWork | None:
    """:class:`PrefillWork` from a GGUF header's metadata (None without the needed keys)."""
    arch = str(meta.get("general.architecture", ""))
    try:
        def get(key: str, default: Any = None) -> int:
            value = meta.get(f"{arch}.{key}", default)
            if value is None:
                raise KeyError(key)
            return int(value)

        hidden, layers, ff = get("embedding_length"), get("block_count"), get("feed_forward_length")
        heads = get("attention.head_count")
        kv = get("attention.head_count_kv", heads)
        hd = get("attention.key_length", hidden // heads)
        hdv = get("attention.value_length", hd)
    except (KeyError, TypeError, ValueError):
        return None
    linear = layers * (hidden * heads * hd + hidden * kv * (hd + hdv) + heads * hdv * hidden
                       + 3 * hidden * ff)
    return PrefillWork(linear=linear, attention=layers * heads * (hd + hdv))


def equal_cost_rate_ratio(work: PrefillWork, short: tuple[int, int],
                          long: tuple[int, int]) -> float:
    """The prefill rate (tokens computed / time) of the ``long`` prompt over that of the ``short``
    one if every multiply-add took the same time, each given as (prompt tokens, tokens reused
    from a cache): what a server keeps of its short-prompt rate when its attention and its
    matmuls run at one speed (more if attention runs faster, or if fixed per-request costs weigh
    on the short prompt)."""
    def rate(n: int, reused: int) -> float:
        return (n - reused) / (work.total(n) - work.total(reused))

    return rate(*long) / rate(*short)


def run_file(gguf: Path, args: argparse.Namespace, log_dir: Path) -> FileResults:
    """Both servers on ``gguf``, ``args.rounds`` interleaved rounds."""
    res = FileResults(gguf)
    res.work = _file_work(gguf)
    folder = _tokenizer_dir(gguf)
    context = _context(folder)
    words = Words(folder, seed=int(time.time()))
    lengths = list(args.prompts)
    long_len = 16384 if args.long else None
    ctx = max([*lengths, long_len or 0, args.deep_decode or 0]) + 1024
    ctx = max(ctx, 16 * (args.tokens + 64))
    afm_port, llama_port = free_port(), free_port()
    spec_a = afm_spec(gguf, afm_port, 16, ["--data-dir", tempfile.mkdtemp(prefix="afm-gguf-")])
    spec_a.env = dict(kv.split("=", 1) for kv in args.afm_env)
    spec_a.label = "afm serve (defaults: 16 slots" + "".join(f", {kv}" for kv in args.afm_env) + ")"
    threads = args.llama_threads
    if not threads:
        threads, probe = probe_threads(gguf)
        res.notes.append(f"llama-server threads chosen by a llama-bench decode probe before the "
                         f"run ({probe}): -t {threads}")
        print(f"[gguf] {gguf.stem}: llama threads probe {probe}", file=sys.stderr, flush=True)
    spec_l = llama_gguf_spec(gguf, llama_port, ctx, args.llama_fa, threads)
    servers = {"afm": Server(spec_a, afm_port, log_dir), "llama": Server(spec_l, llama_port,
                                                                         log_dir)}
    servers["afm"].log_path = log_dir / f"afm-{gguf.stem}.log"
    servers["llama"].log_path = log_dir / f"llama-{gguf.stem}.log"
    try:
        for key, server in servers.items():
            server.start(timeout=args.server_timeout)
            assert server.proc is not None
            res.labels[key] = server.spec.label
            prompt_cell(server, words, 16)  # warm-up
            decode_cell(server, words, 1, 8)
            res.rss_loaded[key] = rss_mib(server.proc.pid)
        for rnd in range(args.rounds):
            order = ["afm", "llama"] if rnd % 2 == 0 else ["llama", "afm"]
            for c in args.concurrency:
                for key in order:
                    res.add(f"decode c={c}", key, decode_cell(servers[key], words, c, args.tokens))
                    _say(gguf, rnd, f"decode c={c}", key, res)
            if args.staggered:
                row = f"decode c={args.staggered} staggered"
                for key in order:
                    res.add(row, key, staggered_cell(servers[key], words, args.staggered,
                                                     args.tokens))
                    _say(gguf, rnd, row, key, res)
            if args.deep_decode:
                row = f"decode c=1 after ~{args.deep_decode}"
                for key in order:
                    res.add(row, key, deep_decode_cell(servers[key], words, args.deep_decode,
                                                       args.tokens))
                    _say(gguf, rnd, row, key, res)
            todo = lengths + ([long_len] if long_len and rnd == 0 else [])
            for n in todo:
                row = f"prompt ~{n}"
                if context is not None and n + 8 >= context:
                    if rnd == 0:
                        res.notes.append(f"{row}: beyond the model's {context}-token context "
                                         "(afm refuses such a prompt with 400 "
                                         "context_length_exceeded): not run")
                    continue
                for key in order:
                    res.add(row, key, prompt_cell(servers[key], words, n))
                    _say(gguf, rnd, row, key, res)
        for key, server in servers.items():
            assert server.proc is not None
            res.rss[key] = rss_mib(server.proc.pid)
    finally:
        for server in servers.values():
            server.stop()
    return res


def _file_work(gguf: Path) -> PrefillWork | None:
    from engine import gguf_load

    try:
        return prefill_work(gguf_load.inspect(gguf).metadata)
    except gguf_load.GGUFError:
        return None


def _say(gguf: Path, rnd: int, row: str, key: str, res: FileResults) -> None:
    cell = res.cells[(row, key)][-1]
    unit = "tok/s" if row.startswith("decode") else "s TTFT"
    print(f"[gguf] {gguf.stem} round {rnd + 1} {row} {key}: {cell.value:.3f} {unit} "
          f"{cell.extra} {cell.error}".rstrip(), file=sys.stderr, flush=True)


def _ratios(res: FileResults, row: str) -> list[float]:
    a, b = res.cells.get((row, "afm"), []), res.cells.get((row, "llama"), [])
    out = []
    for x, y in zip(a, b, strict=False):
        if x.error or y.error or not x.value or not y.value:
            continue
        out.append(x.value / y.value if row.startswith("decode") else y.value / x.value)
    return out


def _prompt_rows(res: FileResults) -> list[str]:
    """The prompt rows ("prompt ~N"), shortest first."""
    return sorted((r for r in res.rows if r.startswith("prompt ~")),
                  key=lambda r: int(r.removeprefix("prompt ~")))


def rate_ratios(res: FileResults, server: str) -> dict[str, list[float]]:
    """Per prompt row past the shortest: ``server``'s prefill rate there over its rate at the
    shortest prompt, round by round (rounds where either failed are left out)."""
    rows = _prompt_rows(res)
    if not rows:
        return {}
    base = res.cells.get((rows[0], server), [])
    out: dict[str, list[float]] = {}
    for row in rows[1:]:
        ratios = []
        for b, c in zip(base, res.cells.get((row, server), []), strict=False):
            if b.error or c.error or not (b.value and c.value and b.tokens and c.tokens):
                continue
            ratios.append((c.tokens / c.value) / (b.tokens / b.value))
        out[row] = ratios
    return out


def render_rates(res: FileResults, work: PrefillWork | None) -> list[str]:
    """The table of prefill rates against the shortest prompt's (empty with one prompt row)."""
    rows = _prompt_rows(res)
    per = {key: rate_ratios(res, key) for key in ("afm", "llama")}
    if len(rows) < 2:
        return []
    def sizes(row: str) -> tuple[int, int] | None:
        """afm's median (prompt tokens, tokens reused) in ``row``."""
        cells = [c for c in res.cells.get((row, "afm"), []) if c.tokens]
        if not cells:
            return None
        return (int(statistics.median(c.prompt for c in cells)),
                int(statistics.median(c.prompt - c.tokens for c in cells)))

    base = sizes(rows[0])
    table = []
    for row in rows[1:]:
        bound, size = "-", sizes(row)
        if work is not None and base and size:
            bound = f"{equal_cost_rate_ratio(work, base, size):.2f}"

        cells = []
        for key in ("afm", "llama"):
            r = per[key].get(row, [])
            cells.append(" / ".join(f"{x:.2f}" for x in r) +
                         (f" ({statistics.median(r):.2f})" if r else "-"))
        table.append([f"{row} / {rows[0]}", *cells, bound])
    return [md_table(["prefill rate", "afm per round (median)", "llama-server per round (median)",
                      "if every multiply-add cost the same"], table), ""]


def render(results: list[FileResults], args: argparse.Namespace) -> str:
    lines = [f"Generated by `python tools/bench.py --gguf {' '.join(str(r.gguf) for r in results)}"
             f" --rounds {args.rounds} --tokens {args.tokens}"
             f"{' --long' if args.long else ''}` on "
             f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"
             f" (load average at the end {', '.join(f'{x:.2f}' for x in os.getloadavg())}).", ""]
    for r in results:
        lines += [f"### {r.gguf.name}", "", f"- afm: {r.labels.get('afm', '?')}",
                  f"- llama-server: `{r.labels.get('llama', '?')}`", ""]
        rows = []
        for row in r.rows:
            a, b = r.cells.get((row, "afm"), []), r.cells.get((row, "llama"), [])
            decode = row.startswith("decode")

            def show(cells: list[Cell], decode: bool = decode) -> str:
                return " / ".join(
                    (f"ERR {c.error[:60]}" if c.error else
                     f"{c.value:.1f}" if decode else f"{1000 * c.value:.0f} ms ({c.extra})")
                    for c in cells)

            ratios = _ratios(r, row)
            med = f"{statistics.median(ratios):.2f}x" if ratios else "-"
            rows.append([row, "tok/s" if decode else "TTFT", show(a), show(b),
                         " / ".join(f"{x:.2f}" for x in ratios), med])
        lines += [md_table(["row", "unit", "afm (rounds)", "llama-server (rounds)",
                            "afm / llama per round", "median"], rows), ""]
        mem = [[key, f"{r.rss_loaded.get(key, {}).get('VmRSS', 0):.0f}",
                f"{r.rss.get(key, {}).get('VmHWM', 0):.0f}"] for key in ("afm", "llama")]
        lines += [md_table(["server", "RSS after load MiB", "peak RSS MiB (VmHWM)"], mem), ""]
        lines += render_rates(r, r.work)
        lines += [f"- {n}" for n in r.notes] + ([""] if r.notes else [])
    return "\n".join(lines)


def main(args: argparse.Namespace) -> int:
    """Run the rows for ``args.gguf`` (or both real files), print and optionally write them."""
    files = [Path(p) for p in args.gguf] or real_files()
    log_dir = Path(tempfile.mkdtemp(prefix="afm-gguf-bench-"))
    results = [run_file(f, args, log_dir) for f in files]
    report = render(results, args)
    print(report)
    if args.out is not None:
        args.out.write_text(report + "\n")
        print(f"written to {args.out}; server logs in {log_dir}", file=sys.stderr)
    return 0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``--gguf`` mode's options (shared names with bench.py keep their meaning)."""
    parser.add_argument("--gguf", nargs="*", default=None, metavar="FILE",
                        help="afm against llama-server on these GGUF files (none named: the cached "
                        "packaged ones: SmolLM2, Qwen2.5-Coder 0.5B and 1.5B); the other rows "
                        "are not run")
    parser.add_argument("--prompts", type=int, nargs="+", default=[256, 1024, 4096],
                        help="--gguf: cold prompt lengths in tokens")
    parser.add_argument("--long", action="store_true",
                        help="--gguf: also a 16k-token prompt, once (minutes per server)")
    parser.add_argument("--deep-decode", type=int, default=None, metavar="N",
                        help="--gguf: also one stream's decode rate after a cold prompt of about "
                        "N tokens (TTFT left out), each round")
    parser.add_argument("--staggered", type=int, default=None, metavar="C",
                        help="--gguf: also C clients in a closed loop over 3 C requests of "
                        "0.5-1.5x --tokens tokens (streams end and join at different steps)")
    parser.add_argument("--llama-threads", type=int, default=None,
                        help="--gguf: llama-server's -t (default: 1 or all cores, whichever a "
                        "short llama-bench decode probe finds faster at the start)")
    parser.add_argument("--afm-env", nargs="*", default=[], metavar="KEY=VALUE",
                        help="--gguf: environment for afm serve, e.g. AFM_GGUF_DEQUANT=4bit")
    parser.add_argument("--llama-fa", default="auto", choices=["auto", "on", "off"],
                        help="--gguf: llama-server's -fa")


__all__ = ["ROOT", "add_arguments", "main"]
