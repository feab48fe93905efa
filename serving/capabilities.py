"""What a loaded chat model can do, read from its chat template and config (for /v1/models)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from engine.chat_engine import ChatEngine

REASONING_MARKS = ("enable_thinking", "<think>", "reasoning_content", "reasoning_effort")


def _template(engine: ChatEngine) -> str:
    template: Any = getattr(engine.tokenizer, "chat_template", None)
    if isinstance(template, dict):  # named templates (default, tool_use, ...)
        template = " ".join(str(t) for t in template.values())
    return template if isinstance(template, str) else ""


def capabilities(engine: ChatEngine) -> dict[str, bool]:
    """`tools`: the template renders tools; `reasoning`: it has thinking controls or think
    markup; `vision`: image input (this server's models read text only)."""
    template = _template(engine)
    return {"tools": "tools" in template,
            "reasoning": any(mark in template for mark in REASONING_MARKS),
            "vision": False}
