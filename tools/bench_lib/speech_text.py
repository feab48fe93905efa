"""Fixed English sentences for speech round trips and the word error count that scores them
(shared by tests/test_speech.py and tools/bench_speech.py)."""

from __future__ import annotations

import re

SENTENCES = (
    "The quick brown fox jumps over the lazy dog.",
    "Please call me back after lunch on Tuesday.",
    "Local servers can turn speech into text and back again.",
    "She sold twelve red apples at the market this morning.",
    "Turn left at the second light and park behind the library.",
    "The meeting moved to Thursday because the room was booked.",
)


def word_edits(reference: str, hypothesis: str) -> tuple[int, int]:
    """(word edits, reference words) after lower-casing and dropping punctuation: the word
    error rate is their ratio."""
    ref, hyp = (re.findall(r"[a-z0-9']+", s.lower()) for s in (reference, hypothesis))
    row = list(range(len(hyp) + 1))
    for i, r in enumerate(ref, 1):
        prev, row[0] = row[0], i
        for j, h in enumerate(hyp, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (r != h))
    return row[-1], len(ref)
