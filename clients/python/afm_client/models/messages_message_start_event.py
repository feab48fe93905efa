from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.messages_message_start_event_type import MessagesMessageStartEventType

if TYPE_CHECKING:
    from ..models.messages_message import MessagesMessage


T = TypeVar("T", bound="MessagesMessageStartEvent")


@_attrs_define
class MessagesMessageStartEvent:
    """
    Attributes:
        type_ (MessagesMessageStartEventType):
        message (MessagesMessage):
    """

    type_: MessagesMessageStartEventType
    message: MessagesMessage
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_.value

        message = self.message.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "type": type_,
                "message": message,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.messages_message import MessagesMessage  # noqa: PLC0415

        d = dict(src_dict)
        type_ = MessagesMessageStartEventType(d.pop("type"))

        message = MessagesMessage.from_dict(d.pop("message"))

        messages_message_start_event = cls(
            type_=type_,
            message=message,
        )

        messages_message_start_event.additional_properties = d
        return messages_message_start_event

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
