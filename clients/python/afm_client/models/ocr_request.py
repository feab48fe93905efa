from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.ocr_request_mode import OcrRequestMode
from ..models.ocr_request_recognition_level import OcrRequestRecognitionLevel
from ..types import UNSET, Unset

T = TypeVar("T", bound="OcrRequest")


@_attrs_define
class OcrRequest:
    """
    Attributes:
        image (str): A base64 image, bare or as a data URL (`data:image/png;base64,...`).
        recognition_level (OcrRequestRecognitionLevel | Unset):
        languages (list[str] | Unset):
        mode (OcrRequestMode | Unset): `document` and `table` need a newer macOS release (501 there).
    """

    image: str
    recognition_level: OcrRequestRecognitionLevel | Unset = UNSET
    languages: list[str] | Unset = UNSET
    mode: OcrRequestMode | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        image = self.image

        recognition_level: str | Unset = UNSET
        if not isinstance(self.recognition_level, Unset):
            recognition_level = self.recognition_level.value

        languages: list[str] | Unset = UNSET
        if not isinstance(self.languages, Unset):
            languages = self.languages

        mode: str | Unset = UNSET
        if not isinstance(self.mode, Unset):
            mode = self.mode.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "image": image,
            }
        )
        if recognition_level is not UNSET:
            field_dict["recognition_level"] = recognition_level
        if languages is not UNSET:
            field_dict["languages"] = languages
        if mode is not UNSET:
            field_dict["mode"] = mode

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        image = d.pop("image")

        _recognition_level = d.pop("recognition_level", UNSET)
        recognition_level: OcrRequestRecognitionLevel | Unset
        if isinstance(_recognition_level, Unset):
            recognition_level = UNSET
        else:
            recognition_level = OcrRequestRecognitionLevel(_recognition_level)

        languages = cast(list[str], d.pop("languages", UNSET))

        _mode = d.pop("mode", UNSET)
        mode: OcrRequestMode | Unset
        if isinstance(_mode, Unset):
            mode = UNSET
        else:
            mode = OcrRequestMode(_mode)

        ocr_request = cls(
            image=image,
            recognition_level=recognition_level,
            languages=languages,
            mode=mode,
        )

        ocr_request.additional_properties = d
        return ocr_request

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
