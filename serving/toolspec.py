"""Tools, tool_choice and content parts in the one shape every surface hands to
:class:`serving.prepare.ChatSpec`: OpenAI function tools in chat's key order (templates render
tools as JSON, so the same tool gives the same prompt on every surface), chat's tool_choice, and
text-only content parts."""

from __future__ import annotations

from typing import Any

from serving.errors import InvalidRequest

ToolChoice = str | dict[str, Any] | None
"""`auto` / `none` / `required`, `{"type": "function", "function": {"name": ...}}`, or None."""


def function_tool(name: str, parameters: Any, description: str | None = None,
                  strict: bool | None = None) -> dict[str, Any]:
    """A function tool as chat takes it: name, description, parameters, strict."""
    function: dict[str, Any] = {"name": name}
    if description is not None:
        function["description"] = description
    function["parameters"] = parameters
    if strict is not None:
        function["strict"] = strict
    return {"type": "function", "function": function}


def named_choice(name: str | None) -> dict[str, Any]:
    """tool_choice naming one function."""
    return {"type": "function", "function": {"name": name}}


def text_only(kind: Any, where: str, param: str | None = None) -> InvalidRequest:
    """The 400 for a content part that is not text (the loaded model reads text only)."""
    return InvalidRequest(f"{where} is an '{kind}' part, but the loaded model takes text only; "
                          "remove the part or run a multimodal model", param=param or where)
