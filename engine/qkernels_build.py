"""Build the native quantized matmul extension (native/afm_qmm) with CMake.

Imports nothing heavy, so setup.py can use it before MLX is importable in its process. The
build needs a C++17 compiler, cmake, and the `mlx` and `nanobind` Python packages in the
interpreter passed as ``python`` (their CMake configs are found through it). Every failure is
reported as one line and returns None: the engine then keeps MLX's own quantized kernels.
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import sys
from pathlib import Path

log = logging.getLogger(__name__)

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "native" / "afm_qmm"


def missing_tools(python: str = sys.executable) -> str | None:
    """What prevents a build, in words, or None when everything is there."""
    if not (SOURCE / "CMakeLists.txt").is_file():
        return f"no sources at {SOURCE}"
    if shutil.which("cmake") is None:
        return "cmake not found"
    if not any(shutil.which(c) for c in (os.environ.get("CXX", "c++"), "c++", "g++", "clang++")):
        return "no C++ compiler found"
    probe = "import mlx, nanobind"
    if subprocess.run([python, "-c", probe], capture_output=True).returncode != 0:
        return f"{python} cannot import mlx and nanobind"
    return None


def build_extension(
    output_dir: Path | None = None,
    build_dir: Path | None = None,
    python: str = sys.executable,
    quiet: bool = True,
) -> Path | None:
    """Configure and build ``_afm_qmm`` into ``output_dir`` (default: the engine package).

    Returns the built module's path, or None (after one log line) when it could not be built.
    """
    output_dir = Path(output_dir or ROOT / "engine").resolve()
    build_dir = Path(build_dir or ROOT / "build" / "afm_qmm").resolve()
    why = missing_tools(python)
    if why is not None:
        log.warning("afm_qmm: native kernels not built (%s); using MLX's quantized matmul", why)
        return None
    jobs = str(max(1, min(4, os.cpu_count() or 1)))
    steps = [
        ["cmake", "-S", str(SOURCE), "-B", str(build_dir), "-DCMAKE_BUILD_TYPE=Release",
         f"-DPython_EXECUTABLE={python}", f"-DAFM_QMM_OUTPUT_DIR={output_dir}"],
        ["cmake", "--build", str(build_dir), "--parallel", jobs],
    ]
    for cmd in steps:
        done = subprocess.run(cmd, capture_output=quiet, text=True)
        if done.returncode != 0:
            tail = (done.stderr or done.stdout or "").strip().splitlines()[-5:] if quiet else []
            log.warning("afm_qmm: native kernels not built (%s failed); using MLX's quantized "
                        "matmul. %s", cmd[1], " | ".join(tail))
            return None
    built = sorted(output_dir.glob("_afm_qmm*.so")) + sorted(output_dir.glob("_afm_qmm*.pyd"))
    return built[0] if built else None
