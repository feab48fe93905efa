from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.generation_default_sources import GenerationDefaultSources


T = TypeVar("T", bound="GenerationDefaultsType0")


@_attrs_define
class GenerationDefaultsType0:
    """AFM extension. The sampling values a request to this chat model gets for each field it does not send, and where each
    comes from. Resolution, first found wins: the request's own field (an explicit `temperature: 0` decodes greedily,
    `top_k: 0` turns top-k off); the `afm serve` flag (`--temperature`, `--top-p`, ...); the model's own defaults (an
    MLX or Hugging Face folder's `generation_config.json`, a GGUF file's `general.sampling.*` metadata, or, for the
    packaged real models that carry neither, AFM's table chosen by measurement); then the server's fallback. Null for an
    embedding model, and for a chat model whose files cannot be read before it loads (a hub id not downloaded yet).

        Attributes:
            temperature (float):
            top_p (float):
            top_k (int): 0 = off.
            min_p (float): 0 = off.
            repetition_penalty (float): 1 = off.
            presence_penalty (float):
            frequency_penalty (float):
            sources (GenerationDefaultSources): Where each default comes from.
            model_defaults_from (None | str | Unset): The file (or table entry) the model's own defaults were read from;
                null when the model states none.
    """

    temperature: float
    top_p: float
    top_k: int
    min_p: float
    repetition_penalty: float
    presence_penalty: float
    frequency_penalty: float
    sources: GenerationDefaultSources
    model_defaults_from: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        temperature = self.temperature

        top_p = self.top_p

        top_k = self.top_k

        min_p = self.min_p

        repetition_penalty = self.repetition_penalty

        presence_penalty = self.presence_penalty

        frequency_penalty = self.frequency_penalty

        sources = self.sources.to_dict()

        model_defaults_from: None | str | Unset
        if isinstance(self.model_defaults_from, Unset):
            model_defaults_from = UNSET
        else:
            model_defaults_from = self.model_defaults_from

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "temperature": temperature,
                "top_p": top_p,
                "top_k": top_k,
                "min_p": min_p,
                "repetition_penalty": repetition_penalty,
                "presence_penalty": presence_penalty,
                "frequency_penalty": frequency_penalty,
                "sources": sources,
            }
        )
        if model_defaults_from is not UNSET:
            field_dict["model_defaults_from"] = model_defaults_from

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.generation_default_sources import GenerationDefaultSources  # noqa: PLC0415

        d = dict(src_dict)
        temperature = d.pop("temperature")

        top_p = d.pop("top_p")

        top_k = d.pop("top_k")

        min_p = d.pop("min_p")

        repetition_penalty = d.pop("repetition_penalty")

        presence_penalty = d.pop("presence_penalty")

        frequency_penalty = d.pop("frequency_penalty")

        sources = GenerationDefaultSources.from_dict(d.pop("sources"))

        def _parse_model_defaults_from(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        model_defaults_from = _parse_model_defaults_from(d.pop("model_defaults_from", UNSET))

        generation_defaults_type_0 = cls(
            temperature=temperature,
            top_p=top_p,
            top_k=top_k,
            min_p=min_p,
            repetition_penalty=repetition_penalty,
            presence_penalty=presence_penalty,
            frequency_penalty=frequency_penalty,
            sources=sources,
            model_defaults_from=model_defaults_from,
        )

        generation_defaults_type_0.additional_properties = d
        return generation_defaults_type_0

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
