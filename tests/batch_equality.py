"""The one rule for "a request batched with others equals the same request run alone".

Tokens are identical, except that the runs may part at a near-tie: a step where the top-2
logprobs (at temperature 0, the logits gap) of either run are within :data:`NEAR_TIE` of each
other, which float rounding under a different batch shape can flip. After such a flip the
continuations legitimately differ. Logprobs of the shared tokens agree within
:data:`LOGPROB_ABS`. Used by ``test_engine_batching.py`` (engine) and ``test_load.py`` (HTTP).
"""

from __future__ import annotations

from collections.abc import Sequence

NEAR_TIE = 1e-4
LOGPROB_ABS = 0.01


def same_or_near_tie(solo: Sequence[object], solo_gaps: Sequence[float],
                     batched: Sequence[object], batched_gaps: Sequence[float],
                     solo_logprobs: Sequence[float] = (),
                     batched_logprobs: Sequence[float] = ()) -> bool:
    """True when identical; False when the runs part at a near-tie; AssertionError otherwise.

    ``*_gaps[i]`` is the top-1 minus top-2 logprob at step ``i``.
    """
    for step, (x, y) in enumerate(zip(solo, batched, strict=False)):
        if x != y:
            gap = min(solo_gaps[step], batched_gaps[step])
            assert gap < NEAR_TIE, f"runs part at step {step} without a near-tie (gap {gap})"
            return False
        if step < min(len(solo_logprobs), len(batched_logprobs)):
            diff = abs(solo_logprobs[step] - batched_logprobs[step])
            assert diff < LOGPROB_ABS, f"logprob at step {step} differs by {diff}"
    assert len(solo) == len(batched), (len(solo), len(batched))
    return True
