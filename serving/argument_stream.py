"""Streaming a tool call's arguments while the model is still writing them.

The arguments a client finally reads are ``json.dumps(args, ensure_ascii=False)`` of the
parsed object (the non-streamed reply's ``arguments``). While the call is open, the partial
object (read with :func:`engine.tool_args.parse_partial`, jiter's partial mode) is dumped the
same way and cut back to a prefix that every completion of it keeps: closing brackets, a
string that may go on, and a number that may grow are held back. Such a prefix never parses
as complete JSON (its outer ``}`` is held back), so clients that close a call once its
arguments parse (the Vercel AI SDK) wait for the real end. :class:`ArgumentStream` emits only
growth of that prefix, then the rest.
"""

from __future__ import annotations

import json
import re
from typing import Any

_NUMBER_TAIL = re.compile(r"-?[0-9][0-9.eE+\-]*$")


def dumps(args: dict[str, Any]) -> str:
    """The canonical text of an arguments object (as parsed calls carry it)."""
    return json.dumps(args, ensure_ascii=False)


def stable_prefix(partial: dict[str, Any]) -> str:
    """The part of ``dumps(partial)`` that ``dumps`` of every completion of it starts with."""
    text = dumps(partial).rstrip("}]")
    # the last string may go on; the last number may grow
    return text[:-1] if text.endswith('"') else _NUMBER_TAIL.sub("", text)


class ArgumentStream:
    """Argument fragments of one call, as its text grows: ``update`` with each partial
    object, ``finish`` with the final arguments text; the fragments concatenate to it."""

    def __init__(self) -> None:
        self.sent = ""

    def update(self, partial: Any) -> str:
        """New argument text that is safe to send now ("" when none)."""
        if not isinstance(partial, dict):
            return ""
        prefix = stable_prefix(partial)
        if len(prefix) <= len(self.sent) or not prefix.startswith(self.sent):
            return ""
        piece, self.sent = prefix[len(self.sent):], prefix
        return piece

    def finish(self, arguments_json: str) -> str | None:
        """The rest of the arguments, or None when what was sent is not their start
        (the caller must then treat the call as unreadable)."""
        if not arguments_json.startswith(self.sent):
            return None
        piece, self.sent = arguments_json[len(self.sent):], arguments_json
        return piece
