"""Chat request preparation: the generated request model -> an engine GenerationRequest plus
everything needed to shape the answer (tool format, reasoning state, grammar downgrade)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from afm.errors import InvalidRequest
from afm.state import AppState
from engine.types import GenerationRequest

# OpenAI clients send efforts the DeepSeek-style template control does not name.
EFFORT_MAP = {"minimal": "low", "low": "low", "medium": "high", "high": "high", "max": "max"}


@dataclass
class PreparedChat:
    """A validated chat request, ready for the engine."""

    request: GenerationRequest
    tools: list[dict[str, Any]] | None
    tool_format: str
    parse_tools: bool
    parallel_tool_calls: bool
    reasoning_started: bool
    parse_reasoning: bool
    stream: bool
    include_usage: bool
    logprobs: bool
    headers: dict[str, str] = field(default_factory=dict)


def _part_text(part: dict[str, Any], where: str) -> str:
    kind = part.get("type")
    if kind == "text":
        text = part.get("text")
        if not isinstance(text, str):
            raise InvalidRequest(f"{where} has type 'text' but no 'text' string", param=where)
        return text
    if kind in ("image_url", "input_audio"):
        raise InvalidRequest(
            f"{where} is an '{kind}' part, but the loaded model takes text only; remove the "
            "part or run a multimodal model", param=where)
    raise InvalidRequest(f"{where} has unsupported type {kind!r}", param=where)


def normalise_messages(messages: list[dict[str, Any]],
                       instructions: str | None) -> list[dict[str, Any]]:
    """OpenAI messages -> the shape chat templates take: developer -> system, parts joined,
    tool calls and tool results kept for multi-turn tool conversations."""
    out: list[dict[str, Any]] = []
    for i, message in enumerate(messages):
        role = message["role"]
        role = "system" if role == "developer" else role
        content = message.get("content")
        if isinstance(content, list):
            content = "".join(_part_text(p, f"messages[{i}].content[{j}]")
                              for j, p in enumerate(content))
        if content is None and role != "assistant":
            raise InvalidRequest(f"messages[{i}] ({role}) needs content",
                                 param=f"messages[{i}].content")
        item: dict[str, Any] = {"role": role, "content": content}
        if role == "assistant":
            if message.get("tool_calls"):
                item["tool_calls"] = [
                    {"id": c["id"], "type": "function",
                     "function": {"name": c["function"]["name"],
                                  "arguments": c["function"]["arguments"]}}
                    for c in message["tool_calls"]]
            elif content is None:
                raise InvalidRequest(f"messages[{i}] (assistant) needs content or tool_calls",
                                     param=f"messages[{i}].content")
            if message.get("reasoning_content"):
                item["reasoning_content"] = message["reasoning_content"]
        if role == "tool" and message.get("tool_call_id"):
            item["tool_call_id"] = message["tool_call_id"]
        if message.get("name"):
            item["name"] = message["name"]
        out.append(item)
    if instructions and not any(m["role"] == "system" for m in out):
        out.insert(0, {"role": "system", "content": instructions})
    return out


def check_tool_choice(tools: list[dict[str, Any]] | None, choice: Any) -> None:
    names = {t["function"]["name"] for t in tools or []}
    if isinstance(choice, dict):
        name = choice.get("function", {}).get("name")
        if name not in names:
            raise InvalidRequest(f"tool_choice names function {name!r}, which is not among "
                                 "tools", param="tool_choice")
    elif choice == "required" and not names:
        raise InvalidRequest("tool_choice 'required' needs at least one tool",
                             param="tool_choice")


def template_kwargs(state: AppState, body: dict[str, Any]) -> dict[str, Any]:
    """Server defaults < --no-think < reasoning_effort < request chat_template_kwargs;
    an explicit enable_thinking=false in the request stays authoritative."""
    from engine.reasoning import resolve_template_kwargs

    s = state.settings
    effort = body.get("reasoning_effort") or s.reasoning_effort
    request_kwargs = dict(body.get("chat_template_kwargs") or {})
    if effort == "none":
        request_kwargs.setdefault("enable_thinking", False)
        effort = None
    return resolve_template_kwargs(s.default_chat_template_kwargs, request_kwargs,
                                   EFFORT_MAP.get(effort) if effort else None, s.no_think)


def _is_strict(response_format: dict[str, Any] | None, tools: list[dict[str, Any]] | None) -> bool:
    strict_schema = bool(response_format and response_format.get("type") == "json_schema"
                         and (response_format.get("json_schema") or {}).get("strict"))
    strict_tool = any((t.get("function") or {}).get("strict") for t in tools or [])
    return strict_schema or strict_tool


def _response_format(state: AppState, body: dict[str, Any]) -> dict[str, Any] | None:
    """The request's format wins; --guided-json applies only when the request has none."""
    if body.get("response_format") is not None:
        fmt = body["response_format"]
        if fmt.get("type") == "json_schema" and not isinstance(fmt.get("json_schema"), dict):
                raise InvalidRequest("response_format json_schema needs 'json_schema'",
                                     param="response_format.json_schema")
        return fmt
    if state.settings.guided_json is not None:
        return {"type": "json_schema",
                "json_schema": {"name": "guided_json", "schema": state.settings.guided_json,
                                "strict": True}}
    return None


async def prepare_chat(state: AppState, body: dict[str, Any], request_id: str,
                       *, priority: int = 0) -> PreparedChat:
    """Validate and translate a chat request (400 for anything the engine cannot honour)."""
    from jinja2 import TemplateError

    from engine.grammar import GrammarError, build_constraint
    from engine.reasoning import reasoning_state, thinking_enabled
    from engine.templating import render_prompt
    from handlers.generation import check_common, sampling_params

    engine = state.require_engine()
    s = state.settings
    check_common(s, body)
    logprobs = bool(body.get("logprobs"))
    top_logprobs = body.get("top_logprobs") or 0
    if top_logprobs > s.max_logprobs:
        raise InvalidRequest(f"top_logprobs may be at most {s.max_logprobs} on this server "
                             "(--max-logprobs)", param="top_logprobs")
    if top_logprobs and not logprobs:
        raise InvalidRequest("top_logprobs requires logprobs=true", param="top_logprobs")
    tools = body.get("tools") or None
    tool_choice = body.get("tool_choice")
    check_tool_choice(tools, tool_choice)
    messages = normalise_messages(body["messages"], s.instructions)
    kwargs = template_kwargs(state, body)
    template_tools = tools if tool_choice != "none" else None
    try:
        prompt_text = await asyncio.to_thread(render_prompt, engine.tokenizer, messages,
                                              template_tools, kwargs, True)
    except TemplateError as exc:
        raise InvalidRequest(f"The chat template rejected these messages: {exc}",
                             param="messages") from exc
    prompt_tokens = await asyncio.to_thread(engine.encode, prompt_text)
    reasoning = reasoning_state(prompt_text, thinking_enabled(kwargs))
    params = sampling_params(s, body, prompt_tokens=len(prompt_tokens),
                             max_context=engine.max_context, logprobs=logprobs,
                             top_logprobs=top_logprobs)
    response_format = _response_format(state, body)
    parallel = body.get("parallel_tool_calls")
    parallel = True if parallel is None else bool(parallel)
    headers: dict[str, str] = {}
    constraint = None
    if s.grammar_constraints:
        try:
            constraint = await asyncio.to_thread(
                build_constraint, state.grammar,
                response_format=response_format,
                tools=tools if tool_choice != "none" else None,
                tool_choice=tool_choice, parallel_tool_calls=parallel,
                tool_format=state.tool_format,
                reasoning=reasoning.expected and not s.raw,
                reasoning_started=reasoning.started)
        except GrammarError as exc:
            raise InvalidRequest(f"Cannot enforce this request's structure: {exc}",
                                 param="response_format" if response_format else "tools",
                                 code="unsupported_schema") from exc
    elif _is_strict(response_format, tools if tool_choice != "none" else None):
        headers["X-Grammar-Constraints"] = "downgraded"
    stream_options = body.get("stream_options") or {}
    include_usage = stream_options.get("include_usage")
    return PreparedChat(
        request=GenerationRequest(request_id=request_id, prompt_tokens=prompt_tokens,
                                  params=params, constraint=constraint, priority=priority),
        tools=tools,
        tool_format=state.tool_format,
        parse_tools=bool(tools) and tool_choice != "none",
        parallel_tool_calls=parallel,
        reasoning_started=reasoning.started,
        parse_reasoning=not s.raw,
        stream=bool(body.get("stream")),
        include_usage=True if include_usage is None else bool(include_usage),
        logprobs=logprobs,
        headers=headers,
    )


def tool_call_json(call: Any) -> dict[str, Any]:
    return {"id": call.id, "type": "function",
            "function": {"name": call.name, "arguments": call.arguments_json}}


def logprob_json(lp: Any) -> dict[str, Any]:
    return {"token": lp.token, "logprob": lp.logprob, "bytes": lp.bytes,
            "top_logprobs": [{"token": t.token, "logprob": t.logprob, "bytes": t.bytes}
                             for t in lp.top_logprobs]}


