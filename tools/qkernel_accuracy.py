"""What the native quantized kernel's paths do to a model's logits, as a Markdown table.

For each bit width, the bench model (modelbuilder "bench") is quantized in memory and decoded
greedily by MLX's own quantized kernels (the reference); the same quantized model on each of the
native kernel's paths (``AFM_QMM_ISA`` values this CPU runs: the exact float paths and the
int8-activation ones) is fed the same tokens and its logits compared step by step
(``tools/bench_lib/accuracy.py``). A last row per bit width compares the float32 model with the
quantized reference: what rounding the weights themselves moved, for scale.

Usage: .venv/bin/python tools/qkernel_accuracy.py [--steps 64] [--bits 4 8] [--preset bench]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import mlx.core as mx  # noqa: E402

from engine import qkernels  # noqa: E402
from tools.bench_lib.accuracy import HEADER, logit_shift  # noqa: E402

PROMPT = [5, 17, 300, 42, 1024, 7, 99, 2048, 12, 640, 3, 77]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=64)
    ap.add_argument("--bits", type=int, nargs="+", default=[4, 8])
    ap.add_argument("--group-size", type=int, default=64)
    ap.add_argument("--preset", default="bench")
    args = ap.parse_args()
    if not qkernels.available():
        sys.exit(f"native kernels not built ({qkernels.unavailable_reason()})")
    from mlx_lm import load
    from mlx_lm.utils import quantize_model

    from modelbuilder import ensure_model

    path = str(ensure_model(args.preset))
    ext = qkernels._ext
    paths = list(ext.supported_isas()) + list(ext.int8_isas())
    print(f"{args.preset} model ({path}), prompt of {len(PROMPT)} tokens, {args.steps} greedy "
          f"steps, group size {args.group_size}; reference: MLX's own quantized kernels\n")
    print(f"| bits | path {HEADER}")
    print("|---|---|---|---|---|---|---|---|")
    for bits in args.bits:
        reference, _tok, config = load(path, return_config=True)
        quantize_model(reference, config, group_size=args.group_size, bits=bits)
        for isa in paths:
            model, _tok, config = load(path, return_config=True)
            quantize_model(model, config, group_size=args.group_size, bits=bits)
            qkernels.use_native_kernels(model, mx.Device(mx.cpu))
            for b in (4, 8):
                ext.set_auto_isa(b, isa)
            shift = logit_shift(reference, model, PROMPT, args.steps)
            print(f"| {bits} | {isa} {shift.row()}")
        float32 = load(path)[0]
        shift = logit_shift(reference, float32, PROMPT, args.steps)
        print(f"| {bits} | float32 weights (for scale) {shift.row()}")


if __name__ == "__main__":
    main()
