"""How far one model's logits move from a reference's: teacher-forced greedy decoding.

The reference decodes greedily from a prompt; the candidate is fed the same tokens (so one early
difference does not make every later step incomparable), and each step's logits are compared.
Used to state what the quantized kernel's int8-activation paths cost in accuracy
(``tools/qkernel_accuracy.py``, ``tests/test_qkernels.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import mlx.core as mx


@dataclass
class LogitShift:
    """Per-step logit differences of a candidate from a reference over the same tokens."""

    steps: int = 0
    max_abs: float = 0.0  # largest |candidate - reference| over all steps and vocabulary
    rel_rms: float = 0.0  # RMS of the difference / RMS of the reference's centred logits
    logit_range: float = 0.0  # mean over steps of the reference's max - min
    top1_agree: int = 0  # steps whose argmax is the reference's
    # the reference's top-1 minus top-2 logit at each step where the argmaxes differ
    margins: list[float] = field(default_factory=list)
    first_greedy_difference: int | None = None  # free-running greedy: first differing step

    def row(self) -> str:
        worst = f"{max(self.margins):.3g}" if self.margins else "-"
        first = "-" if self.first_greedy_difference is None else str(self.first_greedy_difference)
        return (f"| {self.max_abs:.3g} | {self.max_abs / self.logit_range:.2%} | "
                f"{self.rel_rms:.2%} | {self.top1_agree}/{self.steps} | {worst} | {first} |")


HEADER = ("| max abs shift | of logit range | RMS shift / RMS logit | same top-1 (teacher-forced) "
          "| largest top-2 margin where top-1 differs | first differing greedy step |")


def _step_logits(model: Any, tokens: list[int], cache: Any) -> mx.array:
    return model(mx.array([tokens]), cache=cache)[0, -1, :].astype(mx.float32)


def greedy_tokens(model: Any, prompt: list[int], steps: int) -> list[int]:
    """``steps`` greedy tokens after ``prompt``."""
    from mlx_lm.models.cache import make_prompt_cache

    cache = make_prompt_cache(model)
    logits = _step_logits(model, prompt, cache)
    out = []
    for _ in range(steps):
        tok = int(mx.argmax(logits).item())
        out.append(tok)
        logits = _step_logits(model, [tok], cache)
    return out


def logit_shift(reference: Any, candidate: Any, prompt: list[int], steps: int) -> LogitShift:
    """Teacher-forced comparison over ``steps`` greedy steps of ``reference`` after ``prompt``."""
    from mlx_lm.models.cache import make_prompt_cache

    tokens = greedy_tokens(reference, prompt, steps)
    ref_cache, cand_cache = make_prompt_cache(reference), make_prompt_cache(candidate)
    feed = prompt
    out = LogitShift(steps=steps)
    sq_diff = sq_ref = ranges = 0.0
    for tok in tokens:
        ref = _step_logits(reference, feed, ref_cache)
        cand = _step_logits(candidate, feed, cand_cache)
        diff = cand - ref
        centred = ref - mx.mean(ref)
        out.max_abs = max(out.max_abs, mx.max(mx.abs(diff)).item())
        sq_diff += mx.mean(diff * diff).item()
        sq_ref += mx.mean(centred * centred).item()
        ranges += (mx.max(ref) - mx.min(ref)).item()
        if int(mx.argmax(cand).item()) == tok:
            out.top1_agree += 1
        else:
            top2 = mx.sort(ref)[-2:]
            out.margins.append((top2[1] - top2[0]).item())
        feed = [tok]
    out.rel_rms = (sq_diff / sq_ref) ** 0.5 if sq_ref else 0.0
    out.logit_range = ranges / max(1, steps)
    free = greedy_tokens(candidate, prompt, steps)
    out.first_greedy_difference = next(
        (i for i, (a, b) in enumerate(zip(tokens, free, strict=True)) if a != b), None)
    return out
