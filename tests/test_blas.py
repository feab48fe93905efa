"""engine.blas: a fast BLAS preloaded in a fresh interpreter is correct and much faster."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys

import pytest

from engine import blas

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="BLAS preload is Linux-only")

_PROBE = """
import json, sys
import numpy as np
from engine.blas import measure_gflops, preload_fast_blas
info = preload_fast_blas()
import mlx.core as mx
rng = np.random.default_rng(0)
a = rng.standard_normal((300, 200), dtype=np.float32)
b = rng.standard_normal((200, 150), dtype=np.float32)
got = np.array(mx.array(a) @ mx.array(b))
err = float(np.abs(got - a @ b).max())
gflops = measure_gflops(512, 7)
print(json.dumps({"name": info.name, "path": info.path, "fast": info.fast, "err": err,
                  "gflops": gflops, "again": preload_fast_blas() is info}))
"""


def _probe(env_blas: str | None) -> dict[str, object]:
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    env.pop(blas.ENV_VAR, None)
    if env_blas is not None:
        env[blas.ENV_VAR] = env_blas
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = subprocess.run([sys.executable, "-c", _PROBE], env=env, cwd=root, check=True,
                         capture_output=True, text=True, timeout=300)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_reference_forced() -> None:
    ref = _probe("reference")
    assert ref["name"] == "reference" and ref["path"] is None and not ref["fast"]
    assert ref["err"] < 1e-3


@pytest.mark.skipif(not (sys.platform == "linux" and platform.machine() == "x86_64"),
                    reason="pyproject installs mkl on linux x86_64 only")
def test_fast_blas_found_and_correct() -> None:
    # where mkl is a dependency it must be found; how much faster it is than the reference
    # BLAS is measured by tools/bench.py
    assert blas.find_mkl() is not None or blas.find_openblas() is not None
    fast = _probe(None)
    assert fast["fast"] and fast["path"] and fast["again"]
    assert fast["err"] < 1e-3


def test_forced_bad_path_falls_back_to_reference() -> None:
    res = _probe("/nonexistent/libblas.so")
    assert res["name"] == "reference" and not res["fast"] and res["err"] < 1e-3


def test_preload_after_mlx_import_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(blas, "_loaded", None)
    monkeypatch.setitem(sys.modules, "mlx.core", sys.modules.get("mlx.core", object()))
    monkeypatch.setattr(blas, "_loaded_fast_library", lambda: None)
    info = blas.preload_fast_blas()
    assert not info.fast and "imported before" in info.note


def test_default_threads_leaves_a_core(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(blas, "_cpu_count", lambda: 2)
    assert blas.default_threads() == 1
    monkeypatch.setattr(blas, "_cpu_count", lambda: 16)
    assert blas.default_threads() == 15
