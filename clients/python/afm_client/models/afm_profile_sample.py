from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="AfmProfileSample")


@_attrs_define
class AfmProfileSample:
    """One point of the sampled series.

    Attributes:
        t (float | Unset): Seconds since the request started.
        tokens (int | Unset):
        active_memory_gib (float | Unset):
    """

    t: float | Unset = UNSET
    tokens: int | Unset = UNSET
    active_memory_gib: float | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        t = self.t

        tokens = self.tokens

        active_memory_gib = self.active_memory_gib

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if t is not UNSET:
            field_dict["t"] = t
        if tokens is not UNSET:
            field_dict["tokens"] = tokens
        if active_memory_gib is not UNSET:
            field_dict["active_memory_gib"] = active_memory_gib

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        t = d.pop("t", UNSET)

        tokens = d.pop("tokens", UNSET)

        active_memory_gib = d.pop("active_memory_gib", UNSET)

        afm_profile_sample = cls(
            t=t,
            tokens=tokens,
            active_memory_gib=active_memory_gib,
        )

        afm_profile_sample.additional_properties = d
        return afm_profile_sample

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
