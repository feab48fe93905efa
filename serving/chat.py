"""Chat completions: ChatCompletionRequest -> ChatSpec (translator) and engine output ->
`chat.completion` objects and `chat.completion.chunk` stream events (shapers)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any

from engine.types import GenerationStats, TokenLogprob
from generated.models import ChatCompletionRequest
from serving import ids
from serving.context import current_request_id
from serving.driver import Failed, Final, Generation, Start, Step, collect, encode
from serving.output_parser import Delta
from serving.prepare import ChatSpec, Prepared
from serving.run import finish_reason
from serving.sampling import SamplingFields
from serving.toolspec import text_only
from serving.usage import PROFILE_MODES, afm_profile, timings, usage
from serving.values import plain, unwrap

if TYPE_CHECKING:
    from serving.model_context import ModelContext

# ---------------------------------------------------------------- translator
def _part_text(part: Any, where: str) -> str:
    part = unwrap(part)
    if part.type == "text":
        return part.text
    raise text_only(part.type, where)


def template_messages(messages: list[Any]) -> list[dict[str, Any]]:
    """OpenAI chat messages -> the shape chat templates take: developer -> system, parts
    joined, tool calls and tool results kept for multi-turn tool conversations."""
    out: list[dict[str, Any]] = []
    for i, message in enumerate(messages):
        message = unwrap(message)  # the contract made content required per role
        role = "system" if message.role == "developer" else message.role
        content = unwrap(message.content)
        if isinstance(content, list):
            content = "".join(_part_text(p, f"messages[{i}].content[{j}]")
                              for j, p in enumerate(content))
        item: dict[str, Any] = {"role": role, "content": content}
        if role == "assistant":
            if getattr(message, "tool_calls", None):
                item["tool_calls"] = [
                    {"id": c.id, "type": "function",
                     "function": {"name": c.function.name, "arguments": c.function.arguments}}
                    for c in message.tool_calls]
            if getattr(message, "reasoning_content", None):
                item["reasoning_content"] = message.reasoning_content
        if role == "tool" and getattr(message, "tool_call_id", None):
            item["tool_call_id"] = message.tool_call_id
        if getattr(message, "name", None):
            item["name"] = message.name
        out.append(item)
    return out


def function_tools(tools: list[Any] | None) -> list[dict[str, Any]] | None:
    """Typed function tools as plain data (None when there are none)."""
    return [plain(t) for t in tools] if tools else None


def to_spec(req: ChatCompletionRequest, *, priority: int = 0) -> ChatSpec:
    """The translator: a chat completion request in engine terms."""
    response_format = plain(req.response_format)
    effort = plain(req.reasoning_effort)
    return ChatSpec(
        messages=template_messages(req.messages),
        sampling=SamplingFields.of(req),
        tools=function_tools(req.tools),
        tool_choice=plain(req.tool_choice),
        parallel_tool_calls=req.parallel_tool_calls is not False,
        response_format=response_format,
        reasoning_effort=effort,
        template_kwargs=req.chat_template_kwargs,
        logprobs=bool(req.logprobs),
        top_logprobs=req.top_logprobs or 0,
        priority=priority,
    )


def include_usage(req: ChatCompletionRequest | Any) -> bool:
    """Streams end with a usage chunk unless `stream_options.include_usage` is false."""
    options = req.stream_options
    return options is None or options.include_usage is not False


# ---------------------------------------------------------------- shapers
def tool_call_json(call: Any) -> dict[str, Any]:
    return {"id": call.id, "type": "function",
            "function": {"name": call.name, "arguments": call.arguments_json}}


def logprob_json(lp: TokenLogprob) -> dict[str, Any]:
    return {"token": lp.token, "logprob": lp.logprob, "bytes": lp.bytes,
            "top_logprobs": [{"token": t.token, "logprob": t.logprob, "bytes": t.bytes}
                             for t in lp.top_logprobs]}


def error_payload(message: str, type: str = "internal_error") -> dict[str, Any]:
    """The error object carried by a stream's error chunk."""
    return {"message": message, "type": type, "code": None, "request_id": current_request_id()}


def _header(state: ModelContext) -> dict[str, Any]:
    return {"created": ids.now(), "model": state.model_id,
            "system_fingerprint": ids.fingerprint(state.model_id)}


async def complete(state: ModelContext, p: Prepared, profile: str = "") -> dict[str, Any]:
    """Run a chat request to the end and shape the `chat.completion` object."""
    done = await collect(state.require_engine(), p.request, state.settings.queue_timeout)
    parser = p.output_parser()
    parser.feed(done.text)
    final = parser.finish(truncated=done.finish_reason == "length")
    message: dict[str, Any] = {"role": "assistant", "content": final.content}
    if final.reasoning_content is not None:
        message["reasoning_content"] = final.reasoning_content
    if final.tool_calls:
        message["tool_calls"] = [tool_call_json(c) for c in final.tool_calls]
    result: dict[str, Any] = {
        "id": ids.new_id("chatcmpl-"), "object": "chat.completion", **_header(state),
        "choices": [{
            "index": 0,
            "message": message,
            "logprobs": ({"content": [logprob_json(lp) for lp in done.logprobs]}
                         if p.logprobs else None),
            "finish_reason": finish_reason(done.finish_reason, bool(final.tool_calls)),
        }],
        "usage": usage(done.stats),
        "timings": timings(done.stats),
    }
    if profile in PROFILE_MODES:
        result["afm_profile"] = afm_profile(state, done.stats, profile)
    return result


def delta_json(delta: Delta) -> dict[str, Any]:
    """An output delta as a chunk's `delta` object."""
    out: dict[str, Any] = {}
    if delta.content is not None:
        out["content"] = delta.content
    if delta.reasoning_content is not None:
        out["reasoning_content"] = delta.reasoning_content
    if delta.tool_call is not None:
        tc = delta.tool_call
        call: dict[str, Any] = {"index": tc.index}
        if tc.id is not None:
            call.update(id=tc.id, type="function",
                        function={"name": tc.name, "arguments": tc.arguments})
        else:
            call["function"] = {"arguments": tc.arguments}
        out["tool_calls"] = [call]
    return out


async def stream(state: ModelContext, p: Prepared, *, with_usage: bool = True,
                 profile: str = "") -> AsyncIterator[dict[str, Any]]:
    """Admit the request (503 surfaces here, before any output), then return the
    `chat.completion.chunk` events; errors after that become an error chunk."""
    generation = await Generation.open(state.require_engine(), p.request,
                                       state.settings.queue_timeout, p.output_parser())
    encoder = ChunkEncoder(_header(state), p.logprobs, with_usage,
                           (lambda stats: afm_profile(state, stats, profile))
                           if profile in PROFILE_MODES else None)
    return encode(generation, encoder, p.request.request_id)


class ChunkEncoder:
    """The driver's events as `chat.completion.chunk` objects: a role chunk, one chunk per
    delta (logprobs on the first of a step), the finish chunk (an error chunk when the engine
    failed), then the usage chunk and the X-AFM-Profile chunk when asked for."""

    def __init__(self, header: dict[str, Any], logprobs: bool, with_usage: bool = True,
                 profile: Callable[[GenerationStats], dict[str, Any]] | None = None) -> None:
        self.base = {"id": ids.new_id("chatcmpl-"), "object": "chat.completion.chunk",
                     **header}
        self.logprobs = logprobs
        self.with_usage = with_usage
        self.profile = profile
        self.has_calls = self.has_content = False

    def chunk(self, delta: dict[str, Any], finish: str | None = None,
              logprobs: list[dict[str, Any]] | None = None) -> dict[str, Any]:
        lps = {"content": logprobs or []} if self.logprobs else None
        return {**self.base, "choices": [{"index": 0, "delta": delta, "logprobs": lps,
                                          "finish_reason": finish}]}

    def error_chunk(self, content: str, error: dict[str, Any]) -> dict[str, Any]:
        return {**self.base, "choices": [{"index": 0, "delta": {"content": content},
                                          "logprobs": None, "finish_reason": "error"}],
                "error": error}

    def start(self, event: Start) -> list[dict[str, Any]]:
        # content null until text comes: a calls-only turn accumulates to content null, as
        # the JSON reply has it
        return [self.chunk({"role": "assistant", "content": None})]

    def step(self, event: Step) -> list[dict[str, Any]]:
        lps = [logprob_json(lp) for lp in event.logprobs]
        out = []
        for i, delta in enumerate(event.deltas):
            self.has_calls = self.has_calls or delta.tool_call is not None
            self.has_content = self.has_content or delta.content is not None
            out.append(self.chunk(delta_json(delta), logprobs=lps if i == 0 else None))
        if lps and not event.deltas:
            out.append(self.chunk({}, logprobs=lps))
        return out

    def _tail(self, stats: GenerationStats) -> list[dict[str, Any]]:
        out = []
        if self.with_usage:
            out.append({**self.base, "choices": [], "usage": usage(stats),
                        "timings": timings(stats)})
        if self.profile is not None:
            out.append({**self.base, "choices": [], "afm_profile": self.profile(stats)})
        return out

    async def final(self, event: Final) -> list[dict[str, Any]]:
        # an empty answer without calls: content "", as in the JSON reply
        empty = {} if self.has_calls or self.has_content else {"content": ""}
        return [self.chunk(empty, finish_reason(event.finish_reason, self.has_calls)),
                *self._tail(event.stats)]

    async def failed(self, event: Failed) -> list[dict[str, Any]]:
        return [self.error_chunk(f"[error] {event.message}",
                                 error_payload(f"Generation failed: {event.message}")),
                *self._tail(event.stats)]

    def crashed(self, exc: Exception) -> list[dict[str, Any]]:
        return [self.error_chunk("[error] internal error", error_payload(str(exc)))]

    def ping(self) -> list[dict[str, Any]]:
        return []
