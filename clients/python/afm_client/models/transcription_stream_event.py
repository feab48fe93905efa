from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.transcription_stream_event_type import TranscriptionStreamEventType
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.transcription_stream_event_error import TranscriptionStreamEventError


T = TypeVar("T", bound="TranscriptionStreamEvent")


@_attrs_define
class TranscriptionStreamEvent:
    """`transcript.text.delta` (with `delta`, one per segment), `transcript.text.done` (with the
    whole `text`, last), or `error` (with `error`) when decoding fails after the stream began.

        Attributes:
            type_ (TranscriptionStreamEventType):
            delta (str | Unset):
            segment_id (str | Unset):
            text (str | Unset):
            error (TranscriptionStreamEventError | Unset):
    """

    type_: TranscriptionStreamEventType
    delta: str | Unset = UNSET
    segment_id: str | Unset = UNSET
    text: str | Unset = UNSET
    error: TranscriptionStreamEventError | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_.value

        delta = self.delta

        segment_id = self.segment_id

        text = self.text

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
        if delta is not UNSET:
            field_dict["delta"] = delta
        if segment_id is not UNSET:
            field_dict["segment_id"] = segment_id
        if text is not UNSET:
            field_dict["text"] = text
        if error is not UNSET:
            field_dict["error"] = error

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.transcription_stream_event_error import TranscriptionStreamEventError  # noqa: PLC0415

        d = dict(src_dict)
        type_ = TranscriptionStreamEventType(d.pop("type"))

        delta = d.pop("delta", UNSET)

        segment_id = d.pop("segment_id", UNSET)

        text = d.pop("text", UNSET)

        _error = d.pop("error", UNSET)
        error: TranscriptionStreamEventError | Unset
        if isinstance(_error, Unset):
            error = UNSET
        else:
            error = TranscriptionStreamEventError.from_dict(_error)

        transcription_stream_event = cls(
            type_=type_,
            delta=delta,
            segment_id=segment_id,
            text=text,
            error=error,
        )

        transcription_stream_event.additional_properties = d
        return transcription_stream_event

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
