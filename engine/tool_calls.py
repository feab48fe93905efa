"""Tool calls in complete model output: :func:`parse_tool_calls`, plus the public names of the
tool-call modules (formats live in :mod:`engine.tool_formats`, values in :mod:`engine.tool_args`).

A call block the parser cannot read is left in the content and logged; it is never dropped.
Serving's streaming :class:`serving.output_parser.OutputProcessor` scans with the same format
objects, so streamed and non-streamed parsing agree.
"""

from __future__ import annotations

import logging

from engine.tool_args import ParsedCall, convert_param_value, new_call_id
from engine.tool_formats import FORMATS, TOOL_FORMATS, detect_tool_format, get_format

__all__ = [
    "FORMATS",
    "TOOL_FORMATS",
    "ParsedCall",
    "check_format",
    "convert_param_value",
    "detect_tool_format",
    "new_call_id",
    "parse_tool_calls",
]

log = logging.getLogger(__name__)


def check_format(fmt: str) -> str:
    """Return ``fmt`` if it is a known tool format, else raise ValueError."""
    return get_format(fmt).name


def parse_tool_calls(
    text: str, fmt: str, tools: list[dict] | None = None
) -> tuple[str | None, list[ParsedCall]]:
    """Split complete model output into (content, calls).

    Content is the text outside call blocks, stripped; None when empty and calls were found.
    Unreadable blocks stay in content (logged). Unterminated blocks run to the end of the text.
    """
    form = get_format(fmt)
    parts: list[str] = []
    calls: list[ParsedCall] = []
    pos = 0
    if form.opens_bare(text):
        got = form.parse_bare(text)
        if got is None and form.find_start(text) == -1:
            got = form.parse_block(text, tools)  # a whole-output call without its markers
        if got is not None:
            return None, got
    while True:
        start = form.find_start(text, pos)
        if start == -1:
            parts.append(text[pos:])
            break
        parts.append(text[pos:start])
        end = form.block_end(text[start:])
        end = len(text) if end is None else start + end
        block = text[start:end]
        got = form.parse_block(block, tools)
        if got is None:
            log.warning("unreadable %s tool call left in content: %.200r", fmt, block)
            parts.append(block)
        else:
            calls.extend(got)
        pos = end
    content = "".join(parts).strip()
    return (None if not content and calls else content), calls
