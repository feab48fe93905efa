from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.messages_message_delta_event_type import MessagesMessageDeltaEventType

if TYPE_CHECKING:
    from ..models.messages_message_delta_event_delta import MessagesMessageDeltaEventDelta
    from ..models.messages_usage import MessagesUsage


T = TypeVar("T", bound="MessagesMessageDeltaEvent")


@_attrs_define
class MessagesMessageDeltaEvent:
    """
    Attributes:
        type_ (MessagesMessageDeltaEventType):
        delta (MessagesMessageDeltaEventDelta):
        usage (MessagesUsage):
    """

    type_: MessagesMessageDeltaEventType
    delta: MessagesMessageDeltaEventDelta
    usage: MessagesUsage
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_.value

        delta = self.delta.to_dict()

        usage = self.usage.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "type": type_,
                "delta": delta,
                "usage": usage,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.messages_message_delta_event_delta import MessagesMessageDeltaEventDelta  # noqa: PLC0415
        from ..models.messages_usage import MessagesUsage  # noqa: PLC0415

        d = dict(src_dict)
        type_ = MessagesMessageDeltaEventType(d.pop("type"))

        delta = MessagesMessageDeltaEventDelta.from_dict(d.pop("delta"))

        usage = MessagesUsage.from_dict(d.pop("usage"))

        messages_message_delta_event = cls(
            type_=type_,
            delta=delta,
            usage=usage,
        )

        messages_message_delta_event.additional_properties = d
        return messages_message_delta_event

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
