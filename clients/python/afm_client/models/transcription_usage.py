from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.transcription_usage_type import TranscriptionUsageType

T = TypeVar("T", bound="TranscriptionUsage")


@_attrs_define
class TranscriptionUsage:
    """
    Attributes:
        type_ (TranscriptionUsageType):
        seconds (float): Seconds of input audio.
    """

    type_: TranscriptionUsageType
    seconds: float
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_.value

        seconds = self.seconds

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "type": type_,
                "seconds": seconds,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        type_ = TranscriptionUsageType(d.pop("type"))

        seconds = d.pop("seconds")

        transcription_usage = cls(
            type_=type_,
            seconds=seconds,
        )

        transcription_usage.additional_properties = d
        return transcription_usage

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
