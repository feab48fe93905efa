from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.content_part_type import ContentPartType
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.content_part_image_url import ContentPartImageUrl
    from ..models.content_part_input_audio import ContentPartInputAudio


T = TypeVar("T", bound="ContentPart")


@_attrs_define
class ContentPart:
    """A content part: `text` (with `text`), `image_url` (with `image_url.url`) or `input_audio`
    (with `input_audio.data`). Parts a model cannot take get 400 naming the part.

        Attributes:
            type_ (ContentPartType):
            text (str | Unset):
            image_url (ContentPartImageUrl | Unset):
            input_audio (ContentPartInputAudio | Unset):
    """

    type_: ContentPartType
    text: str | Unset = UNSET
    image_url: ContentPartImageUrl | Unset = UNSET
    input_audio: ContentPartInputAudio | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_.value

        text = self.text

        image_url: dict[str, Any] | Unset = UNSET
        if not isinstance(self.image_url, Unset):
            image_url = self.image_url.to_dict()

        input_audio: dict[str, Any] | Unset = UNSET
        if not isinstance(self.input_audio, Unset):
            input_audio = self.input_audio.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "type": type_,
            }
        )
        if text is not UNSET:
            field_dict["text"] = text
        if image_url is not UNSET:
            field_dict["image_url"] = image_url
        if input_audio is not UNSET:
            field_dict["input_audio"] = input_audio

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.content_part_image_url import ContentPartImageUrl  # noqa: PLC0415
        from ..models.content_part_input_audio import ContentPartInputAudio  # noqa: PLC0415

        d = dict(src_dict)
        type_ = ContentPartType(d.pop("type"))

        text = d.pop("text", UNSET)

        _image_url = d.pop("image_url", UNSET)
        image_url: ContentPartImageUrl | Unset
        if isinstance(_image_url, Unset):
            image_url = UNSET
        else:
            image_url = ContentPartImageUrl.from_dict(_image_url)

        _input_audio = d.pop("input_audio", UNSET)
        input_audio: ContentPartInputAudio | Unset
        if isinstance(_input_audio, Unset):
            input_audio = UNSET
        else:
            input_audio = ContentPartInputAudio.from_dict(_input_audio)

        content_part = cls(
            type_=type_,
            text=text,
            image_url=image_url,
            input_audio=input_audio,
        )

        content_part.additional_properties = d
        return content_part

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
