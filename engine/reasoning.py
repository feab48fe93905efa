"""Reasoning (``<think>...</think>``) handling and chat-template kwargs resolution.

Whether a model can reason at all comes from the model (:func:`has_think_markup`: its vocabulary
or its chat template has the think markup); a model without it never gets a think phase, so a
grammar starts at the first output token and no output is parsed for ``<think>``.

For a model with think markup, three prompt situations, told apart from the rendered prompt by
:func:`reasoning_state`:

- the generation prompt already opened ``<think>`` (e.g. DeepSeek-R1, Qwen3 thinking-2507): the
  output starts inside reasoning and ends it with ``</think>`` -> ``started=True``;
- the prompt closed an (empty) think block, as Qwen3 does with ``enable_thinking=false``: no
  reasoning is expected, output is content only -> ``expected=False``;
- otherwise the model may open ``<think>`` itself at the start of its output.

Template kwargs precedence (:func:`resolve_template_kwargs`), lowest to highest:
server ``--default-chat-template-kwargs`` < ``--no-think`` (enable_thinking false) <
``reasoning_effort`` (inserted as ``reasoning_effort``; any effort also turns thinking on) <
the request's ``chat_template_kwargs``. An explicit ``enable_thinking: false`` in the request's
kwargs is authoritative: reasoning_effort never turns it back on.
"""

from __future__ import annotations

from typing import Any, NamedTuple

THINK_START = "<think>"
THINK_END = "</think>"

REASONING_EFFORTS = ("low", "high", "max")


class ReasoningState(NamedTuple):
    """What the rendered prompt implies for the output."""

    expected: bool  # the output may contain a think block (grammar waits for </think>)
    started: bool  # the output starts inside reasoning (prompt ends with an open <think>)


def has_think_markup(tokenizer: Any) -> bool:
    """Whether a model can write a think block: ``<think>`` and ``</think>`` are tokens of its
    vocabulary, or its chat template writes them (an mlx-lm ``TokenizerWrapper`` or a Hugging
    Face tokenizer)."""
    tok = getattr(tokenizer, "_tokenizer", tokenizer)
    try:
        vocab = tok.get_vocab()
    except (AttributeError, TypeError):
        vocab = {}
    if THINK_START in vocab and THINK_END in vocab:
        return True
    template = getattr(tok, "chat_template", None) or ""
    if isinstance(template, dict):  # named templates
        template = " ".join(str(t) for t in template.values())
    return THINK_START in str(template) and THINK_END in str(template)


def reasoning_state(prompt_text: str, enable_thinking: bool = True,
                    think_markup: bool = True) -> ReasoningState:
    """Classify a rendered prompt (see module docstring). ``think_markup``: the model has think
    markup at all (:func:`has_think_markup`); without it nothing is expected."""
    if not think_markup:
        return ReasoningState(expected=False, started=False)
    if not enable_thinking:
        tail = prompt_text.rstrip()
        # Template opened thinking although it was disabled: still inside it.
        started = tail.endswith(THINK_START)
        return ReasoningState(expected=started, started=started)
    last_open = prompt_text.rfind(THINK_START)
    last_close = prompt_text.rfind(THINK_END)
    tail = prompt_text.rstrip()
    if (
        last_open != -1
        and last_open > last_close
        and not prompt_text[last_open + len(THINK_START) :].strip()
    ):
        return ReasoningState(expected=True, started=True)
    if tail.endswith(THINK_END):
        return ReasoningState(expected=False, started=False)
    return ReasoningState(expected=True, started=False)


def split_reasoning(text: str, started: bool = False) -> tuple[str | None, str]:
    """Split complete output into (reasoning_content, content); both stripped.

    With ``started`` the output begins inside reasoning; otherwise reasoning is recognised only
    when the output opens with ``<think>``. An unclosed think block is all reasoning.
    """
    body = text
    if not started:
        stripped = text.lstrip()
        if not stripped.startswith(THINK_START):
            return None, text.strip()
        body = stripped[len(THINK_START) :]
    i = body.find(THINK_END)
    if i == -1:
        return (body.strip() or None), ""
    reasoning = body[:i].strip()
    return (reasoning or None), body[i + len(THINK_END) :].strip()


def resolve_template_kwargs(
    server_defaults: dict | None,
    request_kwargs: dict | None,
    reasoning_effort: str | None,
    no_think: bool,
) -> dict:
    """Merge chat-template kwargs (precedence in the module docstring).

    ``reasoning_effort`` is the request's top-level field, or the server's ``--reasoning-effort``
    when the request has none (the caller picks). Unknown efforts raise ValueError.
    """
    out: dict = dict(server_defaults or {})
    if no_think:
        out["enable_thinking"] = False
    request_kwargs = dict(request_kwargs or {})
    if reasoning_effort is not None:
        effort = reasoning_effort.lower()
        if effort not in REASONING_EFFORTS:
            raise ValueError(
                f"reasoning_effort must be one of {', '.join(REASONING_EFFORTS)}, "
                f"got {reasoning_effort!r}"
            )
        out["reasoning_effort"] = effort
        out["enable_thinking"] = True
    out.update(request_kwargs)
    return out


def thinking_enabled(template_kwargs: dict) -> bool:
    """False only when the kwargs explicitly disable thinking."""
    return template_kwargs.get("enable_thinking", True) is not False
