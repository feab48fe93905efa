from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="TranscriptionSegment")


@_attrs_define
class TranscriptionSegment:
    """
    Attributes:
        id (int):
        seek (int):
        start (float): Seconds from the start of the audio.
        end (float):
        text (str):
        tokens (list[int]):
        temperature (float):
        avg_logprob (float):
        compression_ratio (float):
        no_speech_prob (float):
    """

    id: int
    seek: int
    start: float
    end: float
    text: str
    tokens: list[int]
    temperature: float
    avg_logprob: float
    compression_ratio: float
    no_speech_prob: float
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        seek = self.seek

        start = self.start

        end = self.end

        text = self.text

        tokens = self.tokens

        temperature = self.temperature

        avg_logprob = self.avg_logprob

        compression_ratio = self.compression_ratio

        no_speech_prob = self.no_speech_prob

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "seek": seek,
                "start": start,
                "end": end,
                "text": text,
                "tokens": tokens,
                "temperature": temperature,
                "avg_logprob": avg_logprob,
                "compression_ratio": compression_ratio,
                "no_speech_prob": no_speech_prob,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        seek = d.pop("seek")

        start = d.pop("start")

        end = d.pop("end")

        text = d.pop("text")

        tokens = cast(list[int], d.pop("tokens"))

        temperature = d.pop("temperature")

        avg_logprob = d.pop("avg_logprob")

        compression_ratio = d.pop("compression_ratio")

        no_speech_prob = d.pop("no_speech_prob")

        transcription_segment = cls(
            id=id,
            seek=seek,
            start=start,
            end=end,
            text=text,
            tokens=tokens,
            temperature=temperature,
            avg_logprob=avg_logprob,
            compression_ratio=compression_ratio,
            no_speech_prob=no_speech_prob,
        )

        transcription_segment.additional_properties = d
        return transcription_segment

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
