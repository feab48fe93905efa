from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.chat_completion_request import ChatCompletionRequest


T = TypeVar("T", bound="BatchCompletionItem")


@_attrs_define
class BatchCompletionItem:
    """
    Attributes:
        custom_id (str):
        body (ChatCompletionRequest): Unknown fields are accepted and ignored, as OpenAI clients send fields a server
            may not know.
    """

    custom_id: str
    body: ChatCompletionRequest
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        custom_id = self.custom_id

        body = self.body.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "custom_id": custom_id,
                "body": body,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.chat_completion_request import ChatCompletionRequest  # noqa: PLC0415

        d = dict(src_dict)
        custom_id = d.pop("custom_id")

        body = ChatCompletionRequest.from_dict(d.pop("body"))

        batch_completion_item = cls(
            custom_id=custom_id,
            body=body,
        )

        batch_completion_item.additional_properties = d
        return batch_completion_item

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
