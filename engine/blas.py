"""Load a fast BLAS into the process before MLX does, and measure what MLX gets.

MLX's Linux CPU wheel bundles the netlib reference BLAS (~5 GFLOP/s). A library that exports the
standard ``cblas_*``/``sgemm_`` names, loaded with ``RTLD_GLOBAL`` before the first ``import
mlx.core``, wins symbol resolution over the bundled one, and MLX's matmuls then run at 100-200
GFLOP/s. Candidates, in order:

1. ``AFM_BLAS``: a path to a shared library, ``mkl``, ``openblas``, or ``reference`` (load nothing);
2. oneMKL from the PyPI ``mkl`` package (``<prefix>/lib/libmkl_rt.so.*``, a project dependency);
3. Debian's OpenBLAS (``libopenblas0-pthread`` / ``-openmp`` / ``-serial``).

Threads: the BLAS gets one core less than the machine has, leaving one for the HTTP side and
tokenizers (where that leaves it one thread, ``engine.parallel_linear`` spreads float32 matmuls over
every core in blocks instead, without a barrier). On two cores that means single-threaded (MKL's
SEQUENTIAL layer): measured on a 2-core EPYC, a threaded MKL decodes ~15% faster when nothing else
runs, but collapses (340 -> 15-100 tok/s at batch 8) as soon as another thread or process competes
for a core, because OpenMP barriers wait on a descheduled worker. ``MKL_NUM_THREADS``,
``MKL_THREADING_LAYER`` and ``OPENBLAS_NUM_THREADS`` set by the user are respected.

On macOS nothing is loaded: MLX runs on Metal and links Accelerate.
"""

from __future__ import annotations

import ctypes
import glob
import logging
import os
import sys
import sysconfig
import time
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)

ENV_VAR = "AFM_BLAS"
_OPENBLAS_PATHS = (
    "/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblas.so.0",
    "/usr/lib/aarch64-linux-gnu/openblas-pthread/libopenblas.so.0",
    "/usr/lib/x86_64-linux-gnu/openblas-openmp/libopenblas.so.0",
    "/usr/lib/aarch64-linux-gnu/openblas-openmp/libopenblas.so.0",
    "/usr/lib/x86_64-linux-gnu/openblas-serial/libopenblas.so.0",
    "/usr/lib/aarch64-linux-gnu/openblas-serial/libopenblas.so.0",
    "/usr/lib64/libopenblas.so.0",
    "/usr/lib/libopenblas.so.0",
)
_FAST_MARKERS = (("libmkl_rt", "mkl"), ("libopenblas", "openblas"), ("libblis", "blis"))


@dataclass
class BlasInfo:
    """Which BLAS MLX uses in this process."""

    name: str
    """``mkl``, ``openblas``, ``custom``, ``reference`` or ``accelerate`` (macOS)."""
    path: str | None
    """The shared library loaded, or None when nothing was loaded."""
    gflops: float | None
    """Measured float32 matmul speed, once :func:`measure_gflops` ran."""
    fast: bool
    """False when MLX falls back to its bundled reference BLAS."""
    threads: int | None = None
    """BLAS threads configured, when known."""
    note: str = ""
    """Why the choice was made (forced, already imported, nothing found...)."""


_loaded: BlasInfo | None = None


def _cpu_count() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def default_threads() -> int:
    """BLAS threads to use: every core but one (the HTTP side needs one), at least one."""
    return max(1, _cpu_count() - 1)


def _lib_dirs() -> list[Path]:
    """Environment ``lib/`` folders where pip-installed shared libraries land."""
    dirs = [Path(sys.prefix) / "lib", Path(sys.base_prefix) / "lib"]
    data = sysconfig.get_paths().get("data")
    if data:
        dirs.append(Path(data) / "lib")
    seen: list[Path] = []
    for d in dirs:
        if d not in seen and d.is_dir():
            seen.append(d)
    return seen


def find_mkl() -> str | None:
    """Path of ``libmkl_rt.so.*`` from the PyPI ``mkl`` package, if installed."""
    for d in _lib_dirs():
        hits = sorted(glob.glob(str(d / "libmkl_rt.so.*")), reverse=True)
        if hits:
            return hits[0]
        if (d / "libmkl_rt.so").exists():
            return str(d / "libmkl_rt.so")
    return None


def find_openblas() -> str | None:
    """Path of a system OpenBLAS exporting unprefixed ``cblas_*`` names, if installed."""
    return next((p for p in _OPENBLAS_PATHS if os.path.exists(p)), None)


def _name_for(path: str) -> str:
    base = os.path.basename(path)
    return next((name for marker, name in _FAST_MARKERS if marker in base), "custom")


def _configure_threads(name: str) -> int:
    """Set the thread environment for ``name`` before it loads; returns the thread count."""
    threads = default_threads()
    if name == "mkl":
        os.environ.setdefault("MKL_THREADING_LAYER", "SEQUENTIAL" if threads == 1 else "INTEL")
        os.environ.setdefault("MKL_NUM_THREADS", str(threads))
        return int(os.environ["MKL_NUM_THREADS"])
    if name == "openblas":
        os.environ.setdefault("OPENBLAS_NUM_THREADS", str(threads))
        return int(os.environ["OPENBLAS_NUM_THREADS"])
    return threads


def _loaded_fast_library() -> str | None:
    """A fast BLAS already mapped into this process (LD_PRELOAD, earlier load), if any."""
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as maps:
            for line in maps:
                path = line.rsplit(" ", 1)[-1].strip()
                if path.startswith("/") and _name_for(path) != "custom":
                    return path
    except OSError:
        pass
    return None


def _load(path: str, name: str, note: str) -> BlasInfo:
    threads = _configure_threads(name)
    lib = ctypes.CDLL(path, mode=os.RTLD_GLOBAL)
    if not hasattr(lib, "cblas_sgemm"):
        raise OSError(f"{path} does not export cblas_sgemm (prefixed symbols?)")
    return BlasInfo(name=name, path=path, gflops=None, fast=True, threads=threads, note=note)


def _candidates() -> tuple[list[tuple[str, str]], str]:
    """``[(path, name), ...]`` to try, and a note on where they came from."""
    forced = os.environ.get(ENV_VAR, "").strip()
    if forced:
        low = forced.lower()
        if low in ("reference", "none", "off"):
            return [], f"{ENV_VAR}={forced}"
        if low == "mkl":
            path = find_mkl()
            return ([(path, "mkl")] if path else []), f"{ENV_VAR}=mkl"
        if low == "openblas":
            path = find_openblas()
            return ([(path, "openblas")] if path else []), f"{ENV_VAR}=openblas"
        return [(forced, _name_for(forced))], f"{ENV_VAR}={forced}"
    found = [(p, n) for p, n in ((find_mkl(), "mkl"), (find_openblas(), "openblas")) if p]
    return found, "auto"


def preload_fast_blas() -> BlasInfo:
    """Load the fastest available BLAS globally, before ``mlx.core`` is imported.

    Idempotent: later calls return the first result. If ``mlx.core`` is already imported the BLAS
    can no longer change; the result says so (and whether a fast one was loaded anyway).
    """
    global _loaded
    if _loaded is not None:
        return _loaded
    if sys.platform == "darwin":
        _loaded = BlasInfo("accelerate", None, None, True, note="macOS: MLX uses Metal/Accelerate")
        return _loaded
    already = _loaded_fast_library()
    if "mlx.core" in sys.modules:
        note = "mlx.core was imported before preload_fast_blas(); the BLAS cannot change now"
        if already:
            _loaded = BlasInfo(_name_for(already), already, None, True, note=note)
        else:
            _loaded = BlasInfo("reference", None, None, False, note=note)
            log.warning("BLAS: %s", note)
        return _loaded
    if already:  # LD_PRELOAD or an earlier load: that is what MLX will bind to
        _loaded = BlasInfo(_name_for(already), already, None, True, note="already loaded")
        return _loaded
    candidates, origin = _candidates()
    errors: list[str] = []
    for path, name in candidates:
        try:
            _loaded = _load(path, name, origin)
            return _loaded
        except OSError as exc:
            errors.append(f"{path}: {exc}")
            log.warning("BLAS: could not load %s: %s", path, exc)
    if origin == "auto":
        note = "no fast BLAS found (pip install mkl, or apt install libopenblas0-pthread)"
    else:
        note = origin
    if errors:
        note += "; " + "; ".join(errors)
    _loaded = BlasInfo("reference", None, None, False, note=note)
    return _loaded


def loaded() -> BlasInfo | None:
    """What :func:`preload_fast_blas` chose in this process (None before it ran)."""
    return _loaded


def measure_gflops(n: int = 512, repeats: int = 5) -> float:
    """Best-of-``repeats`` GFLOP/s of an ``n x n x n`` float32 matmul in MLX (after preload)."""
    preload_fast_blas()
    import mlx.core as mx

    key = mx.random.key(0)
    a = mx.random.normal((n, n), key=key)
    b = mx.random.normal((n, n), key=mx.random.split(key)[0])
    mx.eval(a, b)
    mx.eval(a @ b)  # warm-up: thread pools, page faults
    best = float("inf")
    for _ in range(max(1, repeats)):
        start = time.perf_counter()
        mx.eval(a @ b)
        best = min(best, time.perf_counter() - start)
    return 2.0 * n**3 / best / 1e9


def blas_report() -> BlasInfo:
    """Preload, measure and log which BLAS MLX uses; warns loudly on the reference BLAS."""
    info = preload_fast_blas()
    info.gflops = measure_gflops()
    where = info.path or "bundled"
    threads = f", {info.threads} thread(s)" if info.threads else ""
    log.info("BLAS: %s (%s), %.1f GFLOP/s%s", info.name, where, info.gflops, threads)
    if not info.fast:
        log.warning(
            "BLAS: only MLX's bundled reference BLAS is in use (%.1f GFLOP/s); CPU inference "
            "will be 5-10x slower. %s", info.gflops, info.note)
    return info
