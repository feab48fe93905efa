"""llama.cpp's ``llama-server`` as a benchmark peer, built from a PyPI source distribution.

``llama-cpp-python``'s sdist vendors llama.cpp's sources. Build once, outside the repository
(minutes on 2 cores; never in CI)::

    mkdir -p ~/.cache/afm/llama.cpp/src && cd ~/.cache/afm/llama.cpp/src
    pip download llama-cpp-python --no-binary :all: --no-deps -d .   # or copy the sdist
    tar xzf llama_cpp_python-*.tar.gz
    cmake -S llama_cpp_python-*/vendor/llama.cpp -B ../build -G Ninja -DCMAKE_BUILD_TYPE=Release \\
        -DLLAMA_CURL=OFF -DGGML_NATIVE=ON -DLLAMA_BUILD_TESTS=OFF -DBUILD_SHARED_LIBS=OFF
    ninja -C ../build llama-server llama-quantize

On CPUs with AMX (Intel Xeon 4th generation on) the native build's AMX matmuls crash on the
first prompt of the real GGUF files (segfault in ``ggml_backend_amx_mul_mat``, llama.cpp issue
#20824); build there with ``-DCMAKE_C_FLAGS="-mno-amx-tile -mno-amx-int8 -mno-amx-bf16"`` and
the same ``-DCMAKE_CXX_FLAGS`` (everything else stays native).

The bench model is converted with llama.cpp's own ``convert_hf_to_gguf.py`` (through
``gguf_convert.py``) to f32 and Q8_0, and ``llama-quantize`` makes Q4_0; files are cached under
``~/.cache/afm/llama.cpp/gguf``. When any piece is missing :func:`llama_setup` says why and the
benchmark runs without these rows.
"""

from __future__ import annotations

import glob
import os
import subprocess
import sys
from pathlib import Path

from .servers import ROOT, ServerSpec

HOME = Path(os.environ.get("AFM_LLAMA_CPP_DIR", Path.home() / ".cache/afm/llama.cpp"))
QUANTS = {"llama-f32": "f32", "llama-q8": "q8_0", "llama-q4": "q4_0"}


def _sources() -> Path | None:
    hits = sorted(glob.glob(str(HOME / "src/llama_cpp_python-*/vendor/llama.cpp")))
    return Path(hits[-1]) if hits else None


def _binary(name: str) -> Path | None:
    path = HOME / "build/bin" / name
    return path if path.is_file() and os.access(path, os.X_OK) else None


def gguf_copy(model: Path, quant: str) -> Path:
    """The bench model as GGUF ``quant`` (f32, q8_0 or q4_0), converted once and cached."""
    src = _sources()
    if src is None:
        raise FileNotFoundError(f"no llama.cpp sources under {HOME / 'src'}")
    out_dir = HOME / "gguf"
    out_dir.mkdir(parents=True, exist_ok=True)
    out = out_dir / f"{model.name}-{quant}.gguf"
    if out.is_file():
        return out
    tmp = out.with_suffix(f".tmp{os.getpid()}")
    if quant == "q4_0":
        quantize = _binary("llama-quantize")
        if quantize is None:
            raise FileNotFoundError("llama-quantize is not built")
        cmd = [str(quantize), str(gguf_copy(model, "f32")), str(tmp), "Q4_0"]
    else:
        cmd = [sys.executable, str(ROOT / "tools/bench_lib/gguf_convert.py"), str(src),
               str(model), "--outtype", quant, "--outfile", str(tmp)]
    print(f"[llama] {' '.join(cmd)}", file=sys.stderr)
    subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True, timeout=900)
    tmp.rename(out)
    return out


def llama_setup() -> str | None:
    """None when llama-server rows can run here, else why not."""
    if _binary("llama-server") is None:
        return (f"llama-server rows not run: no build at {HOME / 'build/bin/llama-server'} "
                "(build steps in tools/bench_lib/llama.py)")
    if _sources() is None:
        return f"llama-server rows not run: no llama.cpp sources under {HOME / 'src'}"
    return None


def llama_spec(key: str, model: Path, port: int, slots: int, ctx_per_slot: int) -> ServerSpec:
    """``llama-server`` on the bench model's GGUF copy for ``key``; threads = usable cores."""
    server = _binary("llama-server")
    if server is None:
        raise FileNotFoundError("llama-server is not built")
    try:
        threads = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        threads = os.cpu_count() or 1
    quant = QUANTS[key]
    argv = [str(server), "-m", str(gguf_copy(model, quant)), "--host", "127.0.0.1",
            "--port", str(port), "-t", str(threads), "-np", str(slots),
            "-c", str(slots * ctx_per_slot)]
    return ServerSpec(key, f"llama-server GGUF {quant.upper()} ({threads} threads, {slots} slots)",
                      argv)
