"""Chat template rendering: OpenAI-shaped messages -> prompt token ids.

Messages arrive normalised by the caller (roles system/user/assistant/tool, ``content`` a string
or None, ``tool_calls`` with ``arguments`` as a JSON string). Templates such as Qwen's iterate
over ``arguments`` as a mapping, so JSON-string arguments are parsed into dicts here, and a None
``content`` becomes "" (templates test it with string operators).
"""

from __future__ import annotations

import copy
import json
from typing import Any


def prepare_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Deep-copy ``messages`` into the shape chat templates expect."""
    out = []
    for message in messages:
        m = copy.deepcopy(message)
        if m.get("content") is None:
            m["content"] = ""
        for call in m.get("tool_calls") or []:
            fn = call.get("function") if isinstance(call, dict) else None
            if isinstance(fn, dict) and isinstance(fn.get("arguments"), str):
                try:
                    parsed = json.loads(fn["arguments"])
                except ValueError:
                    continue
                if isinstance(parsed, dict):
                    fn["arguments"] = parsed
        out.append(m)
    return out


def render_prompt(
    tokenizer: Any,
    messages: list[dict[str, Any]],
    tools: list[dict[str, Any]] | None,
    template_kwargs: dict[str, Any] | None,
    add_generation_prompt: bool = True,
) -> str:
    """The prompt text the model's chat template produces (plain fallback without a template)."""
    prepared = prepare_messages(messages)
    kwargs = dict(template_kwargs or {})
    if getattr(tokenizer, "has_chat_template", False):
        return tokenizer.apply_chat_template(
            prepared,
            tools=tools or None,
            add_generation_prompt=add_generation_prompt,
            tokenize=False,
            **kwargs,
        )
    text = "".join(f"{m['role']}: {m['content']}\n" for m in prepared)
    return text + ("assistant: " if add_generation_prompt else "")


def render_tokens(
    tokenizer: Any,
    messages: list[dict[str, Any]],
    tools: list[dict[str, Any]] | None,
    template_kwargs: dict[str, Any] | None,
    add_generation_prompt: bool = True,
) -> list[int]:
    """Token ids of the rendered prompt (the template supplies any special tokens)."""
    text = render_prompt(tokenizer, messages, tools, template_kwargs, add_generation_prompt)
    return list(tokenizer.encode(text, add_special_tokens=False))
