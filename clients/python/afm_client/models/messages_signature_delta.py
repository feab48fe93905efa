from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.messages_signature_delta_type import MessagesSignatureDeltaType

T = TypeVar("T", bound="MessagesSignatureDelta")


@_attrs_define
class MessagesSignatureDelta:
    """A thinking block's `signature` (the reasoning sealed by this server), sent just before the block stops.

    Attributes:
        type_ (MessagesSignatureDeltaType):
        signature (str):
    """

    type_: MessagesSignatureDeltaType
    signature: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_.value

        signature = self.signature

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "type": type_,
                "signature": signature,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        type_ = MessagesSignatureDeltaType(d.pop("type"))

        signature = d.pop("signature")

        messages_signature_delta = cls(
            type_=type_,
            signature=signature,
        )

        messages_signature_delta.additional_properties = d
        return messages_signature_delta

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
