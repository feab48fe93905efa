from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.messages_thinking_block_type import MessagesThinkingBlockType

T = TypeVar("T", bound="MessagesThinkingBlock")


@_attrs_define
class MessagesThinkingBlock:
    """
    Attributes:
        type_ (MessagesThinkingBlockType):
        thinking (str): The reasoning; empty with `thinking.display: omitted`.
        signature (str): The reasoning sealed by this server (read back when the block is sent again).
    """

    type_: MessagesThinkingBlockType
    thinking: str
    signature: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_.value

        thinking = self.thinking

        signature = self.signature

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "type": type_,
                "thinking": thinking,
                "signature": signature,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        type_ = MessagesThinkingBlockType(d.pop("type"))

        thinking = d.pop("thinking")

        signature = d.pop("signature")

        messages_thinking_block = cls(
            type_=type_,
            thinking=thinking,
            signature=signature,
        )

        messages_thinking_block.additional_properties = d
        return messages_thinking_block

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
