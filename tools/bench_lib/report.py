"""Machine description and Markdown tables for the benchmark report."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

from .client import WaveStats

ROOT = Path(__file__).resolve().parents[2]

_BLAS_PROBE = (
    "import json; from engine.blas import blas_report; i = blas_report(); "
    "print(json.dumps({'name': i.name, 'path': i.path, 'gflops': i.gflops, 'fast': i.fast, "
    "'threads': i.threads}))"
)


def blas_probe(force: str | None = None) -> dict[str, Any]:
    """Which BLAS a fresh interpreter gets (``force`` sets ``AFM_BLAS``), with its GFLOP/s."""
    env = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "AFM_BLAS")}
    if force:
        env["AFM_BLAS"] = force
    out = subprocess.run([sys.executable, "-c", _BLAS_PROBE], cwd=ROOT, env=env, check=True,
                         capture_output=True, text=True, timeout=300)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _memory_gib() -> float | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) / 1024**2
    except OSError:
        pass
    return None


def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "not installed"


def machine(fast: dict[str, Any], ref: dict[str, Any] | None) -> list[tuple[str, str]]:
    """``(field, value)`` pairs describing this machine and its BLAS."""
    mem = _memory_gib()
    try:
        usable = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        usable = os.cpu_count() or 0
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "?"
    blas = f"{fast['name']} ({fast['path'] or 'bundled'})"
    if fast.get("threads"):
        blas += f", {fast['threads']} thread(s)"
    threading = os.environ.get("MKL_THREADING_LAYER") or (
        ("SEQUENTIAL" if fast.get("threads") == 1 else "INTEL") if fast["name"] == "mkl" else "-")
    rows = [
        ("CPU", f"{_cpu_model()} ({platform.machine()})"),
        ("Cores", f"{usable} usable of {os.cpu_count()}"),
        ("Memory", f"{mem:.1f} GiB" if mem else "?"),
        ("OS", platform.platform()),
        ("Python", platform.python_version()),
        ("mlx / mlx-lm", f"{_version('mlx')} / {_version('mlx-lm')}"),
        ("BLAS", blas + (f", MKL_THREADING_LAYER={threading}" if fast["name"] == "mkl" else "")),
        ("BLAS GFLOP/s (512^3 fp32)", f"{fast['gflops']:.1f}"),
    ]
    if ref is not None:
        rows.append(("Reference BLAS GFLOP/s", f"{ref['gflops']:.1f}"))
    rows.append(("Load average at start", load))
    return rows


def _ms(x: float | None) -> str:
    return "-" if x is None else f"{1000 * x:.0f}"


def md_table(header: list[str], rows: list[list[str]]) -> str:
    """A GitHub Markdown table."""
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


THROUGHPUT_HEADER = ["Target", "Conc.", "Requests", "Tokens", "Agg tok/s", "TTFT p50 ms",
                     "TTFT p99 ms", "ITL p50 ms", "Failed"]


def throughput_row(label: str, s: WaveStats) -> list[str]:
    """One row of the throughput table."""
    return [label, str(s.concurrency), str(s.requests), str(s.tokens), f"{s.tok_s:.1f}",
            _ms(s.ttft_p50), _ms(s.ttft_p99), _ms(s.itl_p50), str(s.failed)]


def raw_row(row: dict[str, Any]) -> list[str]:
    """A raw-engine row in the throughput table's columns: aggregate tok/s over its prefill and
    decode steps, like a server's row over a wave of fresh requests."""
    return ["raw engine (batched forward)", f"B={row['batch']}", "-",
            str(row["batch"] * row["tokens"]), f"{row['wall_tok_s']:.1f}",
            f"{row['prefill_ms']:.0f} (prefill)", "-", f"{row['step_ms']:.1f} (step)", "-"]
