from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.messages_tool_choice_auto_type import MessagesToolChoiceAutoType
from ..types import UNSET, Unset

T = TypeVar("T", bound="MessagesToolChoiceAuto")


@_attrs_define
class MessagesToolChoiceAuto:
    """The model decides whether to call tools.

    Attributes:
        type_ (MessagesToolChoiceAutoType):
        disable_parallel_tool_use (bool | Unset):
    """

    type_: MessagesToolChoiceAutoType
    disable_parallel_tool_use: bool | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_.value

        disable_parallel_tool_use = self.disable_parallel_tool_use

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "type": type_,
            }
        )
        if disable_parallel_tool_use is not UNSET:
            field_dict["disable_parallel_tool_use"] = disable_parallel_tool_use

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        type_ = MessagesToolChoiceAutoType(d.pop("type"))

        disable_parallel_tool_use = d.pop("disable_parallel_tool_use", UNSET)

        messages_tool_choice_auto = cls(
            type_=type_,
            disable_parallel_tool_use=disable_parallel_tool_use,
        )

        messages_tool_choice_auto.additional_properties = d
        return messages_tool_choice_auto

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
