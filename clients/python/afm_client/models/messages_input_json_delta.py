from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.messages_input_json_delta_type import MessagesInputJsonDeltaType

T = TypeVar("T", bound="MessagesInputJsonDelta")


@_attrs_define
class MessagesInputJsonDelta:
    """A piece of the tool input's JSON; the pieces of one block concatenate to it.

    Attributes:
        type_ (MessagesInputJsonDeltaType):
        partial_json (str):
    """

    type_: MessagesInputJsonDeltaType
    partial_json: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_.value

        partial_json = self.partial_json

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "type": type_,
                "partial_json": partial_json,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        type_ = MessagesInputJsonDeltaType(d.pop("type"))

        partial_json = d.pop("partial_json")

        messages_input_json_delta = cls(
            type_=type_,
            partial_json=partial_json,
        )

        messages_input_json_delta.additional_properties = d
        return messages_input_json_delta

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
