"""Request sampling fields -> engine SamplingParams, with the documented precedence:
request value > server flag > the model's own defaults > the server's fallback; `max_tokens`
is capped by the context window.

The last three are resolved once per model, when it is offered (:func:`resolve_defaults`,
reported by `GET /v1/models` as `generation_defaults`); a request's own fields go over them
(:func:`sampling_params`). A field the request sends always means what it says: an explicit
`temperature: 0` decodes greedily, `top_k: 0` turns top-k off.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from engine.types import SamplingParams
from serving.errors import InvalidRequest

if TYPE_CHECKING:
    from engine.model_defaults import ModelDefaults
    from serving.model_context import ServingSettings

DEFAULT_FIELDS = ("temperature", "top_p", "top_k", "min_p", "repetition_penalty",
                  "presence_penalty", "frequency_penalty")
"""The sampling fields resolved per model (flag, model, fallback) when a request omits them."""

FALLBACK: dict[str, float | int] = {
    "temperature": 0.7, "top_p": 1.0, "top_k": 0, "min_p": 0.05, "repetition_penalty": 1.0,
    "presence_penalty": 0.0, "frequency_penalty": 0.0,
}
"""The server's fallback, for a model that states no defaults and no flag: temperature 0.7
(mlx-lm's and the Messages API's usual choice, below OpenAI's 1.0), guarded by min_p 0.05 (as
llama.cpp's server does): tokens under 5% of the most likely one's probability are never drawn,
which cuts the long tail where a small model's sampled answer turns into another language or
noise. Every other filter and penalty is off."""


@dataclass(frozen=True)
class GenerationDefaults:
    """What a request to one model gets for each sampling field it omits, and from where:
    ``sources[name]`` is ``flag``, ``generation_config``, ``gguf``, ``table`` or ``server``."""

    values: dict[str, float | int]
    sources: dict[str, str]
    model_defaults_from: str | None = None
    """The file or table entry the model's own defaults were read from (None: it states none)."""
    ignored: tuple[str, ...] = field(default=())

    def __getattr__(self, name: str) -> Any:
        if name in DEFAULT_FIELDS:
            return self.values[name]
        raise AttributeError(name)

    def as_dict(self) -> dict[str, Any]:
        """The `generation_defaults` object of `GET /v1/models`."""
        return {**self.values, "sources": dict(self.sources),
                "model_defaults_from": self.model_defaults_from}

    def describe(self) -> str:
        """One line for the load log: each value and where it came from."""
        parts = [f"{name} {_fmt(self.values[name])} ({self.sources[name]})"
                 for name in DEFAULT_FIELDS]
        origin = f"; model defaults from {self.model_defaults_from}" \
            if self.model_defaults_from else "; the model states none"
        return ", ".join(parts) + origin


def _fmt(value: float | int) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


MODEL_SOURCE_NAMES = {"generation_config.json": "generation_config", "gguf": "gguf",
                      "table": "table"}


def resolve_defaults(settings: ServingSettings, model: ModelDefaults | None = None
                     ) -> GenerationDefaults:
    """Per field: the `afm serve` flag, else the model's own default, else the fallback."""
    values: dict[str, float | int] = {}
    sources: dict[str, str] = {}
    for name in DEFAULT_FIELDS:
        flag = getattr(settings, name, None)
        if flag is not None:
            values[name], sources[name] = flag, "flag"
        elif model is not None and name in model.values:
            values[name] = model.values[name]
            sources[name] = MODEL_SOURCE_NAMES.get(model.source, model.source)
        else:
            values[name], sources[name] = FALLBACK[name], "server"
    values["top_k"] = int(values["top_k"])
    for name in DEFAULT_FIELDS:
        if name != "top_k":
            values[name] = float(values[name])
    return GenerationDefaults(values, sources, model.detail if model is not None else None,
                              model.ignored if model is not None else ())


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
    defaults: GenerationDefaults | None = None,
) -> SamplingParams:
    """Merge request values over the model's resolved defaults (``defaults``: flag, model,
    fallback; resolved from the flags alone when not given). The request wins."""
    room = max_context - prompt_tokens
    if room <= 0:
        raise InvalidRequest(
            f"The prompt has {prompt_tokens} tokens, which leaves no room in the model's "
            f"{max_context}-token context", param=prompt_param, code="context_length_exceeded")
    s, d = settings, defaults or resolve_defaults(settings)
    max_tokens = first_set(fields.max_tokens, s.max_tokens)
    return SamplingParams(
        temperature=float(first_set(fields.temperature, d.temperature)),
        top_p=float(first_set(fields.top_p, d.top_p)),
        top_k=int(first_set(fields.top_k, d.top_k)),
        min_p=float(first_set(fields.min_p, d.min_p)),
        repetition_penalty=float(first_set(fields.repetition_penalty, d.repetition_penalty)),
        presence_penalty=float(first_set(fields.presence_penalty, d.presence_penalty)),
        frequency_penalty=float(first_set(fields.frequency_penalty, d.frequency_penalty)),
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
