"""Anthropic Messages: MessagesRequest -> ChatSpec (translator), and engine output -> the
`message` object (shaper; the named stream events are in :mod:`serving.messages_stream`).

Blocks map onto the template messages chat uses: `text` blocks join into content, `tool_use`
blocks become an assistant's tool calls, `tool_result` blocks become `tool` messages (before the
turn's text), `thinking` blocks become `reasoning_content` (an empty one is read back from the
`signature` this server sealed), `system` turns stay system turns in place. `thinking`
enabled/adaptive/disabled sets the template's `enable_thinking`, `output_config.effort` its
reasoning effort; `context_management` clear_thinking edits drop older thinking; server tools
are left out and reported (X-AFM-Warnings); `tool_choice` any/tool become chat's
`required`/named choices, so the grammar engine enforces them as it does for chat.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from engine.types import GenerationStats
from generated.models import MessagesCountTokensRequest, MessagesRequest
from serving import ids, sealed
from serving.driver import Final, collect
from serving.errors import InvalidRequest
from serving.output_parser import FinalOutput
from serving.prepare import ChatSpec, Prepared, render_tokens, template_kwargs
from serving.sampling import SamplingFields
from serving.sealed import seal, unseal
from serving.toolspec import function_tool, named_choice
from serving.values import plain, unwrap

if TYPE_CHECKING:
    from serving.model_context import ModelContext

BLOCK_SEPARATOR = "\n\n"
"""Between the text blocks of one turn (and of the system prompt) in the rendered prompt."""


# ---------------------------------------------------------------- translator
def _root(value: Any) -> Any:
    """A generated RootModel's value (other values unchanged)."""
    return getattr(value, "root", value)


def _unsupported(kind: str, where: str) -> InvalidRequest:
    return InvalidRequest(f"{where} has type '{kind}', a block this server cannot take (the "
                          "loaded model reads text only and there are no server tools); remove "
                          "it", param=where)


def _texts(blocks: list[Any], where: str) -> str:
    """Text blocks joined; any other block type is a 400 naming it."""
    out = []
    for j, block in enumerate(blocks):
        block = _root(block)
        if plain(block.type) != "text":
            raise _unsupported(plain(block.type), f"{where}[{j}]")
        out.append(block.text)
    return BLOCK_SEPARATOR.join(out)


def system_prompt(system: Any) -> str | None:
    """The system prompt, a string or text blocks (cache_control ignored)."""
    system = _root(system)
    if system is None or isinstance(system, str):
        return system
    return _texts(system, "system")


@dataclass
class _Context:
    """What translating the turns needs and finds: the sealing key (thinking signatures),
    how many assistant turns keep their thinking (None: all), the deferred tools that
    `tool_reference` blocks loaded, and what was left out."""

    secret: bytes | None = None
    keep_thinking: int | None = None
    assistant_turns: int = 0
    referenced: set[str] = field(default_factory=set)
    warnings: list[str] = field(default_factory=list)


def _tool_result(block: Any, where: str, ctx: _Context) -> dict[str, Any]:
    content = _root(block.content)
    if isinstance(content, str | None):
        text = content or ""
    else:
        texts = []
        for j, part in enumerate(content):
            part = _root(part)
            if plain(part.type) == "tool_reference":
                ctx.referenced.add(part.tool_name)
                texts.append(f"Tool loaded: {part.tool_name}")
            elif plain(part.type) == "text":
                texts.append(part.text)
            else:
                raise _unsupported(plain(part.type), f"{where}.content[{j}]")
        text = BLOCK_SEPARATOR.join(texts)
    if block.is_error:
        text = f"Error: {text}"
    return {"role": "tool", "tool_call_id": block.tool_use_id, "content": text}


def _thinking_text(block: Any, ctx: _Context) -> str:
    """A thinking block's text: as sent, or (empty, as `display: omitted` returns it) read back
    from the signature this server sealed."""
    if block.thinking:
        return block.thinking
    return (unseal(ctx.secret, block.signature) if ctx.secret else None) or ""


def _turn(i: int, role: str, blocks: list[Any], ctx: _Context,
          keep_thinking: bool) -> list[dict[str, Any]]:
    """One Anthropic turn of blocks as template messages."""
    texts: list[str] = []
    calls: list[dict[str, Any]] = []
    results: list[dict[str, Any]] = []
    thinking: list[str] = []
    for j, block in enumerate(blocks):
        block, where = _root(block), f"messages[{i}].content[{j}]"
        kind = plain(block.type)
        allowed = {"user": ("text", "tool_result"), "system": ("text",),
                   "assistant": ("text", "tool_use", "thinking", "redacted_thinking")}[role]
        if kind not in allowed and kind in ("text", "tool_use", "tool_result", "thinking",
                                            "redacted_thinking"):
            raise InvalidRequest(f"{where}: a '{kind}' block cannot be in a {role} turn",
                                 param=where)
        if kind == "text":
            texts.append(block.text)
        elif kind == "tool_use":
            calls.append({"id": block.id, "type": "function",
                          "function": {"name": block.name,
                                       "arguments": json.dumps(plain(block.input))}})
        elif kind == "tool_result":
            results.append(_tool_result(block, where, ctx))
        elif kind == "thinking":
            if keep_thinking:
                thinking.append(_thinking_text(block, ctx))
        elif kind != "redacted_thinking":
            raise _unsupported(kind, where)
    text = BLOCK_SEPARATOR.join(texts)
    if role == "system":
        return [{"role": "system", "content": text}]
    if role == "user":
        return [*results, {"role": "user", "content": text}] if texts or not results \
            else results
    item: dict[str, Any] = {"role": "assistant", "content": text if texts or not calls else None}
    if calls:
        item["tool_calls"] = calls
    thinking = [t for t in thinking if t]
    if thinking:
        item["reasoning_content"] = BLOCK_SEPARATOR.join(thinking)
    return [item]


def template_messages(system: Any, messages: list[Any],
                      ctx: _Context | None = None) -> list[dict[str, Any]]:
    """The system prompt and the turns (`system` turns in place), in the shape chat templates
    take."""
    ctx = ctx or _Context()
    out: list[dict[str, Any]] = []
    prompt = system_prompt(system)
    if prompt:
        out.append({"role": "system", "content": prompt})
    messages = [unwrap(m) for m in messages]  # the contract's oneOf by role
    assistants = sum(plain(m.role) == "assistant" for m in messages)
    seen = 0
    for i, message in enumerate(messages):
        role, content = plain(message.role), _root(message.content)
        keep = True
        if role == "assistant":
            seen += 1
            keep = ctx.keep_thinking is None or assistants - seen < ctx.keep_thinking
        if isinstance(content, str):
            out.append({"role": role, "content": content})
        else:
            out.extend(_turn(i, role, content, ctx, keep))
    return out


def context_edits(management: Any, ctx: _Context) -> None:
    """Apply `context_management.edits`: clear_thinking sets how many assistant turns keep
    their thinking; other edits are reported as not applied."""
    edits = (management.edits or []) if management is not None else []
    for k, edit in enumerate(edits):
        kind = edit.type
        if kind.startswith("clear_thinking"):
            keep = plain(_root(edit.keep))
            if keep == "all":
                ctx.keep_thinking = None
            elif isinstance(keep, dict) and isinstance(keep.get("value"), int):
                ctx.keep_thinking = keep["value"]
            else:
                ctx.keep_thinking = 1
        else:
            ctx.warnings.append(f"context_management.edits[{k}] ({kind}) not applied: this "
                                "server applies clear_thinking edits only")


def function_tools(tools: list[Any] | None,
                   ctx: _Context | None = None) -> list[dict[str, Any]] | None:
    """Client tools as OpenAI function tools. Server tools are left out (reported); deferred
    tools only join once a tool_reference loaded them."""
    ctx = ctx or _Context()
    out = []
    for k, tool in enumerate(tools or []):
        tool = unwrap(tool)  # the contract's oneOf: client tool / server tool
        kind = plain(tool.type)
        if kind not in (None, "custom"):
            ctx.warnings.append(f"tools[{k}] ({kind}) left out: an Anthropic server tool, "
                                "which this server does not run")
            continue
        if tool.defer_loading and tool.name not in ctx.referenced:
            continue
        out.append(function_tool(tool.name, plain(tool.input_schema), tool.description))
    return out or None


def tool_choice(choice: Any) -> tuple[str | dict[str, Any] | None, bool]:
    """Anthropic's tool_choice as chat's, and whether parallel calls are allowed."""
    if choice is None:
        return None, True
    choice = getattr(choice, "root", choice)  # the contract's oneOf by type
    kind = plain(choice.type)
    parallel = choice.disable_parallel_tool_use is not True
    if kind == "tool":
        return named_choice(choice.name), parallel
    return {"auto": "auto", "any": "required", "none": "none"}[kind], parallel


def thinking_kwargs(thinking: Any) -> dict[str, Any] | None:
    """`thinking` as chat-template kwargs (None: the server's default applies): `disabled`
    turns thinking off, `enabled` / `adaptive` / `between_tools` on."""
    if thinking is None:
        return None
    return {"enable_thinking": plain(thinking.type) != "disabled"}


def omits_thinking(req: MessagesRequest) -> bool:
    """`thinking.display: omitted`: thinking blocks come back empty, sealed in `signature`."""
    return req.thinking is not None and plain(req.thinking.display) == "omitted"


def _effort(req: MessagesRequest | MessagesCountTokensRequest) -> str | None:
    config = req.output_config
    return plain(config.effort) if config is not None else None


def _shape(req: MessagesRequest | MessagesCountTokensRequest,
           secret: bytes | None = None) -> ChatSpec:
    choice, parallel = tool_choice(req.tool_choice)
    ctx = _Context(secret=secret)
    context_edits(req.context_management, ctx)
    turns = template_messages(req.system, req.messages, ctx)
    return ChatSpec(messages=turns, tools=function_tools(req.tools, ctx), tool_choice=choice,
                    parallel_tool_calls=parallel, template_kwargs=thinking_kwargs(req.thinking),
                    reasoning_effort=_effort(req), warnings=ctx.warnings)


def to_spec(req: MessagesRequest, secret: bytes | None = None) -> ChatSpec:
    """The translator: a Messages request in engine terms (``secret`` reads back thinking
    signatures this server sealed)."""
    spec = _shape(req, secret)
    spec.sampling = SamplingFields(temperature=req.temperature, top_p=req.top_p,
                                   top_k=req.top_k, seed=req.seed, max_tokens=req.max_tokens,
                                   stop=tuple(req.stop_sequences or ()))
    return spec


async def count_tokens(state: ModelContext, req: MessagesCountTokensRequest) -> dict[str, Any]:
    """The prompt length of the same request sent to createMessage (rendered identically)."""
    from serving.tokens import tokenizer_engine

    tokenizer_engine(state)
    spec = _shape(req, sealed.key(state))
    kwargs = template_kwargs(state, spec.reasoning_effort, spec.template_kwargs)
    _, tokens = await render_tokens(state, spec.messages, spec.active_tools, kwargs)
    return {"input_tokens": len(tokens)}


# ---------------------------------------------------------------- shapers
def usage(stats: GenerationStats) -> dict[str, Any]:
    """Anthropic usage: prompt tokens computed now vs read from the prefix cache."""
    return {"input_tokens": stats.prompt_tokens - stats.cached_tokens,
            "output_tokens": stats.completion_tokens,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": stats.cached_tokens}


def tool_use_id(call_id: str) -> str:
    return "toolu_" + call_id.removeprefix("call_")


def stop_reason(final: Final, has_calls: bool) -> tuple[str, str | None]:
    """(stop_reason, stop_sequence) for the engine's finish (the engine names the stop string
    that ended it)."""
    if final.finish_reason == "length":
        return "max_tokens", None
    if has_calls:
        return "tool_use", None
    if final.finish_reason == "stop" and final.stop_sequence is not None:
        return "stop_sequence", final.stop_sequence
    return "end_turn", None


def message(state: ModelContext, content: list[dict[str, Any]], reason: str | None,
             stop: str | None, use: dict[str, Any]) -> dict[str, Any]:
    return {"id": ids.new_id("msg_"), "type": "message", "role": "assistant",
            "content": content, "model": state.model_id, "stop_reason": reason,
            "stop_sequence": stop, "usage": use}


def content_blocks(final: FinalOutput, secret: bytes, omit_thinking: bool = False
                   ) -> list[dict[str, Any]]:
    """thinking (its text sealed in `signature`; empty when omitted), text and tool_use
    blocks, in that order."""
    blocks: list[dict[str, Any]] = []
    if final.reasoning_content:
        text = final.reasoning_content
        blocks.append({"type": "thinking", "thinking": "" if omit_thinking else text,
                       "signature": seal(secret, text)})
    if final.content:
        blocks.append({"type": "text", "text": final.content})
    blocks += [{"type": "tool_use", "id": tool_use_id(c.id), "name": c.name,
                "input": json.loads(c.arguments_json)} for c in final.tool_calls]
    return blocks


async def complete(state: ModelContext, p: Prepared, omit_thinking: bool = False
                   ) -> dict[str, Any]:
    """Run a Messages request to the end and shape the `message` object."""
    done = await collect(state.require_engine(), p.request, state.settings.queue_timeout)
    parser = p.output_parser()
    parser.feed(done.text)
    final = parser.finish(truncated=done.finish_reason == "length")
    reason, stop = stop_reason(done.final, bool(final.tool_calls))
    return message(state, content_blocks(final, sealed.key(state), omit_thinking), reason, stop,
                   usage(done.stats))
