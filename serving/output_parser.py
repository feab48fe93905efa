"""Incremental split of generated text into reasoning, content and tool calls.

Feed the engine's text deltas to :meth:`OutputProcessor.feed`; it returns OpenAI-shaped
:class:`Delta` objects. At the end, :meth:`OutputProcessor.flush` returns the deltas held back and
:meth:`OutputProcessor.finish` the :class:`FinalOutput`, which always equals the concatenation of
everything streamed (same calls, ids and arguments). A non-streaming caller feeds the whole text
once and calls ``finish()``.

Rules:

- Reasoning: output starts inside ``<think>`` when ``reasoning_started`` (the prompt opened it), or
  when the output itself opens with ``<think>``; everything up to ``</think>`` is reasoning.
- Text that may be the start of a marker (``</thi``, ``<tool_``) is held back until decided.
- A tool call streams as it is written: one delta with index, id and name (arguments ``""``)
  once its name is complete (and names one of the tools), then argument fragments as they grow
  (:mod:`serving.argument_stream`: never a prefix that already parses as a whole JSON object),
  then the rest when its block ends. Formats that cannot tell a partial call emit it whole at
  the end of its block. A complete but unreadable block that streamed nothing becomes content;
  a block cut short after its call started (the token limit) ends as that call with the
  arguments read so far.
- Output cut by the token limit (``flush(truncated=True)``) never ends in markup: a call block
  cut before its name (or before anything readable) is dropped (no content, no call), and so is
  a trailing partial marker (``<tool_``, ``</thi``) held back until then.
- Content and reasoning are stripped of leading and trailing whitespace (trailing whitespace is
  held back until more text arrives).
- ``parallel_tool_calls=False`` keeps only the first call.
- With ``repair`` (the server's default; ``--strict-tool-calls`` turns it off), a reply that is
  nothing but one JSON call object outside the format's markup (:mod:`engine.tool_repair`: a
  ```` ```json ```` fence or a bare object naming a declared tool, arguments valid against its
  schema) is that call. Content that opens with ```` ``` ```` or ``{`` is held back while it
  may still become one, then emitted as the call or as text; ``on_repair`` gets the note.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field

from engine.reasoning import THINK_END, THINK_START
from engine.tool_args import ParsedCall, new_call_id
from engine.tool_formats import get_format
from engine.tool_repair import may_repair, repair_call
from serving.argument_stream import ArgumentStream, dumps

log = logging.getLogger(__name__)


@dataclass
class ToolCallDelta:
    """A piece of one tool call: the first carries id and name, later ones argument text."""

    index: int
    id: str | None = None
    name: str | None = None
    arguments: str = ""


@dataclass
class Delta:
    content: str | None = None
    reasoning_content: str | None = None
    tool_call: ToolCallDelta | None = None


@dataclass
class FinalOutput:
    content: str | None
    reasoning_content: str | None
    tool_calls: list[ParsedCall] = field(default_factory=list)


def _suffix_prefix_len(text: str, marker: str) -> int:
    """Longest suffix of ``text`` that is a proper prefix of ``marker``."""
    for n in range(min(len(marker) - 1, len(text)), 0, -1):
        if text.endswith(marker[:n]):
            return n
    return 0


class _Channel:
    """Accumulates one stripped text channel; returns what is safe to emit now."""

    def __init__(self) -> None:
        self.started = False
        self.pending_ws = ""
        self.parts: list[str] = []

    def push(self, text: str) -> str:
        if not self.started:
            text = text.lstrip()
            if not text:
                return ""
            self.started = True
        text = self.pending_ws + text
        body = text.rstrip()
        self.pending_ws = text[len(body) :]
        if body:
            self.parts.append(body)
        return body

    def value(self) -> str | None:
        return "".join(self.parts) if self.parts else None


@dataclass
class _OpenCall:
    """A call whose block is still being written: what the client has been sent."""

    index: int
    id: str
    name: str
    args: ArgumentStream


class OutputProcessor:
    """Streaming splitter for one choice. Not thread-safe; one per request."""

    def __init__(
        self,
        tool_format: str = "hermes",
        tools: list[dict] | None = None,
        reasoning_started: bool = False,
        parse_tools: bool = True,
        *,
        parallel_tool_calls: bool = True,
        parse_reasoning: bool = True,
        repair: bool = False,
        on_repair: Callable[[str], None] | None = None,
    ) -> None:
        self.format = get_format(tool_format)
        self.fmt = self.format.name
        self.tools = tools
        self.parse_tools = parse_tools
        self.parallel_tool_calls = parallel_tool_calls
        self.parse_reasoning = parse_reasoning
        self.repair = repair and parse_tools and bool(tools)
        self.on_repair = on_repair
        self._held = False  # content held back while it may become a repaired call
        # states: "start" (may open <think>), "reasoning", "content", "tool"
        self.state = "reasoning" if (reasoning_started and parse_reasoning) else "start"
        self.buf = ""
        self.reasoning = _Channel()
        self.content = _Channel()
        self.calls: list[ParsedCall] = []
        self._open: list[_OpenCall] = []  # calls of the current block streamed so far
        self._out: list[Delta] = []
        self._finished = False
        self._truncated = False

    # ------------------------------------------------------------------ public

    def feed(self, text: str) -> list[Delta]:
        """Consume a text delta; return the deltas that are now certain."""
        if self._finished:
            raise RuntimeError("feed() after finish()")
        self.buf += text
        self._run(final=False)
        return self._take()

    def flush(self, truncated: bool = False) -> list[Delta]:
        """End of output: decide everything held back and return the last deltas.
        ``truncated``: the token limit cut the output (markup left open is dropped)."""
        if not self._finished:
            self._truncated = truncated
            self._run(final=True)
            self._finished = True
        return self._take()

    def finish(self, truncated: bool = False) -> FinalOutput:
        """The whole output (flushes first, with ``truncated``, if :meth:`flush` was not
        called)."""
        self.flush(truncated)
        content = self.content.value()
        if content is None and not self.calls:
            content = ""
        return FinalOutput(content, self.reasoning.value(), list(self.calls))

    # ------------------------------------------------------------------ machinery

    def _take(self) -> list[Delta]:
        out, self._out = self._out, []
        merged: list[Delta] = []
        for d in out:
            if merged and d.tool_call is None and merged[-1].tool_call is None:
                last = merged[-1]
                if d.content is not None and last.content is not None:
                    last.content += d.content
                    continue
                if d.reasoning_content is not None and last.reasoning_content is not None:
                    last.reasoning_content += d.reasoning_content
                    continue
            merged.append(d)
        return merged

    def _emit_content(self, text: str) -> None:
        s = self.content.push(text)
        if s:
            self._out.append(Delta(content=s))

    def _emit_reasoning(self, text: str) -> None:
        s = self.reasoning.push(text)
        if s:
            self._out.append(Delta(reasoning_content=s))

    def _emit_calls(self, calls: list[ParsedCall]) -> None:
        """Close the block's calls: those already streamed get the rest of their arguments,
        the others are emitted whole."""
        for k, call in enumerate(calls):
            if k < len(self._open):
                self._close_open(self._open[k], call)
                continue
            if self.calls and not self.parallel_tool_calls:
                log.info("parallel_tool_calls=false: dropped extra call to %s", call.name)
                continue
            idx = len(self.calls)
            self.calls.append(call)
            self._out.append(Delta(tool_call=ToolCallDelta(idx, call.id, call.name, "")))
            self._out.append(Delta(tool_call=ToolCallDelta(idx, arguments=call.arguments_json)))
        self._open = []

    def _close_open(self, open_call: _OpenCall, call: ParsedCall) -> None:
        rest = open_call.args.finish(call.arguments_json) if call.name == open_call.name else None
        if rest is None:  # the block contradicts what was streamed: keep what the client has
            log.warning("tool call %s ended unlike its streamed start; arguments cut to %r",
                        open_call.name, open_call.args.sent)
            arguments, rest = open_call.args.sent, ""
        else:
            arguments = call.arguments_json
        self.calls.append(ParsedCall(open_call.name, arguments, id=open_call.id))
        if rest:
            self._out.append(Delta(tool_call=ToolCallDelta(open_call.index, arguments=rest)))

    def _stream_open_calls(self, block: str) -> None:
        """Stream the calls of an incomplete block: a call's id and name once its name is
        complete, then its arguments as they grow (never a prefix that parses as whole JSON)."""
        names = {(t.get("function") or {}).get("name") for t in self.tools or []}
        for k, (name, args) in enumerate(self.format.partial_calls(block, self.tools)):
            if k == len(self._open):
                if (self.calls or self._open) and not self.parallel_tool_calls:
                    return
                if self.tools and name not in names:
                    return  # not a call this request allows: decided when the block ends
                index = len(self.calls) + len(self._open)
                self._open.append(_OpenCall(index, new_call_id(), name, ArgumentStream()))
                self._out.append(Delta(tool_call=ToolCallDelta(index, self._open[k].id, name,
                                                               "")))
            open_call = self._open[k]
            if open_call.name != name:
                return
            piece = open_call.args.update(args)
            if piece:
                self._out.append(Delta(tool_call=ToolCallDelta(open_call.index, arguments=piece)))

    def _calls_so_far(self, block: str) -> list[ParsedCall] | None:
        """The streamed calls of a block that ended unreadable (cut by the token limit),
        with their arguments closed as read so far; None when none was streamed."""
        if not self._open:
            return None
        partial = self.format.partial_calls(block, self.tools)[: len(self._open)]
        return [ParsedCall(name, dumps(args) if isinstance(args, dict) else "{}")
                for name, args in partial] or None

    def _run(self, final: bool) -> None:
        while True:
            before = (self.state, len(self.buf))
            getattr(self, "_step_" + self.state)(final)
            if (self.state, len(self.buf)) == before:
                return

    def _step_start(self, final: bool) -> None:
        stripped = self.buf.lstrip()
        if not self.parse_reasoning:
            self.state = "content"
        elif stripped.startswith(THINK_START):
            self.buf = stripped[len(THINK_START) :]
            self.state = "reasoning"
        elif final and self._truncated and stripped and THINK_START.startswith(stripped):
            self.buf = ""  # cut inside the opening marker
        elif final or not THINK_START.startswith(stripped):
            self.state = "content"
        # else: still a prefix of <think>: wait

    def _step_reasoning(self, final: bool) -> None:
        i = self.buf.find(THINK_END)
        if i != -1:
            self._emit_reasoning(self.buf[:i])
            self.buf = self.buf[i + len(THINK_END) :]
            self.state = "content"
            return
        keep = 0 if final and not self._truncated else _suffix_prefix_len(self.buf, THINK_END)
        self._emit_reasoning(self.buf[: len(self.buf) - keep])
        self.buf = "" if final else self.buf[len(self.buf) - keep :]

    def _repaired(self, text: str) -> bool:
        """Emit ``text`` (the whole reply) as the call it stands for, if the rule reads one."""
        got = repair_call(text, self.tools) if self.repair and not self._truncated else None
        if got is None:
            return False
        calls, note = got
        log.info("%s", note)
        if self.on_repair is not None:
            self.on_repair(note)
        self._emit_calls(calls)
        return True

    def _step_content(self, final: bool) -> None:
        if not self.parse_tools:
            self._emit_content(self.buf)
            self.buf = ""
            return
        at_start = not self.content.started and not self.calls and not self._open
        if self.format.bare_calls and at_start:
            if self.format.opens_bare(self.buf):
                self.state = "tool"
                return
            if not final and (not self.buf.strip() or self.format.may_open_bare(self.buf)):
                return
        if self.repair and at_start and (self._held or not self.buf.strip()
                                         or self.buf.lstrip()[:1] in ("`", "{")):
            if not final and may_repair(self.buf):
                self._held = True
                return  # decided at the end, or once it cannot be a call
            self._held = False
            if final and self._repaired(self.buf):
                self.buf = ""
                return
        start = self.format.find_start(self.buf)
        if start != -1:
            self._emit_content(self.buf[:start])
            self.buf = self.buf[start:]
            self.state = "tool"
            return
        keep = (0 if final and not self._truncated
                else self.format.partial_marker_len(self.buf))
        self._emit_content(self.buf[: len(self.buf) - keep])
        self.buf = "" if final else self.buf[len(self.buf) - keep :]

    def _step_tool(self, final: bool) -> None:
        end = self.format.block_end(self.buf)
        open_block = end is None
        if end is None:
            if not final:
                self._stream_open_calls(self.buf)
                return
            end = len(self.buf)
        block, self.buf = self.buf[:end], self.buf[end:]
        self.state = "content"
        if not block:
            return
        calls = self.format.parse_block(block, self.tools) or self._calls_so_far(block)
        whole = not self.content.started and not self.calls and not self.buf
        if calls is None and whole and self.format.find_start(block) != 0 \
                and self._repaired(block):  # a bare opening the format cannot read
            return
        if calls is None and open_block and self._truncated and self.format.may_be_call(block):
            log.info("%s tool call cut by the token limit before its name: dropped %.200r",
                     self.fmt, block)
        elif calls is None:
            log.warning("unreadable %s tool call left in content: %.200r", self.fmt, block)
            self._emit_content(block)
        else:
            self._emit_calls(calls)
