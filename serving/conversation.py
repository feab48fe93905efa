"""Responses API conversations: input items -> template-shaped messages, and continuing a
stored turn on the tokens the model actually saw (so the prefix cache serves all of it).

A stored :class:`Turn` holds the conversation's messages (without instructions) and its
``context_tokens``: the turn's prompt tokens, its output tokens and the chat template's end of
turn. The next turn's prompt is ``context_tokens`` + the tokens of what the template renders
after that conversation (the new items and the generation prompt), found by rendering the
conversation twice: followed by the new items, and followed by a sentinel message.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from serving import ids
from serving.errors import InvalidRequest
from serving.prepare import Render, normalise_messages
from serving.response_output import call_name
from serving.sealed import unseal
from serving.toolspec import text_only
from serving.values import plain

if TYPE_CHECKING:
    from serving.model_context import ModelContext

TEXT_PARTS = ("input_text", "output_text", "text", "reasoning_text", "summary_text")
ITEM_PREFIX = {"message": "msg_", "function_call": "fc_", "function_call_output": "fco_",
               "reasoning": "rs_"}
SENTINEL = "\ue000"


@dataclass
class Turn:
    """What a stored response keeps so that another response can continue it."""

    messages: list[dict[str, Any]]
    render_key: str
    context_tokens: list[int] | None


def _parts_text(parts: Any, where: str) -> str:
    if parts is None:
        return ""
    if isinstance(parts, str):
        return parts
    texts = []
    for j, part in enumerate(parts):
        kind = part.get("type")
        if kind not in TEXT_PARTS:
            raise text_only(kind, f"{where}[{j}]", f"{where}[{j}].type")
        if not isinstance(part.get("text"), str):
            raise InvalidRequest(f"{where}[{j}] ({kind}) needs 'text'", param=f"{where}[{j}]")
        texts.append(part["text"])
    return "".join(texts)


def _stored(item: dict[str, Any], i: int, secret: bytes | None,
            warnings: list[str]) -> dict[str, Any]:
    """One input item, checked, in its stored shape (with an id)."""
    where = f"input[{i}]"
    kind = item.get("type") or ("message" if "role" in item else None)
    if kind not in ITEM_PREFIX:
        raise InvalidRequest(f"{where} has type '{kind}', which is not supported here; use "
                             "message, function_call, function_call_output or reasoning",
                             param=f"{where}.type")
    out: dict[str, Any] = {"id": item.get("id") or ids.new_id(ITEM_PREFIX[kind]), "type": kind}
    if kind == "message":
        role = item.get("role")
        if role is None:
            raise InvalidRequest(f"{where} (message) needs a 'role'", param=f"{where}.role")
        part = "output_text" if role == "assistant" else "input_text"
        text = _parts_text(item.get("content"), f"{where}.content")
        out.update(role=role, status=item.get("status") or "completed",
                   content=[{"type": part, "text": text}])
    elif kind == "function_call":
        for key in ("call_id", "name"):
            if not item.get(key):
                raise InvalidRequest(f"{where} (function_call) needs '{key}'",
                                     param=f"{where}.{key}")
        out.update(call_id=item["call_id"], name=item["name"],
                   arguments=item.get("arguments") or "{}", status="completed")
        if item.get("namespace"):
            out["namespace"] = item["namespace"]
    elif kind == "function_call_output":
        if not item.get("call_id"):
            raise InvalidRequest(f"{where} (function_call_output) needs 'call_id'",
                                 param=f"{where}.call_id")
        out.update(call_id=item["call_id"], status="completed",
                   output=_parts_text(item.get("output"), f"{where}.output"))
    else:
        text = _parts_text(item.get("content"), f"{where}.content")
        summary = _parts_text(item.get("summary"), f"{where}.summary")
        if not text and item.get("encrypted_content"):
            opened = unseal(secret, item["encrypted_content"]) if secret else None
            if opened is None:
                warnings.append(f"{where}.encrypted_content left out: not sealed by this server "
                                "(or its data directory's key changed)")
            text = opened or ""
        out.update(summary=[{"type": "summary_text", "text": summary}] if summary else [],
                   content=[{"type": "reasoning_text", "text": text}] if text else [])
    return out


def input_items(value: Any, secret: bytes | None = None,
                warnings: list[str] | None = None) -> list[dict[str, Any]]:
    """The request's `input` as checked items in their stored shape; reasoning
    `encrypted_content` is opened with ``secret`` (what cannot be is noted in ``warnings``)."""
    value = plain(getattr(value, "root", value))
    if value is None:
        return []
    if isinstance(value, str):
        value = [{"type": "message", "role": "user", "content": value}]
    notes = warnings if warnings is not None else []
    return [_stored(item, i, secret, notes) for i, item in enumerate(value)]



def item_messages(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Stored items -> template-shaped messages: developer -> system, calls joined onto the
    assistant message before them, outputs as tool messages, reasoning onto the next
    assistant message."""
    out: list[dict[str, Any]] = []
    reasoning: list[str] = []
    for item in items:
        kind = item["type"]
        if kind == "reasoning":
            reasoning += [p["text"] for p in item["content"] or item["summary"]]
            continue
        if kind == "message":
            role = "system" if item["role"] == "developer" else item["role"]
            message: dict[str, Any] = {"role": role, "content": item["content"][0]["text"]}
        elif kind == "function_call_output":
            message = {"role": "tool", "content": item["output"],
                       "tool_call_id": item["call_id"]}
        else:
            call = {"id": item["call_id"], "type": "function",
                    "function": {"name": call_name(item), "arguments": item["arguments"]}}
            last = out[-1] if out else None
            if last is not None and last["role"] == "assistant" and not reasoning:
                last.setdefault("tool_calls", []).append(call)
                continue
            message = {"role": "assistant", "content": None, "tool_calls": [call]}
        if message["role"] == "assistant" and reasoning:
            message["reasoning_content"] = "".join(reasoning)
            reasoning = []
        out.append(message)
    return out


def render_key(model: str, instructions: str | None, tools: list[dict[str, Any]] | None,
               kwargs: dict[str, Any]) -> str:
    """What else shapes a rendered conversation: a stored turn's tokens are reused only by the
    same model (its tokenizer and template) under the same instructions, tools and template
    settings."""
    return json.dumps([model, instructions, tools, kwargs], sort_keys=True)


def _render(state: ModelContext, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None,
            kwargs: dict[str, Any], add_generation_prompt: bool) -> str:
    from engine.templating import render_prompt

    return render_prompt(state.require_engine().tokenizer,
                         normalise_messages(messages, state.settings.instructions), tools,
                         kwargs, add_generation_prompt)


def turn_end(state: ModelContext) -> str | None:
    """The text the chat template puts after an assistant turn's content (``<|im_end|>\\n``)."""
    text = _render(state, [{"role": "user", "content": "u"},
                           {"role": "assistant", "content": SENTINEL}], None, {}, False)
    at = text.rfind(SENTINEL)
    return text[at + len(SENTINEL):] or None if at >= 0 else None


def turn_end_tokens(state: ModelContext) -> tuple[str | None, list[int] | None]:
    """:func:`turn_end` and its tokens (blocking: run it off the event loop)."""
    end = turn_end(state)
    return end, (state.require_engine().encode(end) if end is not None else None)


def _common_prefix(a: str, b: str) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


@dataclass(frozen=True)
class Continuation:
    """A stored turn to continue on (a :class:`serving.prepare.Prefix`): its context
    ``tokens`` stand for ``history`` as rendered, closed by the template's end of turn."""

    tokens: list[int]
    history: list[dict[str, Any]]
    end: str

    def tail(self, full: str, render: Render) -> str | None:
        """What ``full`` (the whole conversation rendered) adds after the stored turn, found
        by rendering the history followed by a sentinel message; None when the template does
        not render the stored conversation as a prefix of the new one."""
        probe = render([*self.history, {"role": "user", "content": SENTINEL}], False)
        if SENTINEL not in probe:
            return None
        cut = probe.rfind(self.end, 0, probe.index(SENTINEL))
        if cut < 0 or _common_prefix(full, probe) < cut + len(self.end):
            return None
        return full[cut + len(self.end):]


def continuation(previous: Turn | None, key: str, history: list[dict[str, Any]],
                 end: str | None) -> Continuation | None:
    """The stored turn as a prefix to continue on, when it kept its tokens and was rendered
    the same way (``key``)."""
    if (previous is None or previous.context_tokens is None or previous.render_key != key
            or end is None):
        return None
    return Continuation(previous.context_tokens, history, end)
