"""Stop-string matching over streamed text.

:class:`StopMatcher` receives decoded text piece by piece and returns only text that can never
become part of a stop string: it holds back the longest tail that is a prefix of some stop string,
and when a stop string completes it returns the text before it and reports the stop. The stop
string itself is never returned; :attr:`StopMatcher.matched` names it.
"""

from __future__ import annotations


class StopMatcher:
    """Find stop strings across chunk boundaries without leaking partial matches."""

    def __init__(self, stops: tuple[str, ...] | list[str]) -> None:
        self.stops = tuple(s for s in dict.fromkeys(stops) if s)
        self._pending = ""
        self.stopped = False
        self.matched: str | None = None

    def feed(self, text: str) -> str:
        """Add ``text``; return what is now safe to emit. Sets :attr:`stopped` on a match."""
        if self.stopped:
            return ""
        if not self.stops:
            return text
        pending = self._pending + text
        cut = -1
        for stop in self.stops:
            idx = pending.find(stop)
            if idx != -1 and (cut == -1 or idx < cut):
                cut, self.matched = idx, stop
        if cut != -1:
            self.stopped = True
            self._pending = ""
            return pending[:cut]
        hold = self._held_suffix(pending)
        self._pending = pending[len(pending) - hold :] if hold else ""
        return pending[: len(pending) - hold]

    def flush(self) -> str:
        """Return any held-back text (the stream ended without a stop)."""
        out, self._pending = ("" if self.stopped else self._pending), ""
        return out

    def _held_suffix(self, text: str) -> int:
        """Length of the longest suffix of ``text`` that is a proper prefix of a stop string."""
        best = 0
        for stop in self.stops:
            for n in range(min(len(stop) - 1, len(text)), best, -1):
                if text.endswith(stop[:n]):
                    best = n
                    break
        return best
