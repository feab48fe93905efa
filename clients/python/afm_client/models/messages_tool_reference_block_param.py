from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.messages_tool_reference_block_param_type import MessagesToolReferenceBlockParamType

T = TypeVar("T", bound="MessagesToolReferenceBlockParam")


@_attrs_define
class MessagesToolReferenceBlockParam:
    """A deferred tool a tool search found; from this turn on the tool is in the prompt.

    Attributes:
        type_ (MessagesToolReferenceBlockParamType):
        tool_name (str):
    """

    type_: MessagesToolReferenceBlockParamType
    tool_name: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_.value

        tool_name = self.tool_name

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "type": type_,
                "tool_name": tool_name,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        type_ = MessagesToolReferenceBlockParamType(d.pop("type"))

        tool_name = d.pop("tool_name")

        messages_tool_reference_block_param = cls(
            type_=type_,
            tool_name=tool_name,
        )

        messages_tool_reference_block_param.additional_properties = d
        return messages_tool_reference_block_param

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
