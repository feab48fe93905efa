"""Raw decode speed of the bench model's formats in one process, with the CPU weight policy.

Loads the float32 bench model and its bf16 / 8-bit / 4-bit copies (made by ``mlx_lm convert``,
cached next to the model) with ``--cpu-weights auto`` (bf16 converted to float32 at load; 4- and
8-bit on AFM's native quantized kernel when it is built), the 4-bit copy converted to float32
(``--cpu-weights float32``) and on MLX's own quantized kernel (no policy applied), and times
greedy batched decode steps (no HTTP) at batch 1 and 8,
all models interleaved in each round (the order rotates); figures are medians of the rounds.
One process and interleaving keep the ratios meaningful on a shared machine::

    python tools/bench_formats.py [--rounds 3] [--tokens 64] [--out FILE]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.blas import blas_report  # noqa: E402  (before mlx.core)

ROWS = (("float32", None, "auto"), ("bf16", "bf16", "auto"), ("8-bit", "8bit", "auto"),
        ("4-bit", "4bit", "auto"), ("4-bit", "4bit", "float32"),
        ("4-bit, MLX's quantized kernel", "4bit", None))
"""(label, copy, --cpu-weights mode); mode None: weights as loaded, MLX's own kernels."""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--tokens", type=int, default=64)
    parser.add_argument("--native-tokens", type=int, default=16,
                        help="decode steps for the MLX-kernel row (scalar kernels: slow)")
    parser.add_argument("--batch", type=int, nargs="+", default=[1, 8])
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    info = blas_report()
    from mlx_lm import load

    from engine.cpu_weights import WeightsChoice, apply
    from modelbuilder import ensure_model
    from tools.bench_lib.formats import model_copy
    from tools.bench_lib.raw import decode_tok_s

    base = ensure_model("bench")
    models = []
    for label, fmt, mode in ROWS:
        model = load(str(model_copy(base, fmt) if fmt else base))[0]
        choice = (apply(model, mode, what=label) if mode else
                  WeightsChoice("none", "MLX kernel", fmt or "float32", False, "as loaded"))
        label = f"{label} ({mode or 'as loaded'})"
        decode_tok_s(model, 1, 4, 8)  # warm-up
        models.append((label, model, choice, args.tokens if mode else args.native_tokens))
    figures: dict[tuple[str, int], list[float]] = {}
    for r in range(args.rounds):
        for label, model, _, tokens in models[r:] + models[:r]:  # rotate: no fixed slot
            for b in args.batch:
                tok_s = decode_tok_s(model, b, tokens, 32)["tok_s"]
                figures.setdefault((label, b), []).append(tok_s)
                print(f"round {r + 1} {label} B={b}: {tok_s:.1f} tok/s", file=sys.stderr)
    head = ["Weights", "CPU weights", *(f"B={b} tok/s" for b in args.batch),
            *(f"B={b} vs float32" for b in args.batch)]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    ref = {b: statistics.median(figures[("float32 (auto)", b)]) for b in args.batch}
    for label, _, choice, _ in models:
        med = {b: statistics.median(figures[(label, b)]) for b in args.batch}
        lines.append("| " + " | ".join([
            label, f"{choice.mode}: {choice.weights}" + (" (converted)" if choice.converted
                                                       else ""),
            *(f"{med[b]:.1f}" for b in args.batch),
            *(f"{med[b] / ref[b]:.2f}x" for b in args.batch)]) + " |")
    table = "\n".join(lines)
    note = (f"BLAS {info.name}, {info.gflops:.0f} GFLOP/s, {info.threads} thread(s); "
            f"median of {args.rounds} interleaved rounds, {args.tokens} decode steps "
            f"({args.native_tokens} on MLX's quantized kernel) after a 32-token prompt.")
    print(table + "\n\n" + note)
    if args.out:
        args.out.write_text(table + "\n\n" + note + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
