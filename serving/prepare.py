"""A surface-neutral chat request -> everything the engine and the output parser need.

Each chat-like surface (chat completions, and later responses and messages) translates its own
request model into a :class:`ChatSpec`; :func:`prepare` does the rest once: server defaults,
reasoning controls, the chat template, tokenisation, the context check, sampling parameters
and the grammar constraint.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from engine.types import GenerationRequest
from serving.context import note_warnings
from serving.errors import InvalidRequest
from serving.output_parser import OutputProcessor
from serving.sampling import SamplingFields, sampling_params
from serving.toolspec import ToolChoice
from serving.volatile import WARNING as VOLATILE_WARNING
from serving.volatile import drop_volatile

if TYPE_CHECKING:
    from serving.model_context import ModelContext

EFFORT_MAP = {"minimal": "low", "low": "low", "medium": "high", "high": "high", "xhigh": "max",
              "max": "max"}
"""OpenAI and Anthropic efforts -> the DeepSeek-style template control's names."""

WARNINGS_HEADER = "X-AFM-Warnings"
BLOCK_JOIN = "\n\n"



@dataclass
class ChatSpec:
    """A chat request in engine terms, whatever API surface it came from.

    ``messages`` are in the shape chat templates take (role, content text, tool_calls...);
    ``tools`` are OpenAI function tools as plain data; ``response_format`` is OpenAI's.
    """

    messages: list[dict[str, Any]]
    sampling: SamplingFields = field(default_factory=SamplingFields)
    tools: list[dict[str, Any]] | None = None
    tool_choice: ToolChoice = None
    parallel_tool_calls: bool = True
    response_format: dict[str, Any] | None = None
    reasoning_effort: str | None = None
    template_kwargs: dict[str, Any] | None = None
    logprobs: bool = False
    top_logprobs: int = 0
    priority: int = 0
    warnings: list[str] = field(default_factory=list)
    """What the translator left out of the request (X-AFM-Warnings and the access log)."""

    @property
    def active_tools(self) -> list[dict[str, Any]] | None:
        """The tools the model may call (none when tool_choice is `none`)."""
        return self.tools if self.tools and self.tool_choice != "none" else None


Render = Callable[[list[dict[str, Any]], bool], str]
"""The request's template rendering of some messages (with or without the generation prompt)."""


class Prefix(Protocol):
    """Tokens that stand for the start of the conversation (a stored turn, as the model saw
    and made it): :meth:`tail` finds the text the full rendering adds after them."""

    tokens: list[int]

    def tail(self, full: str, render: Render) -> str | None:
        """The rendered text after the prefix, or None when ``full`` does not start with it."""
        ...


@dataclass
class Prepared:
    """A validated request, ready for the engine, and how to parse its output."""

    request: GenerationRequest
    tools: list[dict[str, Any]] | None
    tool_format: str
    parallel_tool_calls: bool
    reasoning_started: bool
    parse_reasoning: bool
    logprobs: bool
    headers: dict[str, str] = field(default_factory=dict)
    repair_tool_calls: bool = False
    """Read calls written outside the format's markup (engine.tool_repair; off with
    --strict-tool-calls)."""

    def output_parser(self) -> OutputProcessor:
        """A fresh parser splitting the model's text into content, reasoning and tool calls."""
        return OutputProcessor(self.tool_format, self.tools, self.reasoning_started,
                               bool(self.tools), parallel_tool_calls=self.parallel_tool_calls,
                               parse_reasoning=self.parse_reasoning,
                               repair=self.repair_tool_calls, on_repair=self.note)

    def note(self, warning: str) -> None:
        """Report something decided while the reply was parsed: in X-AFM-Warnings (a JSON
        reply's headers are sent after it; a stream's went out before) and the access log."""
        note_warnings([warning])
        old = self.headers.get(WARNINGS_HEADER)
        new = warnings_header([warning])
        self.headers[WARNINGS_HEADER] = f"{old}; {new}" if old else new


def check_tool_choice(tools: list[dict[str, Any]] | None, choice: ToolChoice,
                      param: str = "tool_choice") -> None:
    """A named choice must name one of the tools; `required` needs a tool."""
    names = {t["function"]["name"] for t in tools or []}
    if isinstance(choice, dict):
        name = (choice.get("function") or {}).get("name")
        if name not in names:
            raise InvalidRequest(f"tool_choice names function {name!r}, which is not among "
                                 "tools", param=param)
    elif choice == "required" and not names:
        raise InvalidRequest("tool_choice 'required' needs at least one tool", param=param)


def template_kwargs(state: ModelContext, effort: str | None,
                    request_kwargs: dict[str, Any] | None) -> dict[str, Any]:
    """Server defaults < --no-think < reasoning effort < request chat_template_kwargs;
    an explicit enable_thinking=false in the request stays authoritative."""
    from engine.reasoning import resolve_template_kwargs

    s = state.settings
    effort = effort or s.reasoning_effort
    kwargs = dict(request_kwargs or {})
    if effort == "none":
        kwargs.setdefault("enable_thinking", False)
        effort = None
    return resolve_template_kwargs(s.default_chat_template_kwargs, kwargs,
                                   EFFORT_MAP.get(effort) if effort else None, s.no_think)


def normalise_messages(messages: list[dict[str, Any]],
                       instructions: str | None) -> list[dict[str, Any]]:
    """Template-shaped messages with `--instructions` as the system prompt when none is given."""
    out = list(messages)
    if instructions and not any(m["role"] == "system" for m in out):
        out.insert(0, {"role": "system", "content": instructions})
    return out


def hoist_system(messages: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
    """The messages with every later system turn appended to the leading system prompt, or
    None when there is no later system turn."""
    later = [m for m in messages[1:] if m["role"] == "system"]
    if not later:
        return None
    head = messages[0] if messages and messages[0]["role"] == "system" else None
    text = BLOCK_JOIN.join(m["content"] or "" for m in ([head] if head else []) + later)
    rest = [m for m in messages[1 if head else 0:] if m["role"] != "system"]
    return [{"role": "system", "content": text}, *rest]


async def render_tokens(state: ModelContext, messages: list[dict[str, Any]],
                        tools: list[dict[str, Any]] | None, kwargs: dict[str, Any],
                        add_generation_prompt: bool = True,
                        warnings: list[str] | None = None,
                        prefix: Prefix | None = None) -> tuple[str, list[int]]:
    """The chat template's prompt text and its tokens (400 when the template refuses),
    rendered once, off the event loop. With ``prefix``, the tokens are the prefix's followed by
    those of the text the rendering adds after it (when it does start with it).

    A template that refuses system turns after the first message gets them appended to the
    leading system prompt instead (noted in ``warnings``; the prefix then does not apply).
    Per-session client metadata is left out first (:mod:`serving.volatile`; noted too)."""
    from jinja2 import TemplateError

    from engine.templating import render_prompt

    engine = state.require_engine()
    instructions = state.settings.instructions
    keep = state.settings.keep_volatile_prompt_parts
    if not keep:
        messages, dropped = drop_volatile(messages)
        if dropped and warnings is not None:
            warnings.append(VOLATILE_WARNING)
    messages = normalise_messages(messages, instructions)

    def render(msgs: list[dict[str, Any]], generation_prompt: bool) -> str:
        if not keep:  # a stored conversation (prefix) is rendered by the same rule
            msgs = drop_volatile(msgs)[0]
        return render_prompt(engine.tokenizer, normalise_messages(msgs, instructions), tools,
                             kwargs, generation_prompt)

    def run() -> tuple[str, list[int], TemplateError | None]:
        try:
            text = render(messages, add_generation_prompt)
        except TemplateError as exc:
            hoisted = hoist_system(messages)
            if hoisted is None:
                raise InvalidRequest(f"The chat template rejected these messages: {exc}",
                                     param="messages") from exc
            try:
                text = render(hoisted, add_generation_prompt)
            except TemplateError as exc2:
                raise InvalidRequest(f"The chat template rejected these messages: {exc2}",
                                     param="messages") from exc2
            return text, engine.encode(text), exc
        tail = prefix.tail(text, render) if prefix is not None else None
        if prefix is not None and tail is not None:
            return text, prefix.tokens + engine.encode(tail), None
        return text, engine.encode(text), None

    text, tokens, refused = await asyncio.to_thread(run)
    if refused is not None and warnings is not None:
        warnings.append("messages: later system turns appended to the leading system "
                        f"prompt (the chat template refused them in place: {refused})")
    return text, tokens


def _is_strict(response_format: dict[str, Any] | None,
               tools: list[dict[str, Any]] | None) -> bool:
    strict_schema = bool(response_format and response_format.get("type") == "json_schema"
                         and (response_format.get("json_schema") or {}).get("strict"))
    return strict_schema or any((t.get("function") or {}).get("strict") for t in tools or [])


def _response_format(state: ModelContext, spec: ChatSpec) -> dict[str, Any] | None:
    """The request's format wins; --guided-json applies only when the request has none."""
    if spec.response_format is not None:
        return spec.response_format
    if state.settings.guided_json is not None:
        return {"type": "json_schema",
                "json_schema": {"name": "guided_json", "schema": state.settings.guided_json,
                                "strict": True}}
    return None


def warnings_header(warnings: list[str]) -> str:
    """The warnings as one header value (printable ASCII, one line: a client's control
    characters, echoed in a warning, would make the header invalid)."""
    text = "; ".join(" ".join(w.split()) for w in warnings)
    return "".join(c if " " <= c <= "~" else "?" for c in text)


async def prepare(state: ModelContext, spec: ChatSpec, request_id: str,
                  prefix: Prefix | None = None) -> Prepared:
    """Validate and translate a chat spec (400 for anything the engine cannot honour);
    ``prefix``: continue on a stored conversation's tokens (see :func:`render_tokens`)."""
    from engine.grammar import GrammarError, build_constraint
    from engine.reasoning import reasoning_state, thinking_enabled

    engine = state.require_engine()
    s = state.settings
    if spec.top_logprobs > s.max_logprobs:
        raise InvalidRequest(f"top_logprobs may be at most {s.max_logprobs} on this server "
                             "(--max-logprobs)", param="top_logprobs")
    if spec.top_logprobs and not spec.logprobs:
        raise InvalidRequest("top_logprobs requires logprobs=true", param="top_logprobs")
    check_tool_choice(spec.tools, spec.tool_choice)
    tools = spec.active_tools
    kwargs = template_kwargs(state, spec.reasoning_effort, spec.template_kwargs)
    prompt_text, prompt_tokens = await render_tokens(state, spec.messages, tools, kwargs,
                                                     warnings=spec.warnings, prefix=prefix)
    reasoning = reasoning_state(prompt_text, thinking_enabled(kwargs), engine.think_markup)
    params = sampling_params(s, spec.sampling, prompt_tokens=len(prompt_tokens),
                             max_context=engine.max_context, logprobs=spec.logprobs,
                             top_logprobs=spec.top_logprobs,
                             defaults=state.generation_defaults)
    response_format = _response_format(state, spec)
    headers: dict[str, str] = {}
    constraint = None
    if s.grammar_constraints:
        try:
            constraint = await asyncio.to_thread(
                build_constraint, state.grammar, response_format=response_format,
                tools=tools, tool_choice=spec.tool_choice,
                parallel_tool_calls=spec.parallel_tool_calls, tool_format=state.tool_format,
                reasoning=reasoning.expected and not s.raw,
                reasoning_started=reasoning.started)
        except GrammarError as exc:
            raise InvalidRequest(f"Cannot enforce this request's structure: {exc}",
                                 param="response_format" if response_format else "tools",
                                 code="unsupported_schema") from exc
    elif _is_strict(response_format, tools):
        headers["X-Grammar-Constraints"] = "downgraded"
    if spec.warnings:
        headers[WARNINGS_HEADER] = warnings_header(spec.warnings)
        note_warnings(spec.warnings)
    return Prepared(
        request=GenerationRequest(request_id=request_id, prompt_tokens=prompt_tokens,
                                  params=params, constraint=constraint, priority=spec.priority),
        tools=tools,
        tool_format=state.tool_format,
        parallel_tool_calls=spec.parallel_tool_calls,
        reasoning_started=reasoning.started,
        parse_reasoning=not s.raw and engine.think_markup,
        logprobs=spec.logprobs,
        headers=headers,
        repair_tool_calls=not s.strict_tool_calls,
    )
