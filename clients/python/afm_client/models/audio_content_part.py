from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.audio_content_part_type import AudioContentPartType

if TYPE_CHECKING:
    from ..models.audio_content_part_input_audio import AudioContentPartInputAudio


T = TypeVar("T", bound="AudioContentPart")


@_attrs_define
class AudioContentPart:
    """
    Attributes:
        type_ (AudioContentPartType):
        input_audio (AudioContentPartInputAudio):
    """

    type_: AudioContentPartType
    input_audio: AudioContentPartInputAudio
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_.value

        input_audio = self.input_audio.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "type": type_,
                "input_audio": input_audio,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.audio_content_part_input_audio import AudioContentPartInputAudio  # noqa: PLC0415

        d = dict(src_dict)
        type_ = AudioContentPartType(d.pop("type"))

        input_audio = AudioContentPartInputAudio.from_dict(d.pop("input_audio"))

        audio_content_part = cls(
            type_=type_,
            input_audio=input_audio,
        )

        audio_content_part.additional_properties = d
        return audio_content_part

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
