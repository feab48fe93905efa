from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.speech_stream_event_type import SpeechStreamEventType
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.speech_stream_event_error import SpeechStreamEventError


T = TypeVar("T", bound="SpeechStreamEvent")


@_attrs_define
class SpeechStreamEvent:
    """`speech.audio.delta` (base64 16-bit PCM in `audio`), then `speech.audio.done`; `error` if synthesis fails after the
    stream began.

        Attributes:
            type_ (SpeechStreamEventType):
            audio (str | Unset):
            error (SpeechStreamEventError | Unset):
    """

    type_: SpeechStreamEventType
    audio: str | Unset = UNSET
    error: SpeechStreamEventError | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_.value

        audio = self.audio

        error: dict[str, Any] | Unset = UNSET
        if not isinstance(self.error, Unset):
            error = self.error.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "type": type_,
            }
        )
        if audio is not UNSET:
            field_dict["audio"] = audio
        if error is not UNSET:
            field_dict["error"] = error

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.speech_stream_event_error import SpeechStreamEventError  # noqa: PLC0415

        d = dict(src_dict)
        type_ = SpeechStreamEventType(d.pop("type"))

        audio = d.pop("audio", UNSET)

        _error = d.pop("error", UNSET)
        error: SpeechStreamEventError | Unset
        if isinstance(_error, Unset):
            error = UNSET
        else:
            error = SpeechStreamEventError.from_dict(_error)

        speech_stream_event = cls(
            type_=type_,
            audio=audio,
            error=error,
        )

        speech_stream_event.additional_properties = d
        return speech_stream_event

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
