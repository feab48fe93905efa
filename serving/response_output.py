"""Responses API output: parsed engine deltas -> output items and the typed stream events.

One :class:`OutputBuilder` serves both replies: a streamed response forwards the events it
returns, a whole response feeds it every delta at once and keeps only its items, so the two
always agree. Items open in the order their text arrives (reasoning, message text, function
calls); an item closes when another kind starts or the output ends. Argument text is forwarded
as the output parser gives it (one fragment or several).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from serving import ids
from serving.output_parser import Delta
from serving.sealed import seal

Event = dict[str, Any]


def output_text_part(text: str = "") -> dict[str, Any]:
    return {"type": "output_text", "text": text, "annotations": [], "logprobs": []}


def reasoning_part(text: str = "") -> dict[str, Any]:
    return {"type": "reasoning_text", "text": text}


@dataclass
class _Open:
    """The item being written: its index in ``output``, kind and accumulated text."""

    index: int
    kind: str  # "reasoning", "message" or "call"
    call_index: int | None = None
    text: list[str] = field(default_factory=list)


class OutputBuilder:
    """Builds ``output`` items from :class:`serving.output_parser.Delta` objects, returning the
    stream events (without ``sequence_number``) each delta causes."""

    def __init__(self, names: dict[str, tuple[str, str]] | None = None,
                 seal_key: bytes | None = None) -> None:
        self.items: list[dict[str, Any]] = []
        self._open: _Open | None = None
        self._names = names or {}  # `<namespace>.<name>` -> (namespace, name)
        self._seal_key = seal_key  # reasoning items get encrypted_content when set

    # ------------------------------------------------------------------ public
    def feed(self, deltas: list[Delta]) -> list[Event]:
        events: list[Event] = []
        for delta in deltas:
            if delta.reasoning_content is not None:
                events += self._text("reasoning", delta.reasoning_content)
            if delta.content is not None:
                events += self._text("message", delta.content)
            if delta.tool_call is not None:
                events += self._call(delta.tool_call)
        return events

    def finish(self, incomplete: bool = False) -> list[Event]:
        """Close the open item (``incomplete`` when the token limit cut it); an output with no
        item at all gets an empty message, as a whole response has one."""
        events: list[Event] = []
        if not self.items and not incomplete:
            events += self._open_item("message")
        events += self._close("incomplete" if incomplete else "completed")
        return events

    @property
    def has_calls(self) -> bool:
        return any(item["type"] == "function_call" for item in self.items)

    def reasoning_text(self) -> str:
        return "".join(part["text"] for item in self.items if item["type"] == "reasoning"
                       for part in item.get("content", []))

    # ------------------------------------------------------------------ items
    def _text(self, kind: str, text: str) -> list[Event]:
        events: list[Event] = []
        if self._open is None or self._open.kind != kind:
            events += self._close("completed")
            events += self._open_item(kind)
        assert self._open is not None
        self._open.text.append(text)
        item = self.items[self._open.index]
        events.append({"type": "response.output_text.delta" if kind == "message"
                       else "response.reasoning_text.delta",
                       "item_id": item["id"], "output_index": self._open.index,
                       "content_index": 0, "delta": text,
                       **({"logprobs": []} if kind == "message" else {})})
        return events

    def _call(self, delta: Any) -> list[Event]:
        events: list[Event] = []
        if delta.id is not None:
            events += self._close("completed")
            index = len(self.items)
            item = {"type": "function_call", "id": ids.new_id("fc_"), "call_id": delta.id,
                    "name": delta.name or "", "arguments": "", "status": "in_progress"}
            if delta.name in self._names:
                item["namespace"], item["name"] = self._names[delta.name]
            self.items.append(item)
            self._open = _Open(index, "call", call_index=delta.index)
            events.append({"type": "response.output_item.added", "output_index": index,
                           "item": dict(item)})
        if self._open is None or self._open.kind != "call" or not delta.arguments:
            return events
        self._open.text.append(delta.arguments)
        events.append({"type": "response.function_call_arguments.delta",
                       "item_id": self.items[self._open.index]["id"],
                       "output_index": self._open.index, "delta": delta.arguments})
        return events

    def _open_item(self, kind: str) -> list[Event]:
        index = len(self.items)
        if kind == "message":
            item = {"type": "message", "id": ids.new_id("msg_"), "status": "in_progress",
                    "role": "assistant", "content": []}
            part = output_text_part()
        else:
            item = {"type": "reasoning", "id": ids.new_id("rs_"), "status": "in_progress",
                    "summary": [], "content": []}
            part = reasoning_part()
        self.items.append(item)
        self._open = _Open(index, kind)
        return [{"type": "response.output_item.added", "output_index": index,
                 "item": {**item, "content": []}},
                {"type": "response.content_part.added", "item_id": item["id"],
                 "output_index": index, "content_index": 0, "part": part}]

    def _close(self, status: str) -> list[Event]:
        current, self._open = self._open, None
        if current is None:
            return []
        item = self.items[current.index]
        text = "".join(current.text)
        events: list[Event] = []
        where = {"item_id": item["id"], "output_index": current.index}
        if current.kind == "call":
            item["arguments"] = text
            events.append({"type": "response.function_call_arguments.done", **where,
                           "name": item["name"], "arguments": text})
        else:
            message = current.kind == "message"
            part = output_text_part(text) if message else reasoning_part(text)
            item["content"] = [part]
            if not message and self._seal_key is not None:
                item["encrypted_content"] = seal(self._seal_key, text)
            events.append({"type": "response.output_text.done" if message
                           else "response.reasoning_text.done", **where, "content_index": 0,
                           "text": text, **({"logprobs": []} if message else {})})
            events.append({"type": "response.content_part.done", **where, "content_index": 0,
                           "part": dict(part)})
        item["status"] = status
        events.append({"type": "response.output_item.done", "output_index": current.index,
                       "item": _copy(item)})
        return events


def _copy(item: dict[str, Any]) -> dict[str, Any]:
    out = dict(item)
    if "content" in out:
        out["content"] = [dict(p) for p in out["content"]]
    return out


def call_name(item: dict[str, Any]) -> str:
    """The name the model saw for a function_call item (`<namespace>.<name>` in a namespace)."""
    return item["namespace"] + "." + item["name"] if item.get("namespace") else item["name"]


def assistant_messages(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Output items as template-shaped assistant messages (reasoning left out: templates
    render earlier turns without it)."""
    text = "".join(p["text"] for item in items if item["type"] == "message"
                   for p in item["content"])
    calls = [{"id": item["call_id"], "type": "function",
              "function": {"name": call_name(item), "arguments": item["arguments"]}}
             for item in items if item["type"] == "function_call"]
    message: dict[str, Any] = {"role": "assistant", "content": text or (None if calls else "")}
    if calls:
        message["tool_calls"] = calls
    return [message]
