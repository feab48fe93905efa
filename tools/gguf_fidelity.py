"""Fidelity on real weights: afm's engine against HF transformers on the same GGUF file.

transformers dequantizes the GGUF file into PyTorch float32 (an independent implementation:
its own tensor mapping, un-permutation and dequantization); afm loads the file through
``engine.gguf_load`` and the CPU weight policy exactly as ``afm serve`` does (native quantized
kernel, fused projections, native ops). For each chat prompt, transformers decodes
:data:`TOKENS` tokens greedily; then

- teacher-forced top-1: over every position of prompt + that continuation, the share where
  afm's most likely next token equals transformers';
- greedy: afm decodes greedily on its own (KV cache, as it serves); ``same`` counts prompts
  whose continuation equals transformers' token for token, ``prefix`` the mean length of the
  common prefix.

Every kernel path the load-time timing may choose is measured (the exact float paths and the
int8-activation ones this CPU runs: ``engine.qkernel_isa``), by forcing it after load.

The same is measured for llama.cpp (``--llama``: ``llama-server`` built as
tools/bench_lib/llama.py says, on the very same file, its best CPU configuration): its argmax at
every position is its greedy next token for that prefix (``temperature`` 0, one token, the prompt
as token ids), so its row sits in the same table as afm's paths (path ``llama.cpp``).

Usage: .venv/bin/python tools/gguf_fidelity.py [--models smollm2 qwen-0.5b] [--tokens 24]
       [--dequant float32 8bit] [--paths avx2 vnni-int8] [--llama]
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

os.environ.setdefault("TQDM_DISABLE", "1")  # transformers' GGUF progress bars
warnings.filterwarnings("ignore", module="torch")

from engine.blas import preload_fast_blas  # noqa: E402

preload_fast_blas()

import mlx.core as mx  # noqa: E402

PROMPTS = [
    "What is the capital of France?",
    "Write one sentence about the sea.",
    "What is 2 + 3? Answer with the number.",
]
TOKENS = 24


@dataclass
class Row:
    """One model, dequantization mode and kernel path: the agreement measured."""

    model: str
    dequant: str
    path: str
    positions: int
    agree: int
    same: int
    prompts: int
    prefix: float

    @property
    def top1(self) -> float:
        return self.agree / self.positions if self.positions else 0.0

    def cells(self) -> str:
        return (f"| {self.model} | {self.dequant} | {self.path} | {100 * self.top1:.1f}% "
                f"({self.agree}/{self.positions}) | {self.same}/{self.prompts} | "
                f"{self.prefix:.1f} |")


HEADER = ("| model | non-native tensors | kernel path | teacher-forced top-1 | greedy same | "
          "mean common prefix |\n|---|---|---|---|---|---|")


def chat_ids(tokenizer: Any, prompts: list[str]) -> list[list[int]]:
    """Token ids of each prompt as a one-turn chat, with the generation prompt."""
    return [list(tokenizer.apply_chat_template([{"role": "user", "content": p}],
                                               add_generation_prompt=True, tokenize=True))
            for p in prompts]


def hf_reference(gguf: Path, prompts: list[list[int]], tokens: int) -> list[tuple[list[int],
                                                                                list[int]]]:
    """Per prompt: transformers' greedy continuation and its argmax at every position of
    prompt + continuation."""
    import torch
    import transformers
    from transformers.utils import logging as hf_logging

    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()
    model = transformers.AutoModelForCausalLM.from_pretrained(
        str(gguf.parent), gguf_file=gguf.name, dtype=torch.float32).eval()
    out = []
    with torch.no_grad():
        for ids in prompts:
            cont: list[int] = []
            for _ in range(tokens):  # the whole sequence each step: no cache shortcuts
                logits = model(torch.tensor([ids + cont])).logits[0]
                cont.append(int(logits[-1].argmax()))
            full = model(torch.tensor([ids + cont])).logits[0]
            out.append((cont, full.argmax(-1).tolist()))
    del model
    return out


def afm_model(gguf: Path, dequant: str) -> tuple[Any, Any]:
    """The model as ``afm serve`` runs it: converted, loaded, and through the CPU policy."""
    from engine import cpu_weights, fidelity, model_load
    from engine.gguf_load import ensure_converted

    folder = ensure_converted(gguf, dequant)
    model, tokenizer = model_load.load(str(folder))
    cpu_weights.prepare(model, "auto", what=gguf.name, int8=fidelity.int8_measured(folder))
    return model, tokenizer


AMX = "+amx"  # a path name's suffix: many-row products and long attention on AMX tiles


def kernel_paths() -> list[str]:
    """Every path the load-time timing may choose on this CPU (exact float, the digit planes it
    may choose for one-row products, then int8, then the first int8 path with the AMX bfloat16
    tiles, where the CPU has them: ``AFM_QMM_INT8=1``)."""
    from engine import qkernel_isa, qkernels

    if not qkernels.available():
        return ["mlx"]
    ext = qkernels._ext
    int8 = [p for p in qkernel_isa.INT8 if p in qkernels.int8_isas()]
    amx = [f"{int8[0]}{AMX}"] if int8 and ext.amx_bf16_available() else []
    planes = qkernels.plane_isas()  # forced on every product here, not only one-row ones
    return ([p for p in qkernel_isa.TIMED if p in ext.supported_isas()] + planes + int8 + amx)


def force_path(path: str) -> None:
    """Make ``"auto"`` run ``path`` at every bit width and every row count (the BLAS tile path
    that ``auto`` takes from :func:`engine.qkernels.blas_rows` rows on is exact float arithmetic
    on dequantized tiles: off here, so each row measures the path it names; a name ending in
    ``+amx`` turns the AMX tiles on from the default row count instead)."""
    from engine import qkernels

    if qkernels.available():
        amx = path.endswith(AMX)  # the opt-in as served: int8 rows, AMX tiles from 16 rows
        path = path.removesuffix(AMX)
        if hasattr(qkernels._ext, "set_blas_rows"):
            qkernels._ext.set_blas_rows(qkernels.DEFAULT_BLAS_ROWS if amx else 0)
        if hasattr(qkernels._ext, "set_blas_bf16"):
            qkernels._ext.set_blas_bf16(amx)
        for bits in (*qkernels.SUPPORTED_BITS, *qkernels.PLANAR_FORMATS):
            qkernels._ext.set_auto_isa(bits, path)


def afm_greedy(model: Any, ids: list[int], tokens: int) -> list[int]:
    from mlx_lm.generate import generate_step

    out = []
    for token, _ in generate_step(mx.array(ids), model, max_tokens=tokens,
                                  sampler=lambda lp: mx.argmax(lp, axis=-1)):
        out.append(int(token))
    return out


def measure(model: Any, name: str, dequant: str, path: str, prompts: list[list[int]],
            reference: list[tuple[list[int], list[int]]], tokens: int) -> Row:
    force_path(path)
    row = Row(name, dequant, path, 0, 0, 0, len(prompts), 0.0)
    prefix_total = 0
    for ids, (cont, hf_top) in zip(prompts, reference, strict=True):
        logits = model(mx.array([ids + cont]))[0]
        top = mx.argmax(logits, axis=-1).tolist()
        row.positions += len(top)
        row.agree += sum(a == b for a, b in zip(top, hf_top, strict=True))
        mine = afm_greedy(model, ids, tokens)
        common = next((i for i, (a, b) in enumerate(zip(mine, cont, strict=True)) if a != b),
                      len(cont))
        prefix_total += common
        row.same += mine == cont
    row.prefix = prefix_total / len(prompts)
    return row


def llama_row(gguf: Path, name: str, prompts: list[list[int]],
              reference: list[tuple[list[int], list[int]]], tokens: int) -> Row:
    """llama.cpp's agreement with the reference on the same file and prompts (llama-server)."""
    import httpx

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_lib.llama import _binary
    from bench_lib.servers import free_port

    binary = _binary("llama-server")
    if binary is None:
        raise SystemExit("--llama: no llama-server build (tools/bench_lib/llama.py)")
    import subprocess

    port = free_port()
    threads = str(len(os.sched_getaffinity(0)))
    proc = subprocess.Popen([str(binary), "-m", str(gguf), "--port", str(port), "-t", threads,
                             "-c", "4096", "-np", "1", "--no-warmup"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        url = f"http://127.0.0.1:{port}"
        with httpx.Client(base_url=url, timeout=120) as client:
            import time

            deadline = time.monotonic() + 120
            while True:
                try:
                    if client.get("/health").status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise SystemExit("--llama: llama-server did not start")
                time.sleep(0.5)

            def complete(ids: list[int], n: int) -> list[int]:
                body = {"prompt": ids, "n_predict": n, "temperature": 0, "top_k": 1,
                        "cache_prompt": True, "return_tokens": True, "samplers": ["top_k"]}
                reply = client.post("/completion", json=body).json()
                return [int(t) for t in reply.get("tokens", [])][:n]

            row = Row(name, "file", "llama.cpp", 0, 0, 0, len(prompts), 0.0)
            prefix_total = 0
            for ids, (cont, hf_top) in zip(prompts, reference, strict=True):
                seq = ids + cont
                for i in range(1, len(seq) + 1):  # position i - 1 predicts token i
                    got = complete(seq[:i], 1)
                    row.positions += 1
                    row.agree += bool(got) and got[0] == hf_top[i - 1]
                mine: list[int] = []  # one token a call: past an end-of-turn token too,
                for _ in range(tokens):  # as the reference and afm's greedy rows decode
                    got = complete(ids + mine, 1)
                    if not got:
                        break
                    mine.append(got[0])
                common = next((i for i, (a, b) in enumerate(zip(mine, cont, strict=False))
                               if a != b),
                              min(len(mine), len(cont)))
                prefix_total += common
                row.same += mine == cont
            row.prefix = prefix_total / len(prompts)
            return row
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()


def run(gguf: Path, name: str, dequants: list[str], paths: list[str] | None = None,
        prompts: list[str] | None = None, tokens: int = TOKENS, llama: bool = False
        ) -> list[Row]:
    """Rows for one file: each dequantization mode and kernel path (and llama.cpp's)."""
    tokenizer = None
    rows: list[Row] = []
    reference = None
    for dequant in dequants:
        model, tokenizer = afm_model(gguf, dequant)
        ids = chat_ids(tokenizer, prompts or PROMPTS)
        if reference is None:
            reference = hf_reference(gguf, ids, tokens)
        for path in paths or kernel_paths():
            rows.append(measure(model, name, dequant, path, ids, reference, tokens))
        del model
    if llama and reference is not None:
        rows.append(llama_row(gguf, name, ids, reference, tokens))
    return rows


def main() -> None:
    from afm.real_models import MODELS, cached_path

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", nargs="+", default=["smollm2", "qwen-0.5b"])
    ap.add_argument("--tokens", type=int, default=TOKENS)
    ap.add_argument("--dequant", nargs="+", default=["float32"],
                    help="how non-native tensors are stored (AFM_GGUF_DEQUANT values)")
    ap.add_argument("--paths", nargs="+", help="kernel paths (default: every one this CPU runs)")
    ap.add_argument("--llama", action="store_true",
                    help="also llama.cpp's row (llama-server on the same file)")
    args = ap.parse_args()
    print(f"{len(PROMPTS)} chat prompts, {args.tokens} greedy tokens each; reference: HF "
          "transformers on the same GGUF file (float32)\n")
    print(HEADER)
    for name in args.models:
        path = cached_path(name)
        if path is None:
            sys.exit(f"{name} ({MODELS[name].filename}) is not cached: run "
                     f"`afm fetch-models {name}` (tools/setup.sh does)")
        for row in run(path, name, args.dequant, args.paths, tokens=args.tokens,
                       llama=args.llama):
            print(row.cells(), flush=True)



if __name__ == "__main__":
    main()
