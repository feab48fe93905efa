from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.chat_delta_role import ChatDeltaRole
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.tool_call_delta import ToolCallDelta


T = TypeVar("T", bound="ChatDelta")


@_attrs_define
class ChatDelta:
    """The new part of the assistant message.

    Attributes:
        role (ChatDeltaRole | Unset):
        content (None | str | Unset):
        reasoning_content (None | str | Unset):
        tool_calls (list[ToolCallDelta] | Unset):
        refusal (None | str | Unset):
    """

    role: ChatDeltaRole | Unset = UNSET
    content: None | str | Unset = UNSET
    reasoning_content: None | str | Unset = UNSET
    tool_calls: list[ToolCallDelta] | Unset = UNSET
    refusal: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        role: str | Unset = UNSET
        if not isinstance(self.role, Unset):
            role = self.role.value

        content: None | str | Unset
        if isinstance(self.content, Unset):
            content = UNSET
        else:
            content = self.content

        reasoning_content: None | str | Unset
        if isinstance(self.reasoning_content, Unset):
            reasoning_content = UNSET
        else:
            reasoning_content = self.reasoning_content

        tool_calls: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.tool_calls, Unset):
            tool_calls = []
            for tool_calls_item_data in self.tool_calls:
                tool_calls_item = tool_calls_item_data.to_dict()
                tool_calls.append(tool_calls_item)

        refusal: None | str | Unset
        if isinstance(self.refusal, Unset):
            refusal = UNSET
        else:
            refusal = self.refusal

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if role is not UNSET:
            field_dict["role"] = role
        if content is not UNSET:
            field_dict["content"] = content
        if reasoning_content is not UNSET:
            field_dict["reasoning_content"] = reasoning_content
        if tool_calls is not UNSET:
            field_dict["tool_calls"] = tool_calls
        if refusal is not UNSET:
            field_dict["refusal"] = refusal

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.tool_call_delta import ToolCallDelta  # noqa: PLC0415

        d = dict(src_dict)
        _role = d.pop("role", UNSET)
        role: ChatDeltaRole | Unset
        if isinstance(_role, Unset):
            role = UNSET
        else:
            role = ChatDeltaRole(_role)

        def _parse_content(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        content = _parse_content(d.pop("content", UNSET))

        def _parse_reasoning_content(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        reasoning_content = _parse_reasoning_content(d.pop("reasoning_content", UNSET))

        _tool_calls = d.pop("tool_calls", UNSET)
        tool_calls: list[ToolCallDelta] | Unset = UNSET
        if _tool_calls is not UNSET:
            tool_calls = []
            for tool_calls_item_data in _tool_calls:
                tool_calls_item = ToolCallDelta.from_dict(tool_calls_item_data)

                tool_calls.append(tool_calls_item)

        def _parse_refusal(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        refusal = _parse_refusal(d.pop("refusal", UNSET))

        chat_delta = cls(
            role=role,
            content=content,
            reasoning_content=reasoning_content,
            tool_calls=tool_calls,
            refusal=refusal,
        )

        chat_delta.additional_properties = d
        return chat_delta

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
