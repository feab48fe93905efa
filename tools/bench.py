"""End-to-end benchmark: raw engine, ``afm serve`` and ``mlx_lm.server`` on the bench model.

Builds the ``bench`` preset (Qwen3 shape: hidden 512, 8 layers, intermediate 1536, 8 heads, 4 KV
heads, 32k vocabulary, float32) with the project's model builder, then in one run measures:

- ``raw``: the engine without HTTP (batched decode steps with a KV cache, batch 1 and 8);
- ``afm``: this server; ``afm-bf16``, ``afm-8bit``, ``afm-4bit``: this server on copies of the
  bench model made by ``mlx_lm convert`` (default ``--cpu-weights auto``), ``afm-4bit-native``
  the 4-bit copy with ``--cpu-weights native`` and the native kernel off (``AFM_QMM_DISABLE=1``:
  MLX's own quantized kernel; first round only);
  ``mlxlm-blas``: mlx_lm.server at its best BLAS configuration (each one available, MKL
  sequential / threaded and Debian's OpenBLAS, is tried in the first round; the fastest at
  concurrency 8 runs in the others); ``mlxlm-installed``: mlx_lm.server as installed (reference
  BLAS on Linux); streaming clients at concurrency 1, 4, 8, 16, 128 tokens each;
- ``constrained``: afm with a ``json_schema`` response format vs. unconstrained, concurrency 8;
- ``prefix``: two requests sharing a ~1000-token prefix (cached tokens, TTFT ratio);
- ``slots``: afm with ``--concurrent`` 8, 16 and 32 at 1-32 clients (first round only), the
  measurement behind the default number of slots.

It prints a table (aggregate tok/s, TTFT p50/p99, inter-token latency p50), checks the targets,
and writes everything with a machine description to ``--out`` (default ``BENCHMARKS.md``; a
``--quick`` smoke run writes only when ``--out`` is given). Examples::

    python tools/bench.py                       # full run, writes BENCHMARKS.md
    python tools/bench.py --quick --only raw,mlxlm --out /tmp/bench.md
    python tools/bench.py --only afm,formats,mlxlm-blas --rounds 2 --tokens 64

``--gguf [FILE ...]`` runs another benchmark instead: afm against llama-server on the same real
GGUF files (default: the two real model files), decode at 1/4/16 clients and cold prompts of
~256/1k/4k tokens (``--long``: 16k once), peak RSS, paired per-round ratios
(``tools/bench_lib/gguf_peer.py``; ~3 minutes a file at the default 2 rounds)::

    python tools/bench.py --gguf                          # both real files, prints the tables
    python tools/bench.py --gguf /work/models/SmolLM2-135M-Instruct.Q4_1.gguf --long --out x.md
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import shlex
import statistics
import string
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tools.bench_lib import gguf_peer  # noqa: E402
from tools.bench_lib.client import StreamResult, WaveStats, run_wave, stream_chat  # noqa: E402
from tools.bench_lib.formats import blas_variants, model_copy  # noqa: E402
from tools.bench_lib.llama import QUANTS, llama_setup, llama_spec  # noqa: E402
from tools.bench_lib.report import (  # noqa: E402
    THROUGHPUT_HEADER,
    blas_probe,
    machine,
    md_table,
    raw_row,
    throughput_row,
)
from tools.bench_lib.servers import (  # noqa: E402
    ROOT,
    Server,
    ServerSpec,
    afm_spec,
    free_port,
    mlxlm_spec,
)

FORMAT_ROWS = ("afm-bf16", "afm-8bit", "afm-4bit", "afm-4bit-native")
LLAMA_ROWS = tuple(QUANTS)
ROWS = ("raw", "afm", *FORMAT_ROWS, "mlxlm-blas", "mlxlm-installed", *LLAMA_ROWS, "constrained",
        "prefix", "slots")
ALIASES = {"mlxlm": ("mlxlm-blas", "mlxlm-installed"), "formats": FORMAT_ROWS,
           "llama": LLAMA_ROWS, "all": ROWS}
SERVERS = ("afm", *FORMAT_ROWS, "mlxlm-blas", "mlxlm-installed", *LLAMA_ROWS)
FIRST_ROUND_ONLY = ("mlxlm-installed", "afm-4bit-native")  # slow: one round is enough
JSON_SCHEMA = {
    "type": "object",
    "properties": {
        "title": {"type": "string"},
        "tags": {"type": "array", "items": {"type": "string"}},
        "notes": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["title", "tags", "notes"],
}


@dataclass
class Results:
    """Everything measured in one run."""

    raw: list[dict[str, Any]] = field(default_factory=list)
    waves: dict[str, list[WaveStats]] = field(default_factory=dict)
    prefix: dict[str, dict[str, Any]] = field(default_factory=dict)
    constrained: dict[str, Any] | None = None
    labels: dict[str, str] = field(default_factory=dict)
    slots: dict[int, list[WaveStats]] = field(default_factory=dict)  # --concurrent N -> sweep
    notes: list[str] = field(default_factory=list)
    blas_ratio: float | None = None  # fast BLAS GFLOP/s / reference GFLOP/s
    rounds: dict[str, dict[int, list[WaveStats]]] = field(default_factory=dict)
    """Per server key, each round's sweep (round index -> one WaveStats per concurrency)."""
    raw_rounds: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    """Each round's raw engine rows (round index -> one row per batch size)."""

    def paired(self, a: str, b: str, concurrency: int) -> tuple[float | None, list[float]]:
        """Server ``a`` over server ``b`` at ``concurrency``: the median of the per-round
        ratios (the two ran back to back in each round, so the machine's drift between rounds,
        up to 30% here, cancels) and those ratios; (None, []) when never measured together."""
        ratios = []
        for index, waves in sorted(self.rounds.get(a, {}).items()):
            mine = next((w for w in waves if w.concurrency == concurrency), None)
            peer = next((w for w in self.rounds.get(b, {}).get(index, [])
                         if w.concurrency == concurrency), None)
            if mine and peer and peer.tok_s:
                ratios.append(mine.tok_s / peer.tok_s)
        return (statistics.median(ratios) if ratios else None), ratios

    def paired_raw(self, key: str, batch: int) -> tuple[float | None, list[float]]:
        """Server ``key`` at concurrency ``batch`` over the raw engine at that batch (prefill
        and decode): the median of the per-round ratios, like :meth:`paired`."""
        ratios = []
        for index, rows in sorted(self.raw_rounds.items()):
            raw = next((row["wall_tok_s"] for row in rows if row["batch"] == batch), None)
            mine = next((w for w in self.rounds.get(key, {}).get(index, [])
                         if w.concurrency == batch), None)
            if mine and raw:
                ratios.append(mine.tok_s / raw)
        return (statistics.median(ratios) if ratios else None), ratios

    def wave(self, key: str, concurrency: int) -> WaveStats | None:
        """The sweep result for server ``key`` at ``concurrency``, if measured."""
        return next((w for w in self.waves.get(key, []) if w.concurrency == concurrency), None)

    def raw_tok_s(self, batch: int) -> float | None:
        """Raw engine tok/s at ``batch`` over prefill and decode (like a server's wave), if
        measured."""
        return next((r["wall_tok_s"] for r in self.raw if r["batch"] == batch), None)


def parse_only(text: str | None) -> set[str]:
    """``--only a,b`` -> row names (aliases expanded); everything when empty."""
    if not text:
        return set(ROWS)
    out: set[str] = set()
    for name in (x.strip() for x in text.split(",") if x.strip()):
        if name in ALIASES:
            out.update(ALIASES[name])
        elif name in ROWS:
            out.add(name)
        else:
            raise SystemExit(f"unknown row {name!r}; choose from "
                             f"{', '.join(ROWS + ('mlxlm', 'formats', 'llama'))}")
    return out


def eos_ids(model: Path) -> list[int]:
    """EOS token ids from the model's config files (for servers without ``ignore_eos``)."""
    ids: set[int] = set()
    for name in ("config.json", "generation_config.json"):
        try:
            value = json.loads((model / name).read_text()).get("eos_token_id")
        except (OSError, ValueError):
            continue
        ids.update(value if isinstance(value, list) else [value] if value is not None else [])
    return sorted(ids)


def make_prefix(model: Path, n_tokens: int, seed: int) -> str:
    """Random words (unique per run) trimmed to about ``n_tokens`` tokens of the model."""
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(model / "tokenizer.json"))
    rng = random.Random(seed)
    words: list[str] = []
    while True:
        words += ["".join(rng.choices(string.ascii_lowercase, k=rng.randint(2, 9)))
                  for _ in range(200)]
        ids = tok.encode(" ".join(words), add_special_tokens=False).ids
        if len(ids) >= n_tokens:
            return tok.decode(ids[:n_tokens])


class Bench:
    """Runs the selected rows and collects :class:`Results`."""

    def __init__(self, args: argparse.Namespace, model: Path, only: set[str]) -> None:
        self.args = args
        self.model = model
        self.only = only
        self.eos = eos_ids(model)
        self.results = Results()
        self.log_dir = Path(tempfile.mkdtemp(prefix="afm-bench-"))
        self.round = 0
        self._wave_rounds: dict[str, list[list[WaveStats]]] = {}
        self.mlxlm_variant: str | None = None  # the fastest BLAS configuration, once known

    # ---- request bodies ------------------------------------------------------------------

    def body(self, server: Server, user: str, tokens: int, system: str | None = None,
             **extra: Any) -> dict[str, Any]:
        """A chat request forcing exactly ``tokens`` tokens where the server allows it."""
        messages = ([{"role": "system", "content": system}] if system else []) + [
            {"role": "user", "content": user}]
        body: dict[str, Any] = {"messages": messages, "max_tokens": tokens,
                                "temperature": self.args.temperature, **extra}
        if server.spec.send_model:
            body["model"] = server.model_id or self.model.name
        if server.spec.ignore_eos:
            body["ignore_eos"] = True
        elif self.eos:
            body["logit_bias"] = {str(i): -100 for i in self.eos}
        return body

    def url(self, server: Server) -> str:
        return f"{server.base}/v1/chat/completions"

    # ---- rows ----------------------------------------------------------------------------

    def run_raw(self) -> None:
        """Raw engine rows in a fresh interpreter (the BLAS loads before MLX)."""
        import subprocess

        cmd = [sys.executable, str(ROOT / "tools/bench_lib/raw.py"), "--model", str(self.model),
               "--tokens", str(self.args.tokens), "--batch", *map(str, self.args.raw_batches)]
        print(f"[raw] {shlex.join(cmd)}", file=sys.stderr)
        out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=False)
        if out.returncode != 0:
            self.results.notes.append(f"raw engine failed: {out.stderr.strip()[-500:]}")
            return
        rows = json.loads(out.stdout.strip().splitlines()[-1])["rows"]
        self.results.raw_rounds[self.round] = rows
        for row in rows:
            print(f"[raw] B={row['batch']}: {row['wall_tok_s']:.1f} tok/s with prefill, "
                  f"{row['tok_s']:.1f} decoding", file=sys.stderr)

    def sweep(self, server: Server, levels: list[int] | None = None) -> list[WaveStats]:
        """Streaming clients at each concurrency level, ``waves`` x concurrency requests each."""
        key = server.spec.key
        waves: list[WaveStats] = []
        levels = levels or self.args.concurrency
        if key == "afm-4bit-native":  # scalar kernels: minutes per wave at 16 clients
            levels = [c for c in levels if c in (1, 8)] or levels[:1]
        for c in levels:
            bodies = [self.body(server, f"Request {c}-{i}: tell a long story about the number "
                                        f"{i * 7 + c}.", self.args.tokens)
                      for i in range(c * self.args.waves)]
            stats = asyncio.run(run_wave(self.url(server), bodies, c))
            waves.append(stats)
            print(f"[{key}] round {self.round + 1} c={c}: {stats.tok_s:.1f} tok/s, "
                  f"{stats.tokens} tokens, {stats.failed} failed {stats.errors}", file=sys.stderr)
        return waves

    def prefix(self, server: Server) -> None:
        """Two sequential requests sharing a long, never-seen prefix."""
        text = make_prefix(self.model, self.args.prefix_tokens, seed=time.time_ns())
        system = f"Reference text:\n{text}"

        async def both() -> list[StreamResult]:
            import httpx

            async with httpx.AsyncClient(timeout=httpx.Timeout(600.0)) as client:
                out = []
                for q in ("Summarize the reference text in one sentence.",
                          "Which word of the reference text is the longest?"):
                    out.append(await stream_chat(client, self.url(server),
                                                 self.body(server, q, 16, system=system)))
                return out

        first, second = asyncio.run(both())
        row = {"prefix_tokens": self.args.prefix_tokens, "ok": first.ok and second.ok,
               "error": first.error or second.error,
               "ttft1": first.ttft, "ttft2": second.ttft,
               "prompt1": first.prompt_tokens, "prompt2": second.prompt_tokens,
               "cached1": first.cached_tokens, "cached2": second.cached_tokens}
        self.results.prefix[server.spec.key] = row
        print(f"[{server.spec.key}] prefix: {row}", file=sys.stderr)

    def constrained(self, server: Server) -> None:
        """json_schema-constrained vs. unconstrained streams at the same concurrency."""
        c = self.args.constrained_concurrency
        rf = {"type": "json_schema",
              "json_schema": {"name": "notes", "schema": JSON_SCHEMA, "strict": True}}
        plain = [self.body(server, f"Describe item {i} as JSON.", self.args.tokens)
                 for i in range(c)]
        schema = [self.body(server, f"Describe item {i} as JSON.", self.args.tokens,
                            response_format=rf) for i in range(c)]
        free = asyncio.run(run_wave(self.url(server), plain, c))
        cons = asyncio.run(run_wave(self.url(server), schema, c))
        valid = 0
        for text in cons.texts:
            try:
                json.loads(text)
                valid += 1
            except ValueError:
                pass
        self.results.constrained = {"free": free, "cons": cons, "valid": valid}
        print(f"[{server.spec.key}] constrained {cons.tok_s:.1f} vs free {free.tok_s:.1f} tok/s, "
              f"{valid}/{len(cons.texts)} complete JSON {cons.errors}", file=sys.stderr)

    def warm_up(self, server: Server) -> None:
        """A small concurrent wave so first-request costs stay out of the figures."""
        c = min(8, max(self.args.concurrency))
        bodies = [self.body(server, f"Warm-up {i}.", 8) for i in range(c)]
        stats = asyncio.run(run_wave(self.url(server), bodies, c))
        if stats.failed:
            print(f"[{server.spec.key}] warm-up failures: {stats.errors}", file=sys.stderr)

    def spec(self, key: str, port: int, variant: str | None = None) -> ServerSpec:
        """How to start server ``key`` (``variant``: the mlx_lm.server BLAS configuration)."""
        slots = max(self.args.concurrency)
        if key == "afm":
            return afm_spec(self.model, port, slots, self.args.afm_arg)
        if key.startswith("afm-"):
            fmt = key.removeprefix("afm-").removesuffix("-native")
            native = key.endswith("-native")
            extra = [*self.args.afm_arg, "--cpu-weights", "native" if native else "auto"]
            label = f"afm serve, {fmt} copy" + (", MLX's quantized kernel" if native else "")
            spec = afm_spec(model_copy(self.model, fmt), port, slots, extra, key, label)
            if native:  # the project's kernel off: what MLX alone does with these weights
                spec.env["AFM_QMM_DISABLE"] = "1"
            return spec
        if key in QUANTS:
            return llama_spec(key, self.model, port, slots, ctx_per_slot=self.args.tokens + 256)
        if key == "mlxlm-blas" and variant is not None:
            label, env = blas_variants()[variant]
            return mlxlm_spec(self.model, port, same_blas=True, blas_label=label, env=env)
        return mlxlm_spec(self.model, port, same_blas=key == "mlxlm-blas")

    def serve(self, spec: ServerSpec, port: int) -> list[WaveStats] | None:
        """Start ``spec``, run its selected rows, stop it; the sweep's waves if one ran."""
        key = spec.key
        server = Server(spec, port, self.log_dir)
        print(f"[{key}] starting: {shlex.join(spec.argv)}", file=sys.stderr)
        try:
            server.start(self.args.server_timeout)
        except Exception as exc:  # noqa: BLE001 - report it, run the other rows
            server.stop()
            self.results.notes.append(f"{spec.label} did not start: {str(exc)[:400]}")
            print(f"[{key}] {exc}", file=sys.stderr)
            return None
        waves = None
        try:
            self.warm_up(server)
            if key in self.only:
                waves = self.sweep(server)
            if (self.round == 0 and "prefix" in self.only
                    and key not in FORMAT_ROWS + LLAMA_ROWS):
                self.prefix(server)
            if self.round == 0 and key == "afm" and "constrained" in self.only:
                self.constrained(server)
        finally:
            server.stop()
        return waves

    def probe_blas(self) -> str | None:
        """mlx_lm.server's fastest BLAS configuration here: each one serves one short wave of 8
        clients (16 tokens each); the figures go to the notes."""
        variants = list(blas_variants())
        if len(variants) < 2:
            return variants[0] if variants else None
        c = min(8, max(self.args.concurrency))
        figures: dict[str, float] = {}
        for variant in variants:
            port = free_port()
            spec = self.spec("mlxlm-blas", port, variant)
            server = Server(spec, port, self.log_dir)
            server.log_path = self.log_dir / f"mlxlm-blas-{variant}.log"
            try:
                server.start(self.args.server_timeout)
                self.warm_up(server)
                bodies = [self.body(server, f"Probe {i}: tell a story.", 16) for i in range(c)]
                stats = asyncio.run(run_wave(self.url(server), bodies, c))
                figures[variant] = stats.tok_s if not stats.failed else 0.0
                print(f"[mlxlm-blas] probe {spec.label}: {stats.tok_s:.1f} tok/s at c={c}",
                      file=sys.stderr)
            except Exception as exc:  # noqa: BLE001 - that configuration does not run here
                self.results.notes.append(f"{spec.label} did not run: {str(exc)[:300]}")
            finally:
                server.stop()
        if not figures:
            return None
        best = max(figures, key=lambda v: figures[v])
        labels = {v: blas_variants()[v][0] for v in figures}
        self.results.notes.append(
            f"mlx_lm.server BLAS configurations probed in round 1 ({c} clients x 16 tokens, "
            "aggregate tok/s): " + "; ".join(f"{labels[v]} {t:.0f}" for v, t in figures.items())
            + f". The fastest, {labels[best]}, is the mlx_lm.server row.")
        return best

    def run_server(self, key: str) -> None:
        """Start server ``key``, run its selected rows, stop it. mlx_lm.server first probes
        each BLAS configuration (once) and runs at the fastest."""
        variant = None
        if key == "mlxlm-blas":
            if self.mlxlm_variant is None:
                self.mlxlm_variant = self.probe_blas() or ""
            variant = self.mlxlm_variant or None
        port = free_port()
        try:
            spec = self.spec(key, port, variant)
        except Exception as exc:  # noqa: BLE001 - a copy that cannot be made: note it
            self.results.notes.append(f"{key}: {str(exc)[:400]}")
            return
        self.results.labels[key] = spec.label
        waves = self.serve(spec, port)
        if waves is not None:
            self._wave_rounds.setdefault(key, []).append(waves)
            self.results.rounds.setdefault(key, {})[self.round] = waves

    def run_slots(self) -> None:
        """afm with each ``--slot-counts`` value, swept over ``--slot-clients`` clients."""
        for slots in self.args.slot_counts:
            port = free_port()
            spec = afm_spec(self.model, port, slots, self.args.afm_arg, f"afm-slots-{slots}",
                            f"afm serve --concurrent {slots}")
            server = Server(spec, port, self.log_dir)
            print(f"[slots] starting: {shlex.join(spec.argv)}", file=sys.stderr)
            try:
                server.start(self.args.server_timeout)
                self.warm_up(server)
                self.results.slots[slots] = self.sweep(server, self.args.slot_clients)
            except Exception as exc:  # noqa: BLE001 - report it, run the other rows
                self.results.notes.append(f"{spec.label} did not run: {str(exc)[:300]}")
            finally:
                server.stop()

    def run(self) -> Results:
        """Every selected row, one server at a time, in ``rounds`` interleaved rounds (this
        machine is shared and noisy: each figure is the median of its rounds, and every row of
        a round is measured under the same conditions). The slow as-installed mlx_lm.server
        runs in the first round only."""
        needs_afm = bool({"afm", "constrained", "prefix"} & self.only)
        missing = llama_setup() if set(LLAMA_ROWS) & self.only else None
        if missing:
            self.results.notes.append(missing)
            print(f"[llama] {missing}", file=sys.stderr)
            self.only -= set(LLAMA_ROWS)
        for index in range(self.args.rounds):
            self.round = index
            if "raw" in self.only:
                self.run_raw()
            for key in SERVERS:
                if self.round > 0 and key in FIRST_ROUND_ONLY:
                    continue
                if key in self.only or (key == "afm" and needs_afm and self.round == 0):
                    self.run_server(key)
            if self.round == 0 and "slots" in self.only:
                self.run_slots()
        self.results.raw = [_median_by(rows, "wall_tok_s")
                            for rows in zip(*self.results.raw_rounds.values(), strict=True)]
        self.results.waves = {key: [_median_wave(list(w)) for w in zip(*rounds, strict=True)]
                              for key, rounds in self._wave_rounds.items()}
        return self.results


def _median_by(rows: tuple[dict[str, Any], ...], key: str) -> dict[str, Any]:
    """The row whose ``key`` is the median of the rounds (the lower middle for even counts)."""
    ordered = sorted(rows, key=lambda r: r[key])
    return ordered[(len(ordered) - 1) // 2]


def _median_wave(waves: list[WaveStats]) -> WaveStats:
    ordered = sorted(waves, key=lambda w: w.tok_s)
    return ordered[(len(ordered) - 1) // 2]


# ---- report ----------------------------------------------------------------------------------


def _ratio(a: float | None, b: float | None) -> float | None:
    return a / b if a is not None and b else None


PEER_TARGETS = (  # (afm row, peer row, concurrency, goal): issues 14 and 18
    ("afm", "llama-f32", 1, 0.6), ("afm", "llama-f32", 16, 0.8),
    ("afm-4bit", "llama-q4", 1, 0.5), ("afm-4bit", "llama-q4", 16, 0.7),
    ("afm-8bit", "llama-q8", 1, 0.5), ("afm-4bit", "afm", 1, 1.0),
)
PAIRED_EXTRA = (("afm", "llama-f32", 8), ("afm-4bit", "llama-q4", 8),
                ("afm-8bit", "llama-q8", 8), ("afm-8bit", "llama-q8", 16))


def targets(r: Results) -> list[list[str]]:
    """``[check, measured, target, verdict]`` for each target the run can judge. A ratio of two
    servers, or of afm and the raw engine, is the median of its per-round ratios
    (:meth:`Results.paired`, :meth:`Results.paired_raw`); without per-round raw rows, the rows'
    medians."""
    rows: list[list[str]] = []

    def add(name: str, value: float | None, goal: str, ok: bool | None, fmt: str = "{:.2f}x"):
        verdict = "n/a" if ok is None else ("PASS" if ok else "FAIL")
        rows.append([name, "-" if value is None else fmt.format(value), goal, verdict])

    def over_raw(batch: int) -> float | None:
        paired = r.paired_raw("afm", batch)[0]
        if paired is not None:
            return paired
        wave = r.wave("afm", batch)
        return _ratio(wave.tok_s if wave else None, r.raw_tok_s(batch))

    v = over_raw(8)
    add("afm c=8 / raw engine B=8 (prefill + decode)", v, ">= 0.85x",
        None if v is None else v >= 0.85)
    for key, goal in (("mlxlm-blas", 1.3), ("mlxlm-installed", 5.0)):
        v = r.paired("afm", key, 8)[0]
        add(f"afm c=8 / {r.labels.get(key, key)} c=8", v, f">= {goal}x",
            None if v is None else v >= goal)
    v = over_raw(1)
    add("afm c=1 / raw engine B=1 (prefill + decode)", v, ">= 0.90x",
        None if v is None else v >= 0.90)
    for key in ("afm-bf16", "afm-8bit", "afm-4bit"):
        for c in (1, 8):
            v = r.paired(key, "afm", c)[0]
            add(f"{r.labels.get(key, key)} c={c} / afm float32 c={c}", v, ">= 0.90x",
                None if v is None else v >= 0.90)
    for mine, peer, c, goal in PEER_TARGETS:
        v = r.paired(mine, peer, c)[0]
        add(f"{r.labels.get(mine, mine)} c={c} / {r.labels.get(peer, peer)} c={c}", v,
            f">= {goal}x", None if v is None else v >= goal)
    p = r.prefix.get("afm")
    share = (_ratio(p["cached2"], p["prompt2"]) if p and p["cached2"] is not None else None)
    add("prefix: cached share of 2nd request", share, ">= 90%",
        None if share is None else share >= 0.90, "{:.0%}")
    v = _ratio(p["ttft2"], p["ttft1"]) if p else None
    add("prefix: TTFT 2nd / 1st", v, "<= 0.30x", None if v is None else v <= 0.30)
    c = r.constrained
    v = _ratio(c["cons"].tok_s, c["free"].tok_s) if c else None
    add("json_schema / unconstrained tok/s", v, ">= 0.90x", None if v is None else v >= 0.90)
    v = r.blas_ratio  # moved here from tests/test_blas.py: speed is the benchmark's to judge
    add("fast BLAS / reference GFLOP/s", v, ">= 3x", None if v is None else v >= 3.0)
    return rows


def render(args: argparse.Namespace, model: Path, r: Results, fast: dict[str, Any],
           ref: dict[str, Any] | None) -> str:
    """The whole Markdown report."""
    cmd = shlex.join(["python", "tools/bench.py", *sys.argv[1:]])
    out = ["# Benchmarks", "",
           f"Generated by `{cmd}` on {time.strftime('%Y-%m-%d %H:%M %Z')}."
           + (" **Quick smoke run**: fewer requests and tokens; not representative." if
              args.quick else ""), "",
           "## Machine", "", md_table(["", ""], [list(x) for x in machine(fast, ref)]), "",
           "## Model", "",
           f"`bench` preset from `modelbuilder/` ({model}): Qwen3 shape, hidden 512, "
           "8 layers, intermediate 1536, 8 heads / 4 KV heads, 32k vocabulary, float32, "
           "random weights. Its bf16, 8-bit and 4-bit copies are made by `mlx_lm convert` "
           "(`--dtype bfloat16`, `-q --q-bits 8|4`, group size 64); afm serves them with the "
           "default `--cpu-weights auto`: bf16 is converted to float32 at load, 8-bit and "
           "4-bit run on the project's native quantized kernel when it is built (else they are "
           "converted too; `/health` says which). The row marked MLX's quantized kernel runs "
           "`--cpu-weights native` with the extension turned off (`AFM_QMM_DISABLE=1`). "
           "llama-server rows run GGUF copies made by llama.cpp's own "
           "`convert_hf_to_gguf.py` (f32, Q8_0) and `llama-quantize` (Q4_0).", "",
           "## Throughput", "",
           f"Streaming chat completions, {args.tokens} tokens each (EOS suppressed: `ignore_eos` "
           "for afm, `logit_bias` on EOS for mlx_lm.server), "
           f"{args.waves} x concurrency requests per row, median of {args.rounds} interleaved "
           f"rounds (raw, afm on each format, mlx_lm + BLAS and llama-server each round; mlx_lm "
           "as installed and afm on native 4-bit weights in round 1), "
           f"temperature {args.temperature} "
           "(greedy like the raw rows unless `--temperature` says otherwise). "
           "Aggregate tok/s = generated tokens / wall time of the row. TTFT from request start "
           "to the first content delta; ITL = gap between content deltas. Raw engine: "
           "greedy batched decode steps with a KV cache, no HTTP, same BLAS and load-time "
           "policy as afm; its aggregate covers the prefill of its 32-token prompts and the "
           "decode steps (the same work as a server's wave of fresh requests of about that "
           "length); its TTFT column is that prefill and its ITL column one decode step.", ""]
    rows = [raw_row(x) for x in r.raw]
    for key in SERVERS:
        rows += [throughput_row(r.labels.get(key, key), w) for w in r.waves.get(key, [])]
    out += [md_table(THROUGHPUT_HEADER, rows) if rows else "_not run_", ""]
    if r.prefix:
        out += ["## Prefix cache", "",
                f"Two sequential requests sharing a never-seen ~{args.prefix_tokens}-token "
                "system prompt, 16 tokens each.", ""]
        prow = []
        for key, p in r.prefix.items():
            share = _ratio(p["cached2"], p["prompt2"]) if p["cached2"] is not None else None
            ratio = _ratio(p["ttft2"], p["ttft1"])
            prow.append([r.labels.get(key, key), str(p["prompt1"]),
                         "-" if p["ttft1"] is None else f"{1000 * p['ttft1']:.0f}",
                         "-" if p["ttft2"] is None else f"{1000 * p['ttft2']:.0f}",
                         "-" if ratio is None else f"{ratio:.2f}",
                         f"{p['cached2']}" + ("" if share is None else f" ({share:.0%})"),
                         p["error"][:80] or "-"])
        out += [md_table(["Target", "Prompt tokens", "1st TTFT ms", "2nd TTFT ms",
                          "TTFT ratio", "2nd cached tokens", "Error"], prow), ""]
    if r.constrained:
        c = r.constrained
        out += ["## Constrained decoding", "",
                f"afm, concurrency {args.constrained_concurrency}, `response_format` json_schema "
                f"vs. the same requests unconstrained. Complete JSON documents: {c['valid']}/"
                f"{len(c['cons'].texts)} (streams cut at max_tokens are incomplete).", "",
                md_table(THROUGHPUT_HEADER,
                         [throughput_row("afm unconstrained", c["free"]),
                          throughput_row("afm json_schema", c["cons"])]), ""]
    if r.slots:
        out += ["## Concurrency slots", "",
                f"afm serve with `--concurrent` {', '.join(map(str, r.slots))} at "
                f"{', '.join(map(str, args.slot_clients))} streaming clients, {args.tokens} "
                "tokens each, first round only. Clients beyond the slots queue for one "
                "(their TTFT grows).", "",
                md_table(THROUGHPUT_HEADER,
                         [throughput_row(f"afm --concurrent {n}", w)
                          for n, waves in r.slots.items() for w in waves]), ""]
    paired = []
    for mine, peer, c, *goal in (*PEER_TARGETS, *PAIRED_EXTRA):
        v, ratios = r.paired(mine, peer, c)
        if v is None:
            continue
        rounds = [f"{w.tok_s:.1f}" for _, waves in sorted(r.rounds[mine].items())
                  for w in waves if w.concurrency == c]
        peers = [f"{w.tok_s:.1f}" for _, waves in sorted(r.rounds[peer].items())
                 for w in waves if w.concurrency == c]
        paired.append([mine, peer, str(c), " / ".join(rounds), " / ".join(peers),
                       " / ".join(f"{x:.2f}" for x in ratios), f"{v:.2f}x",
                       f">= {goal[0]}x" if goal else ""])
    for batch, goal in ((1, 0.9), (8, 0.85)):
        v, ratios = r.paired_raw("afm", batch)
        if v is None:
            continue
        rounds = [f"{w.tok_s:.1f}" for _, waves in sorted(r.rounds["afm"].items())
                  for w in waves if w.concurrency == batch]
        raws = [f"{row['wall_tok_s']:.1f}" for _, rows in sorted(r.raw_rounds.items())
                for row in rows if row["batch"] == batch]
        paired.append(["afm", f"raw engine B={batch}", str(batch), " / ".join(rounds),
                       " / ".join(raws), " / ".join(f"{x:.2f}" for x in ratios), f"{v:.2f}x",
                       f">= {goal}x"])
    if paired:
        out += ["### Paired ratios, per round", "",
                "Each ratio is one row over another within one round (they ran back to back), "
                "then the median over rounds: the figure the targets below use.", "",
                md_table(["afm row", "peer row", "c", "afm tok/s (rounds)",
                          "peer tok/s (rounds)", "ratio per round", "median", "target"],
                         paired), ""]
    out += ["## Targets", "", md_table(["Check", "Measured", "Target", "Verdict"], targets(r)), ""]
    if r.notes:
        out += ["## Notes", "", *[f"- {n}" for n in r.notes], ""]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    """Parse arguments, run, print and write the report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="\n".join(__doc__.splitlines()[1:]))
    parser.add_argument("--model", type=Path, help="model folder (default: build the bench preset)")
    parser.add_argument("--only", help=f"comma-separated rows: {', '.join(ROWS)} (mlxlm = both)")
    parser.add_argument("--quick", action="store_true",
                        help="smoke run: concurrency 1 and 8, one wave, 64 tokens")
    parser.add_argument("--out", type=Path, help="report file (default BENCHMARKS.md; "
                        "none for --quick)")
    parser.add_argument("--tokens", type=int, help="tokens per request (default 128; quick 64)")
    parser.add_argument("--concurrency", type=int, nargs="+",
                        help="client concurrency levels (default 1 4 8 16; quick 1 8)")
    parser.add_argument("--waves", type=int, help="requests per row = waves x concurrency "
                        "(default 2; quick 1)")
    parser.add_argument("--raw-batches", type=int, nargs="+", default=[1, 8])
    parser.add_argument("--rounds", type=int, help="interleaved rounds; figures are medians "
                        "(default 3; quick 1)")
    parser.add_argument("--constrained-concurrency", type=int, default=8)
    parser.add_argument("--slot-counts", type=int, nargs="+", default=[8, 16, 32],
                        help="`--concurrent` values for the slots rows")
    parser.add_argument("--slot-clients", type=int, nargs="+", default=[1, 4, 8, 16, 32],
                        help="client counts for the slots rows")
    parser.add_argument("--prefix-tokens", type=int, default=1000)
    parser.add_argument("--temperature", type=float, default=0.0,
                        help="server rows' sampling temperature (default 0: greedy, like the "
                        "raw engine rows, so ratios measure serving overhead, not sampling)")
    parser.add_argument("--server-timeout", type=float, default=300.0,
                        help="seconds to wait for a server to answer /v1/models")
    parser.add_argument("--afm-arg", action="append", default=[],
                        help="extra argument for `afm serve` (repeatable)")
    gguf_peer.add_arguments(parser)
    args = parser.parse_args(argv)
    if args.gguf is not None:  # afm against llama-server on real GGUF files, nothing else
        args.tokens = args.tokens or 64
        args.concurrency = args.concurrency or [1, 4, 16]
        args.rounds = args.rounds or 2
        return gguf_peer.main(args)
    args.tokens = args.tokens or (64 if args.quick else 128)
    args.concurrency = args.concurrency or ([1, 8] if args.quick else [1, 4, 8, 16])
    args.waves = args.waves or (1 if args.quick else 2)
    args.rounds = args.rounds or (1 if args.quick else 3)
    out = args.out or (None if args.quick else ROOT / "BENCHMARKS.md")
    only = parse_only(args.only)

    if args.model is None:
        from modelbuilder import ensure_model

        args.model = ensure_model("bench")
    model = args.model.resolve()
    print(f"model: {model}", file=sys.stderr)
    fast = blas_probe()
    ref = blas_probe("reference") if fast["fast"] else None
    print(f"BLAS: {fast['name']} {fast['gflops']:.1f} GFLOP/s"
          + (f" (reference {ref['gflops']:.1f})" if ref else ""), file=sys.stderr)

    bench = Bench(args, model, only)
    results = bench.run()
    results.blas_ratio = _ratio(fast["gflops"], ref["gflops"]) if ref else None
    report = render(args, model, results, fast, ref)
    print(report)
    if out is not None:
        out.write_text(report + "\n")
        print(f"written to {out}; server logs in {bench.log_dir}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
