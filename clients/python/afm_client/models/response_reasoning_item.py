from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.response_reasoning_item_status import ResponseReasoningItemStatus
from ..models.response_reasoning_item_type import ResponseReasoningItemType
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.response_reasoning_item_summary_item import ResponseReasoningItemSummaryItem
    from ..models.response_reasoning_text import ResponseReasoningText


T = TypeVar("T", bound="ResponseReasoningItem")


@_attrs_define
class ResponseReasoningItem:
    """
    Attributes:
        type_ (ResponseReasoningItemType):
        id (str):
        summary (list[ResponseReasoningItemSummaryItem]):
        status (ResponseReasoningItemStatus | Unset):
        content (list[ResponseReasoningText] | Unset):
        encrypted_content (str | Unset): The reasoning sealed by this server; present when `include` asks for
            `reasoning.encrypted_content`.
    """

    type_: ResponseReasoningItemType
    id: str
    summary: list[ResponseReasoningItemSummaryItem]
    status: ResponseReasoningItemStatus | Unset = UNSET
    content: list[ResponseReasoningText] | Unset = UNSET
    encrypted_content: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_.value

        id = self.id

        summary = []
        for summary_item_data in self.summary:
            summary_item = summary_item_data.to_dict()
            summary.append(summary_item)

        status: str | Unset = UNSET
        if not isinstance(self.status, Unset):
            status = self.status.value

        content: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.content, Unset):
            content = []
            for content_item_data in self.content:
                content_item = content_item_data.to_dict()
                content.append(content_item)

        encrypted_content = self.encrypted_content

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "type": type_,
                "id": id,
                "summary": summary,
            }
        )
        if status is not UNSET:
            field_dict["status"] = status
        if content is not UNSET:
            field_dict["content"] = content
        if encrypted_content is not UNSET:
            field_dict["encrypted_content"] = encrypted_content

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.response_reasoning_item_summary_item import ResponseReasoningItemSummaryItem  # noqa: PLC0415
        from ..models.response_reasoning_text import ResponseReasoningText  # noqa: PLC0415

        d = dict(src_dict)
        type_ = ResponseReasoningItemType(d.pop("type"))

        id = d.pop("id")

        summary = []
        _summary = d.pop("summary")
        for summary_item_data in _summary:
            summary_item = ResponseReasoningItemSummaryItem.from_dict(summary_item_data)

            summary.append(summary_item)

        _status = d.pop("status", UNSET)
        status: ResponseReasoningItemStatus | Unset
        if isinstance(_status, Unset):
            status = UNSET
        else:
            status = ResponseReasoningItemStatus(_status)

        _content = d.pop("content", UNSET)
        content: list[ResponseReasoningText] | Unset = UNSET
        if _content is not UNSET:
            content = []
            for content_item_data in _content:
                content_item = ResponseReasoningText.from_dict(content_item_data)

                content.append(content_item)

        encrypted_content = d.pop("encrypted_content", UNSET)

        response_reasoning_item = cls(
            type_=type_,
            id=id,
            summary=summary,
            status=status,
            content=content,
            encrypted_content=encrypted_content,
        )

        response_reasoning_item.additional_properties = d
        return response_reasoning_item

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
