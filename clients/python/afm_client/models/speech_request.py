from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.speech_request_response_format import SpeechRequestResponseFormat
from ..models.speech_request_stream_format import SpeechRequestStreamFormat
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.speech_request_voice_type_1 import SpeechRequestVoiceType1


T = TypeVar("T", bound="SpeechRequest")


@_attrs_define
class SpeechRequest:
    """
    Attributes:
        input_ (str): The text to speak; not blank.
        model (str | Unset):
        voice (SpeechRequestVoiceType1 | str | Unset): A voice id of `GET /v1/audio/voices`, an OpenAI voice name (the
            default voice), or `{id}`.
        instructions (str | Unset): Accepted; Piper voices take no instructions.
        response_format (SpeechRequestResponseFormat | Unset):
        stream_format (SpeechRequestStreamFormat | Unset): `sse` needs response_format `pcm`.
        speed (float | Unset):
    """

    input_: str
    model: str | Unset = UNSET
    voice: SpeechRequestVoiceType1 | str | Unset = UNSET
    instructions: str | Unset = UNSET
    response_format: SpeechRequestResponseFormat | Unset = UNSET
    stream_format: SpeechRequestStreamFormat | Unset = UNSET
    speed: float | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.speech_request_voice_type_1 import SpeechRequestVoiceType1  # noqa: PLC0415

        input_ = self.input_

        model = self.model

        voice: dict[str, Any] | str | Unset
        if isinstance(self.voice, Unset):
            voice = UNSET
        elif isinstance(self.voice, SpeechRequestVoiceType1):
            voice = self.voice.to_dict()
        else:
            voice = self.voice

        instructions = self.instructions

        response_format: str | Unset = UNSET
        if not isinstance(self.response_format, Unset):
            response_format = self.response_format.value

        stream_format: str | Unset = UNSET
        if not isinstance(self.stream_format, Unset):
            stream_format = self.stream_format.value

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
        if instructions is not UNSET:
            field_dict["instructions"] = instructions
        if response_format is not UNSET:
            field_dict["response_format"] = response_format
        if stream_format is not UNSET:
            field_dict["stream_format"] = stream_format
        if speed is not UNSET:
            field_dict["speed"] = speed

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.speech_request_voice_type_1 import SpeechRequestVoiceType1  # noqa: PLC0415

        d = dict(src_dict)
        input_ = d.pop("input")

        model = d.pop("model", UNSET)

        def _parse_voice(data: object) -> SpeechRequestVoiceType1 | str | Unset:
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                voice_type_1 = SpeechRequestVoiceType1.from_dict(data)

                return voice_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(SpeechRequestVoiceType1 | str | Unset, data)

        voice = _parse_voice(d.pop("voice", UNSET))

        instructions = d.pop("instructions", UNSET)

        _response_format = d.pop("response_format", UNSET)
        response_format: SpeechRequestResponseFormat | Unset
        if isinstance(_response_format, Unset):
            response_format = UNSET
        else:
            response_format = SpeechRequestResponseFormat(_response_format)

        _stream_format = d.pop("stream_format", UNSET)
        stream_format: SpeechRequestStreamFormat | Unset
        if isinstance(_stream_format, Unset):
            stream_format = UNSET
        else:
            stream_format = SpeechRequestStreamFormat(_stream_format)

        speed = d.pop("speed", UNSET)

        speech_request = cls(
            input_=input_,
            model=model,
            voice=voice,
            instructions=instructions,
            response_format=response_format,
            stream_format=stream_format,
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
