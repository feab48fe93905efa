from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.generation_default_source import GenerationDefaultSource

T = TypeVar("T", bound="GenerationDefaultSources")


@_attrs_define
class GenerationDefaultSources:
    """Where each default comes from.

    Attributes:
        temperature (GenerationDefaultSource): `flag`: an `afm serve` flag; `generation_config`: the model folder's
            generation_config.json; `gguf`: the GGUF file's `general.sampling.*` metadata; `table`: AFM's table for its
            packaged real models; `server`: the server's fallback.
        top_p (GenerationDefaultSource): `flag`: an `afm serve` flag; `generation_config`: the model folder's
            generation_config.json; `gguf`: the GGUF file's `general.sampling.*` metadata; `table`: AFM's table for its
            packaged real models; `server`: the server's fallback.
        top_k (GenerationDefaultSource): `flag`: an `afm serve` flag; `generation_config`: the model folder's
            generation_config.json; `gguf`: the GGUF file's `general.sampling.*` metadata; `table`: AFM's table for its
            packaged real models; `server`: the server's fallback.
        min_p (GenerationDefaultSource): `flag`: an `afm serve` flag; `generation_config`: the model folder's
            generation_config.json; `gguf`: the GGUF file's `general.sampling.*` metadata; `table`: AFM's table for its
            packaged real models; `server`: the server's fallback.
        repetition_penalty (GenerationDefaultSource): `flag`: an `afm serve` flag; `generation_config`: the model
            folder's generation_config.json; `gguf`: the GGUF file's `general.sampling.*` metadata; `table`: AFM's table for
            its packaged real models; `server`: the server's fallback.
        presence_penalty (GenerationDefaultSource): `flag`: an `afm serve` flag; `generation_config`: the model folder's
            generation_config.json; `gguf`: the GGUF file's `general.sampling.*` metadata; `table`: AFM's table for its
            packaged real models; `server`: the server's fallback.
        frequency_penalty (GenerationDefaultSource): `flag`: an `afm serve` flag; `generation_config`: the model
            folder's generation_config.json; `gguf`: the GGUF file's `general.sampling.*` metadata; `table`: AFM's table for
            its packaged real models; `server`: the server's fallback.
    """

    temperature: GenerationDefaultSource
    top_p: GenerationDefaultSource
    top_k: GenerationDefaultSource
    min_p: GenerationDefaultSource
    repetition_penalty: GenerationDefaultSource
    presence_penalty: GenerationDefaultSource
    frequency_penalty: GenerationDefaultSource
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        temperature = self.temperature.value

        top_p = self.top_p.value

        top_k = self.top_k.value

        min_p = self.min_p.value

        repetition_penalty = self.repetition_penalty.value

        presence_penalty = self.presence_penalty.value

        frequency_penalty = self.frequency_penalty.value

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
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        temperature = GenerationDefaultSource(d.pop("temperature"))

        top_p = GenerationDefaultSource(d.pop("top_p"))

        top_k = GenerationDefaultSource(d.pop("top_k"))

        min_p = GenerationDefaultSource(d.pop("min_p"))

        repetition_penalty = GenerationDefaultSource(d.pop("repetition_penalty"))

        presence_penalty = GenerationDefaultSource(d.pop("presence_penalty"))

        frequency_penalty = GenerationDefaultSource(d.pop("frequency_penalty"))

        generation_default_sources = cls(
            temperature=temperature,
            top_p=top_p,
            top_k=top_k,
            min_p=min_p,
            repetition_penalty=repetition_penalty,
            presence_penalty=presence_penalty,
            frequency_penalty=frequency_penalty,
        )

        generation_default_sources.additional_properties = d
        return generation_default_sources

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
