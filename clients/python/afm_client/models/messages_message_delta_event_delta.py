from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.messages_message_delta_event_delta_stop_reason import MessagesMessageDeltaEventDeltaStopReason

T = TypeVar("T", bound="MessagesMessageDeltaEventDelta")


@_attrs_define
class MessagesMessageDeltaEventDelta:
    """
    Attributes:
        stop_reason (MessagesMessageDeltaEventDeltaStopReason):
        stop_sequence (None | str):
    """

    stop_reason: MessagesMessageDeltaEventDeltaStopReason
    stop_sequence: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        stop_reason = self.stop_reason.value

        stop_sequence: None | str
        stop_sequence = self.stop_sequence

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "stop_reason": stop_reason,
                "stop_sequence": stop_sequence,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        stop_reason = MessagesMessageDeltaEventDeltaStopReason(d.pop("stop_reason"))

        def _parse_stop_sequence(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        stop_sequence = _parse_stop_sequence(d.pop("stop_sequence"))

        messages_message_delta_event_delta = cls(
            stop_reason=stop_reason,
            stop_sequence=stop_sequence,
        )

        messages_message_delta_event_delta.additional_properties = d
        return messages_message_delta_event_delta

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
