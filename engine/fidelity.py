"""Where the int8-activation kernel paths may run by default: files on which they were measured
at least as faithful as llama.cpp on the very same file (HTTP-free).

Rounding activations to int8 (what llama.cpp's CPU path does for every quantized type) is not
float-exact. The rule (issue 60): the load-time timing may choose an int8 path automatically
only for a file where afm's int8 rows agree with an independent float reference (HF
transformers) at least as well as llama.cpp does on that file, measured by
``tools/gguf_fidelity.py --llama`` (teacher-forced top-1 over every position, and greedy
continuations equal token for token; README, "Fidelity on real weights"). Elsewhere the exact
paths stay the default and ``AFM_QMM_INT8=1`` opts in.

Files are known by the sha256 of the GGUF file, recorded in the converted folder
(``engine.gguf_load``) when it is made.
"""

from __future__ import annotations

import json
from pathlib import Path

INT8_AT_LEAST_LLAMA: dict[str, str] = {
    # Qwen2.5-Coder-0.5B-Instruct Q4_K_M (packaged): avx2-int8 97.8% top-1, 3/3 greedy;
    # llama.cpp 97.8%, 2/3 (AMD EPYC, AVX2, 2026-12-07)
    "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32":
        "Qwen2.5-Coder-0.5B-Instruct Q4_K_M",
    # Qwen2.5-Coder-1.5B-Instruct Q4_K_M (packaged): avx2-int8 100.0%, 3/3; llama.cpp 97.3%, 1/3
    "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046":
        "Qwen2.5-Coder-1.5B-Instruct Q4_K_M",
}
"""GGUF sha256 -> the file, for files whose int8 rows measured at least llama.cpp's agreement."""


def int8_measured(model_path: str | Path) -> bool:
    """Whether ``model_path`` (a converted GGUF folder) comes from a file in
    :data:`INT8_AT_LEAST_LLAMA`."""
    from engine.gguf_load import INFO_FILE

    try:
        info = json.loads((Path(model_path) / INFO_FILE).read_text())
    except (OSError, ValueError):
        return False
    return str(info.get("sha256", "")) in INT8_AT_LEAST_LLAMA
