from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="Timings")


@_attrs_define
class Timings:
    """llama.cpp-style counts and milliseconds.

    Attributes:
        prompt_n (int):
        prompt_ms (float):
        predicted_n (int):
        predicted_ms (float):
        prompt_per_second (float | Unset):
        predicted_per_second (float | Unset):
        cache_n (int | Unset):
    """

    prompt_n: int
    prompt_ms: float
    predicted_n: int
    predicted_ms: float
    prompt_per_second: float | Unset = UNSET
    predicted_per_second: float | Unset = UNSET
    cache_n: int | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        prompt_n = self.prompt_n

        prompt_ms = self.prompt_ms

        predicted_n = self.predicted_n

        predicted_ms = self.predicted_ms

        prompt_per_second = self.prompt_per_second

        predicted_per_second = self.predicted_per_second

        cache_n = self.cache_n

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "prompt_n": prompt_n,
                "prompt_ms": prompt_ms,
                "predicted_n": predicted_n,
                "predicted_ms": predicted_ms,
            }
        )
        if prompt_per_second is not UNSET:
            field_dict["prompt_per_second"] = prompt_per_second
        if predicted_per_second is not UNSET:
            field_dict["predicted_per_second"] = predicted_per_second
        if cache_n is not UNSET:
            field_dict["cache_n"] = cache_n

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        prompt_n = d.pop("prompt_n")

        prompt_ms = d.pop("prompt_ms")

        predicted_n = d.pop("predicted_n")

        predicted_ms = d.pop("predicted_ms")

        prompt_per_second = d.pop("prompt_per_second", UNSET)

        predicted_per_second = d.pop("predicted_per_second", UNSET)

        cache_n = d.pop("cache_n", UNSET)

        timings = cls(
            prompt_n=prompt_n,
            prompt_ms=prompt_ms,
            predicted_n=predicted_n,
            predicted_ms=predicted_ms,
            prompt_per_second=prompt_per_second,
            predicted_per_second=predicted_per_second,
            cache_n=cache_n,
        )

        timings.additional_properties = d
        return timings

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
