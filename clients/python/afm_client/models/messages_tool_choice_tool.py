from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.messages_tool_choice_tool_type import MessagesToolChoiceToolType
from ..types import UNSET, Unset

T = TypeVar("T", bound="MessagesToolChoiceTool")


@_attrs_define
class MessagesToolChoiceTool:
    """The model must call the tool `name`.

    Attributes:
        type_ (MessagesToolChoiceToolType):
        name (str): The tool to call (one of `tools`).
        disable_parallel_tool_use (bool | Unset):
    """

    type_: MessagesToolChoiceToolType
    name: str
    disable_parallel_tool_use: bool | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_.value

        name = self.name

        disable_parallel_tool_use = self.disable_parallel_tool_use

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "type": type_,
                "name": name,
            }
        )
        if disable_parallel_tool_use is not UNSET:
            field_dict["disable_parallel_tool_use"] = disable_parallel_tool_use

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        type_ = MessagesToolChoiceToolType(d.pop("type"))

        name = d.pop("name")

        disable_parallel_tool_use = d.pop("disable_parallel_tool_use", UNSET)

        messages_tool_choice_tool = cls(
            type_=type_,
            name=name,
            disable_parallel_tool_use=disable_parallel_tool_use,
        )

        messages_tool_choice_tool.additional_properties = d
        return messages_tool_choice_tool

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
