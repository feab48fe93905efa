"""Responses API: CreateResponseRequest -> ChatSpec (translator, with `previous_response_id`
conversations rebuilt from the store) and engine output -> `response` objects and typed stream
events (shapers, with :mod:`serving.response_output`).

Continuing a stored conversation reuses the prefix cache: a stored turn keeps the tokens the
model actually saw and produced (prompt + output + the template's end of turn), and the next
turn's prompt is those tokens followed by the template's rendering of the new items only, so
the engine finds the whole earlier conversation in its cache.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from engine.types import GenerationStats
from generated.models import CreateResponseRequest, ResponseTextFormatJsonSchema
from serving import ids, sealed
from serving.context import current_request_id, lease_scope
from serving.conversation import (
    Turn,
    continuation,
    input_items,
    item_messages,
    render_key,
    turn_end_tokens,
)
from serving.driver import Failed, Final, Generation, Start, Step, collect, encode
from serving.errors import ApiError, InvalidRequest, NotFound, ShuttingDown
from serving.prepare import ChatSpec, Prepared, prepare, template_kwargs
from serving.response_output import Event, OutputBuilder, assistant_messages
from serving.sampling import SamplingFields
from serving.store import StoreError, api_error
from serving.toolspec import function_tool, named_choice
from serving.values import plain, unwrap

if TYPE_CHECKING:
    from serving.model_context import ModelContext, Server

log = logging.getLogger("afm.responses")

T = TypeVar("T")

HOSTED_TOOLS = ("web_search", "file_search", "code_interpreter", "computer", "mcp",
                "image_generation")
"""Tool types OpenAI runs on its side; a local server cannot."""

NAMESPACE_SEPARATOR = "."
"""A namespace tool's function is offered to the model as `<namespace>.<name>`."""

ENCRYPTED_REASONING = "reasoning.encrypted_content"


def _left_out(kind: str) -> str:
    if kind.startswith(HOSTED_TOOLS):
        return "a hosted tool this server cannot run"
    return "only function and namespace tools are offered to the model here"


def _function(tool: dict[str, Any], name: str) -> dict[str, Any]:
    return function_tool(name, tool.get("parameters") or {"type": "object"},
                         tool.get("description") or None, tool.get("strict"))


def tools(req: CreateResponseRequest, warnings: list[str]
          ) -> tuple[list[dict[str, Any]] | None, dict[str, tuple[str, str]]]:
    """The function tools the model is offered (namespace tools' functions as
    `<namespace>.<name>`), and those qualified names -> (namespace, name). Other tool types
    are left out and noted in ``warnings``."""
    out: list[dict[str, Any]] = []
    names: dict[str, tuple[str, str]] = {}
    for i, tool in enumerate(req.tools or []):
        tool = unwrap(tool)  # the contract's oneOf by type
        kind = tool.type
        if kind == "function":
            if not tool.name:
                raise InvalidRequest(f"tools[{i}] (function) needs a 'name'",
                                     param=f"tools[{i}].name")
            out.append(_function(plain(tool), tool.name))
        elif kind == "namespace":
            if not tool.name:
                raise InvalidRequest(f"tools[{i}] (namespace) needs a 'name'",
                                     param=f"tools[{i}].name")
            for j, inner in enumerate(plain(tool.tools) or []):
                where = f"tools[{i}].tools[{j}]"
                inner_kind = inner.get("type") or "function"
                if inner_kind != "function":
                    warnings.append(f"{where} ({inner_kind}) left out: {_left_out(inner_kind)}")
                    continue
                if not isinstance(inner.get("name"), str) or not inner["name"]:
                    raise InvalidRequest(f"{where} (function) needs a 'name'",
                                         param=f"{where}.name")
                qualified = tool.name + NAMESPACE_SEPARATOR + inner["name"]
                names[qualified] = (tool.name, inner["name"])
                out.append(_function(inner, qualified))
        else:
            warnings.append(f"tools[{i}] ({kind}) left out: {_left_out(kind)}")
    return out or None, names


def _tool_choice(req: CreateResponseRequest, offered: list[dict[str, Any]] | None
                 ) -> str | dict[str, Any] | None:
    choice = plain(req.tool_choice)
    if isinstance(choice, dict):
        kind = choice.get("type")
        if kind != "function":
            raise InvalidRequest(f"tool_choice names a '{kind}' tool, which this server left "
                                 f"out of the prompt ({_left_out(str(kind))}); name a function "
                                 "tool", param="tool_choice")
        name = choice.get("name")
        if choice.get("namespace"):
            name = choice["namespace"] + NAMESPACE_SEPARATOR + str(name)
        return named_choice(name)
    if choice == "required" and not offered and req.tools:
        raise InvalidRequest("tool_choice 'required' needs a function tool; this request's "
                             "tools were all left out (only function and namespace tools are "
                             "offered to the model here)", param="tool_choice")
    return choice


def _response_format(req: CreateResponseRequest) -> dict[str, Any] | None:
    """`text.format` as a chat `response_format` (the contract requires `name` and `schema`
    for `json_schema`)."""
    fmt = unwrap(req.text.format) if req.text is not None else None
    if fmt is None:
        return None
    if not isinstance(fmt, ResponseTextFormatJsonSchema):
        return {"type": plain(fmt.type)}
    schema: dict[str, Any] = {"name": fmt.name, "schema": fmt.schema_}
    if fmt.strict is not None:
        schema["strict"] = fmt.strict
    return {"type": "json_schema", "json_schema": schema}


def settings(req: CreateResponseRequest) -> dict[str, Any]:
    """The request settings a `response` object echoes."""
    choice = plain(req.tool_choice)
    fmt = plain(req.text.format) if req.text is not None and req.text.format else None
    reasoning = plain(req.reasoning) if req.reasoning is not None else None
    return {
        "background": bool(req.background),
        "instructions": req.instructions,
        "max_output_tokens": req.max_output_tokens,
        "parallel_tool_calls": req.parallel_tool_calls is not False,
        "previous_response_id": req.previous_response_id,
        "reasoning": {"effort": (reasoning or {}).get("effort"),
                      "summary": (reasoning or {}).get("summary")},
        "store": req.store is not False,
        "temperature": req.temperature,
        "top_p": req.top_p,
        "text": {"format": fmt or {"type": "text"}},
        "tool_choice": choice if choice is not None else "auto",
        "tools": [plain(t) for t in req.tools or []],
        "truncation": plain(req.truncation) or "disabled",
        "user": req.user,
        "metadata": req.metadata or {},
    }


@dataclass
class Plan:
    """A validated request: what to run, what to echo, and what to store."""

    id: str
    created_at: int
    model: str
    settings: dict[str, Any]
    input_items: list[dict[str, Any]]
    messages: list[dict[str, Any]]  # the conversation without instructions, for the store
    prepared: Prepared
    render_key: str
    store: bool
    background: bool
    stream: bool
    tool_names: dict[str, tuple[str, str]] = dataclasses.field(default_factory=dict)
    seal_key: bytes | None = None  # set when reasoning items carry encrypted_content
    turn_end_tokens: list[int] | None = None  # the template's end of an assistant turn

    def builder(self) -> OutputBuilder:
        return OutputBuilder(self.tool_names, self.seal_key)


async def plan(state: ModelContext, req: CreateResponseRequest, request_id: str,
               previous: Turn | None, *, priority: int = 0) -> Plan:
    """Translate and prepare a request; ``previous`` is the stored turn it continues."""
    if req.background and req.store is False:
        raise InvalidRequest("background responses must be stored; drop store=false",
                             param="background")
    if req.background and req.stream:
        raise InvalidRequest("background responses cannot be streamed here; poll "
                             "GET /v1/responses/{id} instead", param="stream")
    warnings: list[str] = []
    items = input_items(req.input, sealed.key(state), warnings)
    history = list(previous.messages) if previous is not None else []
    new_messages = item_messages(items)
    if not history and not new_messages:  # the contract makes a given input non-empty
        raise InvalidRequest("input is required without previous_response_id" if not items
                             else "input needs a message or call, not only reasoning items",
                             param="input")
    head = [{"role": "system", "content": req.instructions}] if req.instructions else []
    effort = plain(req.reasoning.effort) if req.reasoning is not None else None
    offered, names = tools(req, warnings)
    spec = ChatSpec(
        messages=head + history + new_messages,
        sampling=SamplingFields(temperature=req.temperature, top_p=req.top_p, seed=req.seed,
                                max_tokens=req.max_output_tokens),
        tools=offered, tool_choice=_tool_choice(req, offered),
        parallel_tool_calls=req.parallel_tool_calls is not False,
        response_format=_response_format(req), reasoning_effort=effort, priority=priority,
        warnings=warnings)
    key = render_key(state.model_id, req.instructions, spec.active_tools,
                     template_kwargs(state, effort, None))
    end, end_tokens = await asyncio.to_thread(turn_end_tokens, state)
    prefix = continuation(previous, key, head + history, end)
    auto = plain(req.truncation) == "auto"
    while True:
        try:
            prepared = await prepare(state, spec, request_id, prefix)
            break
        except InvalidRequest as exc:
            if not (auto and exc.code == "context_length_exceeded" and len(spec.messages) >
                    len(head) + 1):
                raise
            spec.messages = head + spec.messages[len(head) + 1:]  # drop the oldest item
            prefix = None  # the stored prefix no longer applies
    return Plan(id=ids.new_id("resp_"), created_at=ids.now(), model=state.model_id,
                settings=settings(req), input_items=items,
                messages=spec.messages[len(head):], prepared=prepared, render_key=key,
                store=req.store is not False, background=bool(req.background),
                stream=bool(req.stream), tool_names=names,
                seal_key=sealed.key(state) if ENCRYPTED_REASONING in (req.include or [])
                else None, turn_end_tokens=end_tokens)


# ---------------------------------------------------------------- shapers
def response_object(p: Plan, status: str, output: list[dict[str, Any]] | None = None,
                    usage: dict[str, Any] | None = None, error: dict[str, Any] | None = None,
                    completed_at: int | None = None) -> dict[str, Any]:
    """The `response` object in any status."""
    return {
        "id": p.id, "object": "response", "created_at": p.created_at,
        "completed_at": completed_at, "status": status, "error": error,
        "incomplete_details": ({"reason": "max_output_tokens"} if status == "incomplete"
                               else None),
        "model": p.model, "output": output or [], "usage": usage, **p.settings,
    }


def usage(state: ModelContext, stats: GenerationStats, reasoning: str) -> dict[str, Any]:
    reasoning_tokens = len(state.require_engine().encode(reasoning)) if reasoning else 0
    return {"input_tokens": stats.prompt_tokens,
            "input_tokens_details": {"cached_tokens": stats.cached_tokens},
            "output_tokens": stats.completion_tokens,
            "output_tokens_details": {
                "reasoning_tokens": min(reasoning_tokens, stats.completion_tokens)},
            "total_tokens": stats.prompt_tokens + stats.completion_tokens}


STATUS = {"length": "incomplete", "cancelled": "cancelled", "error": "failed"}


@dataclass
class Outcome:
    """A finished run: the response object and, when it can be continued, its stored turn."""

    response: dict[str, Any]
    turn: Turn | None


def _outcome(state: ModelContext, p: Plan, builder: OutputBuilder, end: Final | Failed,
             output_tokens: list[int]) -> Outcome:
    status = "failed" if isinstance(end, Failed) else STATUS.get(end.finish_reason, "completed")
    err = {"code": "server_error", "message": f"Generation failed: {end.message}"} \
        if isinstance(end, Failed) else None
    obj = response_object(p, status, builder.items,
                          usage(state, end.stats, builder.reasoning_text()), err, ids.now())
    turn = None
    if isinstance(end, Final) and status in ("completed", "incomplete"):
        context = None
        # no stop string cut the text: its tokens are what the turn says
        if end.text_exact and p.turn_end_tokens is not None:
            out = list(output_tokens)
            if out and out[-1] in state.require_engine().eos_token_ids:
                out.pop()
            context = p.prepared.request.prompt_tokens + out + p.turn_end_tokens
        turn = Turn(messages=p.messages + assistant_messages(builder.items),
                    render_key=p.render_key, context_tokens=context)
    return Outcome(obj, turn)


async def run(state: ModelContext, p: Plan) -> Outcome:
    """Run to the end and shape the whole `response` object (not stored)."""
    done = await collect(state.require_engine(), p.prepared.request,
                         state.settings.queue_timeout)
    parser = p.prepared.output_parser()
    builder = p.builder()
    builder.feed(parser.feed(done.text) + parser.flush(truncated=done.finish_reason == "length"))
    builder.finish(incomplete=done.finish_reason == "length")
    return _outcome(state, p, builder, done.final, done.token_ids)


async def complete(state: ModelContext, p: Plan) -> Outcome:
    """Run to the end, shape the whole `response` object and store it (JSON replies and
    batch lines)."""
    outcome = await run(state, p)
    await store_response(state, p, outcome.response, outcome.turn)
    return outcome


async def store_response(state: Server | ModelContext, p: Plan, obj: dict[str, Any],
                         turn: Turn | None = None, *, replaces: tuple[str, ...] = ()) -> bool:
    """The one place a response is written, in one transaction, by every path (JSON, stream,
    background, continuations): ``obj`` in any status, with ``turn``, what continues it.

    A new response is inserted with its input items (nothing when `store` is false or the
    server keeps no data directory); a background one already stored is replaced only while
    its status is one of ``replaces`` (so a racing cancel or delete wins). Returns whether it
    was written."""
    if not p.store or state.store is None:
        return False
    text = _turn_json(turn)
    if replaces:
        return await _in_store(state, lambda s: s.update(p.id, replaces, obj, text))
    await _in_store(state, lambda s: s.create(obj, p.input_items, text))
    return True


def _turn_json(turn: Turn | None) -> str | None:
    return None if turn is None else json.dumps(dataclasses.asdict(turn))


async def stream(state: ModelContext, p: Plan) -> AsyncIterator[Event]:
    """Admit the request (503 surfaces here, before any output), then return the typed
    events; the finished response is stored before the terminal event is sent."""
    generation = await Generation.open(state.require_engine(), p.prepared.request,
                                       state.settings.queue_timeout,
                                       p.prepared.output_parser())
    return encode(generation, ResponseEncoder(state, p), current_request_id())


class ResponseEncoder:
    """The driver's events as numbered Responses stream events: `response.created` and
    `.in_progress`, the output items' events, then (stored first) `response.completed`,
    `.incomplete` or `.failed`; an `error` event when the stream broke."""

    def __init__(self, state: ModelContext, p: Plan) -> None:
        self.state = state
        self.plan = p
        self.builder = p.builder()
        self.tokens: list[int] = []
        self.seq = 0

    def numbered(self, event: Event) -> Event:
        out = {"type": event["type"], "sequence_number": self.seq,
               **{k: v for k, v in event.items() if k != "type"}}
        self.seq += 1
        return out

    def start(self, event: Start) -> list[Event]:
        start = response_object(self.plan, "in_progress")
        return [self.numbered({"type": "response.created", "response": start}),
                self.numbered({"type": "response.in_progress", "response": start})]

    def step(self, event: Step) -> list[Event]:
        self.tokens += event.token_ids
        return [self.numbered(e) for e in self.builder.feed(event.deltas)]

    async def _end(self, end: Final | Failed) -> list[Event]:
        incomplete = isinstance(end, Final) and end.finish_reason == "length"
        out = [self.numbered(e) for e in self.builder.finish(incomplete=incomplete)]
        outcome = _outcome(self.state, self.plan, self.builder, end, self.tokens)
        await store_response(self.state, self.plan, outcome.response, outcome.turn)
        kind = {"incomplete": "response.incomplete", "failed": "response.failed"}.get(
            outcome.response["status"], "response.completed")
        return [*out, self.numbered({"type": kind, "response": outcome.response})]

    async def final(self, event: Final) -> list[Event]:
        return await self._end(event)

    async def failed(self, event: Failed) -> list[Event]:
        return await self._end(event)

    def crashed(self, exc: Exception) -> list[Event]:
        return [self.numbered({"type": "error", "code": "server_error", "message": str(exc),
                               "param": None})]

    def ping(self) -> list[Event]:
        return []


# ---------------------------------------------------------------- stored responses
async def previous_turn(state: Server | ModelContext, response_id: str | None) -> Turn | None:
    """The stored turn ``previous_response_id`` names (404 when unknown or not stored)."""
    if response_id is None:
        return None
    turn = await _in_store(state, lambda s: s.turn(response_id), param="previous_response_id")
    return Turn(**json.loads(turn))


async def open_plan(state: ModelContext, req: CreateResponseRequest, request_id: str, *,
                    priority: int = 0) -> Plan:
    """Translate and prepare a request, with its previous turn loaded from the store."""
    previous = await previous_turn(state, req.previous_response_id)
    return await plan(state, req, request_id, previous, priority=priority)


async def create(state: ModelContext, req: CreateResponseRequest, request_id: str, *,
                 priority: int = 0) -> dict[str, Any]:
    """A whole response, stored unless `store` is false (batch lines run this)."""
    p = await open_plan(state, req, request_id, priority=priority)
    return (await complete(state, p)).response


def _store(state: Server | ModelContext) -> Any:
    if state.store is None:
        raise NotFound("Response storage is not available (the server runs without --data-dir)")
    return state.store


async def _in_store(state: Server | ModelContext, call: Callable[[Any], T], *,
                    param: str | None = None) -> T:
    """``call(responses store)`` off the event loop; the store's errors become API errors
    (``param``: the request parameter whose response the store refused)."""
    store = _store(state)
    try:
        return await asyncio.to_thread(call, store.responses)
    except StoreError as exc:
        raise api_error(exc, param=param) from None


UNFINISHED = ("queued", "in_progress")


async def start_background(state: ModelContext, p: Plan) -> dict[str, Any]:
    """Store the response as `queued` and run it in the background, in the server's
    registry (``state.background``); returns the queued object."""
    _store(state)  # 404 without a data directory
    if state.background.stopping:
        raise ShuttingDown()
    queued = response_object(p, "queued")
    await store_response(state, p, queued)
    state.background.start(p.id, _held_background(state, p))
    return queued


async def _held_background(state: ModelContext, p: Plan) -> None:
    """Run in the background, holding the model in a lease scope of its own (the request's
    ends with its reply). Cut short because the server stops (its registry's ``stop``), the
    response is stored `cancelled`, as a graceful stop ends every run (a cancel or delete has
    already written its own end)."""
    try:
        with lease_scope():
            await _run_background(await state.for_model(state.model_id, new_request=False), p)
    except asyncio.CancelledError:
        if state.background.stopping:
            await store_response(state, p, response_object(p, "cancelled"), replaces=UNFINISHED)
        raise


async def _run_background(state: ModelContext, p: Plan) -> None:
    running = response_object(p, "in_progress")
    if not await store_response(state, p, running, replaces=("queued",)):
        return  # cancelled or deleted before it started
    turn = None
    try:
        outcome = await run(state, p)
        obj, turn = outcome.response, outcome.turn
    except ShuttingDown:  # still queued for a slot when the server began to stop
        obj = response_object(p, "cancelled")
    except ApiError as exc:
        obj = response_object(p, "failed", error={"code": exc.code or exc.type,
                                                  "message": exc.message})
    except Exception as exc:  # noqa: BLE001 - recorded on the response
        log.exception("background response %s failed", p.id)
        obj = response_object(p, "failed", error={"code": "server_error", "message": str(exc)})
    await store_response(state, p, obj, turn, replaces=("in_progress",))


async def cancel(state: Server | ModelContext, response_id: str) -> dict[str, Any]:
    """Cancel a queued or running background response (finished ones are returned as is)."""
    obj, changed = await _in_store(state, lambda s: s.cancel(response_id), param="response_id")
    if changed:
        state.background.cancel(response_id)
    return obj


async def delete(state: Server | ModelContext, response_id: str) -> None:
    """Delete a stored response, stopping it first if it runs in the background."""
    await _in_store(state, lambda s: s.delete(response_id))
    state.background.cancel(response_id)


async def retrieve(state: Server | ModelContext, response_id: str) -> dict[str, Any]:
    return await _in_store(state, lambda s: s.get(response_id))


async def input_items_page(state: Server | ModelContext, response_id: str, limit: int,
                           after: str | None, order: str) -> tuple[list[dict[str, Any]], bool]:
    return await _in_store(state, lambda s: s.input_items(response_id, limit, after, order))
