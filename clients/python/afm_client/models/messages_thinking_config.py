from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.messages_thinking_config_display import MessagesThinkingConfigDisplay
from ..models.messages_thinking_config_type import MessagesThinkingConfigType
from ..types import UNSET, Unset

T = TypeVar("T", bound="MessagesThinkingConfig")


@_attrs_define
class MessagesThinkingConfig:
    """`enabled`, `adaptive` and `between_tools` turn the model's reasoning on (the chat
    template's `enable_thinking`); `budget_tokens` is accepted but not enforced. `disabled`
    turns it off. `display: omitted` returns thinking blocks with empty `thinking` and the
    reasoning sealed in `signature` (read back when the block is sent again).

        Attributes:
            type_ (MessagesThinkingConfigType):
            budget_tokens (int | Unset):
            display (MessagesThinkingConfigDisplay | Unset):
    """

    type_: MessagesThinkingConfigType
    budget_tokens: int | Unset = UNSET
    display: MessagesThinkingConfigDisplay | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_.value

        budget_tokens = self.budget_tokens

        display: str | Unset = UNSET
        if not isinstance(self.display, Unset):
            display = self.display.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "type": type_,
            }
        )
        if budget_tokens is not UNSET:
            field_dict["budget_tokens"] = budget_tokens
        if display is not UNSET:
            field_dict["display"] = display

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        type_ = MessagesThinkingConfigType(d.pop("type"))

        budget_tokens = d.pop("budget_tokens", UNSET)

        _display = d.pop("display", UNSET)
        display: MessagesThinkingConfigDisplay | Unset
        if isinstance(_display, Unset):
            display = UNSET
        else:
            display = MessagesThinkingConfigDisplay(_display)

        messages_thinking_config = cls(
            type_=type_,
            budget_tokens=budget_tokens,
            display=display,
        )

        messages_thinking_config.additional_properties = d
        return messages_thinking_config

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
