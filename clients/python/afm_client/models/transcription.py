from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.transcription_usage import TranscriptionUsage


T = TypeVar("T", bound="Transcription")


@_attrs_define
class Transcription:
    """
    Attributes:
        text (str):
        language (str | Unset): The ISO 639-1 code spoken (given or detected).
        usage (TranscriptionUsage | Unset):
    """

    text: str
    language: str | Unset = UNSET
    usage: TranscriptionUsage | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        text = self.text

        language = self.language

        usage: dict[str, Any] | Unset = UNSET
        if not isinstance(self.usage, Unset):
            usage = self.usage.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "text": text,
            }
        )
        if language is not UNSET:
            field_dict["language"] = language
        if usage is not UNSET:
            field_dict["usage"] = usage

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.transcription_usage import TranscriptionUsage  # noqa: PLC0415

        d = dict(src_dict)
        text = d.pop("text")

        language = d.pop("language", UNSET)

        _usage = d.pop("usage", UNSET)
        usage: TranscriptionUsage | Unset
        if isinstance(_usage, Unset):
            usage = UNSET
        else:
            usage = TranscriptionUsage.from_dict(_usage)

        transcription = cls(
            text=text,
            language=language,
            usage=usage,
        )

        transcription.additional_properties = d
        return transcription

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
