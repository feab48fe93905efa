from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.messages_tool_use_block_type import MessagesToolUseBlockType

if TYPE_CHECKING:
    from ..models.messages_tool_use_block_input import MessagesToolUseBlockInput


T = TypeVar("T", bound="MessagesToolUseBlock")


@_attrs_define
class MessagesToolUseBlock:
    """
    Attributes:
        type_ (MessagesToolUseBlockType):
        id (str): `toolu_` and hex characters.
        name (str):
        input_ (MessagesToolUseBlockInput):
    """

    type_: MessagesToolUseBlockType
    id: str
    name: str
    input_: MessagesToolUseBlockInput
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_.value

        id = self.id

        name = self.name

        input_ = self.input_.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "type": type_,
                "id": id,
                "name": name,
                "input": input_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.messages_tool_use_block_input import MessagesToolUseBlockInput  # noqa: PLC0415

        d = dict(src_dict)
        type_ = MessagesToolUseBlockType(d.pop("type"))

        id = d.pop("id")

        name = d.pop("name")

        input_ = MessagesToolUseBlockInput.from_dict(d.pop("input"))

        messages_tool_use_block = cls(
            type_=type_,
            id=id,
            name=name,
            input_=input_,
        )

        messages_tool_use_block.additional_properties = d
        return messages_tool_use_block

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
