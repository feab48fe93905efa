from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="VoiceListDataItem")


@_attrs_define
class VoiceListDataItem:
    """
    Attributes:
        id (str):
        name (str):
        language (str | Unset):
        sample_rate (int | Unset):
    """

    id: str
    name: str
    language: str | Unset = UNSET
    sample_rate: int | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        name = self.name

        language = self.language

        sample_rate = self.sample_rate

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "name": name,
            }
        )
        if language is not UNSET:
            field_dict["language"] = language
        if sample_rate is not UNSET:
            field_dict["sample_rate"] = sample_rate

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        name = d.pop("name")

        language = d.pop("language", UNSET)

        sample_rate = d.pop("sample_rate", UNSET)

        voice_list_data_item = cls(
            id=id,
            name=name,
            language=language,
            sample_rate=sample_rate,
        )

        voice_list_data_item.additional_properties = d
        return voice_list_data_item

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
