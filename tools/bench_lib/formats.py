"""Real model formats of the bench model (bf16, 8-bit, 4-bit), made once with mlx-lm's own
converter and cached next to the model; and the BLAS configurations tried for mlx_lm.server."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from .servers import ROOT

FORMATS: dict[str, list[str]] = {
    "bf16": ["--dtype", "bfloat16"],
    "8bit": ["-q", "--q-bits", "8"],
    "4bit": ["-q", "--q-bits", "4"],
}


def model_copy(model: Path, fmt: str) -> Path:
    """``model`` converted to ``fmt`` by ``mlx_lm convert`` (cached as ``<model>-<fmt>``)."""
    out = model.parent / f"{model.name}-{fmt}"
    if (out / "config.json").is_file():
        return out
    tmp = model.parent / f".{model.name}-{fmt}.{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    cmd = [sys.executable, "-m", "mlx_lm", "convert", "--hf-path", str(model),
           "--mlx-path", str(tmp), *FORMATS[fmt]]
    print(f"[formats] {' '.join(cmd)}", file=sys.stderr)
    subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True, timeout=600)
    try:
        tmp.rename(out)
    except OSError:  # another run made it meanwhile
        shutil.rmtree(tmp, ignore_errors=True)
    return out


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def blas_variants() -> dict[str, tuple[str, dict[str, str]]]:
    """mlx_lm.server BLAS configurations available here: name -> (label, environment)."""
    from engine.blas import find_mkl, find_openblas  # no mlx import

    cores = str(_cores())
    out: dict[str, tuple[str, dict[str, str]]] = {}
    if find_mkl():
        out["mkl-seq"] = ("MKL sequential", {"AFM_BLAS": "mkl", "MKL_THREADING_LAYER":
                                             "SEQUENTIAL", "MKL_NUM_THREADS": "1"})
        out["mkl-threaded"] = (f"MKL threaded ({cores} threads)",
                               {"AFM_BLAS": "mkl", "MKL_THREADING_LAYER": "INTEL",
                                "MKL_NUM_THREADS": cores})
    openblas = find_openblas()
    if openblas:
        out["openblas"] = (f"OpenBLAS {Path(openblas).parent.name} ({cores} threads)",
                           {"AFM_BLAS": "openblas", "OPENBLAS_NUM_THREADS": cores})
    return out
