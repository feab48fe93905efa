from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.messages_context_edit import MessagesContextEdit


T = TypeVar("T", bound="MessagesContextManagementType0")


@_attrs_define
class MessagesContextManagementType0:
    """Context edits applied to the conversation before it is rendered.

    Attributes:
        edits (list[MessagesContextEdit] | Unset):
    """

    edits: list[MessagesContextEdit] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        edits: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.edits, Unset):
            edits = []
            for edits_item_data in self.edits:
                edits_item = edits_item_data.to_dict()
                edits.append(edits_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if edits is not UNSET:
            field_dict["edits"] = edits

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.messages_context_edit import MessagesContextEdit  # noqa: PLC0415

        d = dict(src_dict)
        _edits = d.pop("edits", UNSET)
        edits: list[MessagesContextEdit] | Unset = UNSET
        if _edits is not UNSET:
            edits = []
            for edits_item_data in _edits:
                edits_item = MessagesContextEdit.from_dict(edits_item_data)

                edits.append(edits_item)

        messages_context_management_type_0 = cls(
            edits=edits,
        )

        messages_context_management_type_0.additional_properties = d
        return messages_context_management_type_0

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
