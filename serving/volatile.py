"""Prompt-cache breakers: request parts that change per session or per request but carry
nothing for the model, and the rule that leaves them out of the prompt.

The prefix cache (and ``--prompt-cache-dir``) reuses a prompt's KV state up to the first token
that differs from an earlier prompt. A part that changes every session at the very start of
the prompt therefore makes every new session prefill its whole system prompt and tools again.

The rule (off with ``--keep-volatile-prompt-parts``): in every system turn, leading lines that
start with ``x-anthropic-billing-header:`` are left out (a turn left empty is dropped), and
the request's warnings say so (``X-AFM-Warnings``, the access log). Claude Code sends that line
as its first system block: ``x-anthropic-billing-header: cc_version=2.1.328.e3c;
cc_entrypoint=sdk-cli;``, where the three hex digits change with each session's first prompt
(interactive sessions also add ``cch=<5 hex>;``, new every request). It is client metadata
(Anthropic's API reads it for billing), no instruction to the model. Proxies that translate
Claude Code's requests to chat completions or Responses keep it at the start of the system
message, so the rule applies on every surface.

Checked and left alone, since they come after the system prompt and tools (so they do not stop
the reuse of those) or carry instructions: Claude Code's environment block (working directory,
platform) is a ``system`` turn after the first user message, its date a system-reminder in a
user turn, Codex's ``<environment_context>`` a user item. Claude Code's system prompt names its
auto-memory folder, which depends on the working directory: sessions in different folders part
there unless ``CLAUDE_CODE_DISABLE_AUTO_MEMORY=1`` (an instruction, so the server keeps it).
"""

from __future__ import annotations

from typing import Any

BILLING_HEADER = "x-anthropic-billing-header:"

WARNING = ("system prompt: leading x-anthropic-billing-header line left out: per-session "
           "client metadata that would stop the prompt cache reusing the system prompt and "
           "tools (--keep-volatile-prompt-parts keeps it)")


def _strip(text: str) -> str | None:
    """``text`` without its leading billing-header lines, or None when it has none."""
    rest = text.lstrip()
    if not rest.startswith(BILLING_HEADER):
        return None
    while rest.startswith(BILLING_HEADER):
        _, _, rest = rest.partition("\n")
        rest = rest.lstrip()
    return rest


def drop_volatile(messages: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], bool]:
    """The template messages with the rule applied, and whether it left anything out."""
    out: list[dict[str, Any]] = []
    dropped = False
    for m in messages:
        content = m.get("content")
        rest = _strip(content) if m.get("role") == "system" and isinstance(content, str) \
            else None
        if rest is None:
            out.append(m)
            continue
        dropped = True
        if rest:
            out.append({**m, "content": rest})
    return out, dropped
