"""Request sampling fields -> engine SamplingParams, with the documented precedence:
request value > server flag > engine default; `max_tokens` is capped by the context window."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from engine.types import SamplingParams
from serving.errors import InvalidRequest

if TYPE_CHECKING:
    from serving.model_context import ServingSettings


@dataclass(frozen=True)
class SamplingFields:
    """What a request asked for (None: not given). Aliases are resolved by the surface."""

    temperature: float | None = None
    top_p: float | None = None
    top_k: int | None = None
    min_p: float | None = None
    repetition_penalty: float | None = None
    presence_penalty: float | None = None
    frequency_penalty: float | None = None
    seed: int | None = None
    max_tokens: int | None = None
    stop: tuple[str, ...] = ()
    ignore_eos: bool = False

    @classmethod
    def of(cls, req: Any) -> SamplingFields:
        """The OpenAI-style fields of a chat or completion request model; `max_tokens` wins
        over `max_completion_tokens`, `repetition_penalty` over `repeat_penalty`."""
        stop = getattr(req, "stop", None)
        stop = getattr(stop, "root", stop)
        return cls(
            temperature=req.temperature, top_p=req.top_p, top_k=req.top_k, min_p=req.min_p,
            repetition_penalty=first_set(req.repetition_penalty, req.repeat_penalty),
            presence_penalty=req.presence_penalty, frequency_penalty=req.frequency_penalty,
            seed=req.seed,
            max_tokens=first_set(req.max_tokens, getattr(req, "max_completion_tokens", None)),
            stop=(stop,) if isinstance(stop, str) else tuple(stop or ()),
            ignore_eos=bool(req.ignore_eos),
        )


def first_set(*values: Any) -> Any:
    """The first value that is not None (request field, alias, server default...)."""
    for value in values:
        if value is not None:
            return value
    return None


def stop_list(cli: list[str], request_stop: tuple[str, ...]) -> tuple[str, ...]:
    """CLI stops first, then the request's; de-duplicated; empty strings dropped."""
    merged: list[str] = []
    for item in [*cli, *request_stop]:
        if item and item not in merged:
            merged.append(item)
    return tuple(merged)


def sampling_params(
    settings: ServingSettings,
    fields: SamplingFields,
    *,
    prompt_tokens: int,
    max_context: int,
    logprobs: bool = False,
    top_logprobs: int = 0,
    prompt_param: str = "messages",
) -> SamplingParams:
    """Merge request values over server flags over engine defaults (request wins)."""
    room = max_context - prompt_tokens
    if room <= 0:
        raise InvalidRequest(
            f"The prompt has {prompt_tokens} tokens, which leaves no room in the model's "
            f"{max_context}-token context", param=prompt_param, code="context_length_exceeded")
    s, d = settings, SamplingParams()
    max_tokens = first_set(fields.max_tokens, s.max_tokens)
    return SamplingParams(
        temperature=float(first_set(fields.temperature, s.temperature, d.temperature)),
        top_p=float(first_set(fields.top_p, s.top_p, d.top_p)),
        top_k=int(first_set(fields.top_k, s.top_k, d.top_k)),
        min_p=float(first_set(fields.min_p, s.min_p, d.min_p)),
        repetition_penalty=float(first_set(fields.repetition_penalty, s.repetition_penalty,
                                           d.repetition_penalty)),
        presence_penalty=float(first_set(fields.presence_penalty, s.presence_penalty,
                                         d.presence_penalty)),
        frequency_penalty=float(first_set(fields.frequency_penalty, s.frequency_penalty,
                                          d.frequency_penalty)),
        seed=first_set(fields.seed, s.seed),
        max_tokens=int(min(max_tokens, room)),
        stop=stop_list(s.stop, fields.stop),
        ignore_eos=fields.ignore_eos,
        logprobs=logprobs,
        top_logprobs=top_logprobs,
    )


def check_streaming(settings: ServingSettings, stream: bool) -> None:
    """400 for a streamed request on a server started with --no-streaming."""
    if stream and not settings.streaming:
        raise InvalidRequest("Streaming is disabled on this server (--no-streaming); "
                             "send stream=false", param="stream")
