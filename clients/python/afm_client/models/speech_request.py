from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.speech_request_response_format import SpeechRequestResponseFormat
from ..types import UNSET, Unset

T = TypeVar("T", bound="SpeechRequest")


@_attrs_define
class SpeechRequest:
    """
    Attributes:
        input_ (str): The text to speak; not blank.
        model (str | Unset):
        voice (str | Unset):
        response_format (SpeechRequestResponseFormat | Unset):
        speed (float | Unset):
    """

    input_: str
    model: str | Unset = UNSET
    voice: str | Unset = UNSET
    response_format: SpeechRequestResponseFormat | Unset = UNSET
    speed: float | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        input_ = self.input_

        model = self.model

        voice = self.voice

        response_format: str | Unset = UNSET
        if not isinstance(self.response_format, Unset):
            response_format = self.response_format.value

        speed = self.speed

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "input": input_,
            }
        )
        if model is not UNSET:
            field_dict["model"] = model
        if voice is not UNSET:
            field_dict["voice"] = voice
        if response_format is not UNSET:
            field_dict["response_format"] = response_format
        if speed is not UNSET:
            field_dict["speed"] = speed

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        input_ = d.pop("input")

        model = d.pop("model", UNSET)

        voice = d.pop("voice", UNSET)

        _response_format = d.pop("response_format", UNSET)
        response_format: SpeechRequestResponseFormat | Unset
        if isinstance(_response_format, Unset):
            response_format = UNSET
        else:
            response_format = SpeechRequestResponseFormat(_response_format)

        speed = d.pop("speed", UNSET)

        speech_request = cls(
            input_=input_,
            model=model,
            voice=voice,
            response_format=response_format,
            speed=speed,
        )

        speech_request.additional_properties = d
        return speech_request

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
