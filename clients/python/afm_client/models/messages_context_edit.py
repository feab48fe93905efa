from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.messages_context_edit_keep_type_0 import MessagesContextEditKeepType0
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.messages_context_edit_keep_type_1 import MessagesContextEditKeepType1


T = TypeVar("T", bound="MessagesContextEdit")


@_attrs_define
class MessagesContextEdit:
    """`clear_thinking_20251015` drops thinking blocks from all but the last `keep` assistant
    turns (`keep`: `all`, or `{type: thinking_turns, value: N}`; default 1). Other edit types
    (`clear_tool_uses_20250919`, ...) are accepted and reported as not applied.

        Attributes:
            type_ (str):
            keep (MessagesContextEditKeepType0 | MessagesContextEditKeepType1 | Unset):
    """

    type_: str
    keep: MessagesContextEditKeepType0 | MessagesContextEditKeepType1 | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_

        keep: dict[str, Any] | str | Unset
        if isinstance(self.keep, Unset):
            keep = UNSET
        elif isinstance(self.keep, MessagesContextEditKeepType0):
            keep = self.keep.value
        else:
            keep = self.keep.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "type": type_,
            }
        )
        if keep is not UNSET:
            field_dict["keep"] = keep

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.messages_context_edit_keep_type_1 import MessagesContextEditKeepType1  # noqa: PLC0415

        d = dict(src_dict)
        type_ = d.pop("type")

        def _parse_keep(data: object) -> MessagesContextEditKeepType0 | MessagesContextEditKeepType1 | Unset:
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                keep_type_0 = MessagesContextEditKeepType0(data)

                return keep_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            keep_type_1 = MessagesContextEditKeepType1.from_dict(data)

            return keep_type_1

        keep = _parse_keep(d.pop("keep", UNSET))

        messages_context_edit = cls(
            type_=type_,
            keep=keep,
        )

        messages_context_edit.additional_properties = d
        return messages_context_edit

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
