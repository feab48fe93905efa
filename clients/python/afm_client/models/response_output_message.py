from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.response_output_message_role import ResponseOutputMessageRole
from ..models.response_output_message_status import ResponseOutputMessageStatus
from ..models.response_output_message_type import ResponseOutputMessageType

if TYPE_CHECKING:
    from ..models.response_output_text import ResponseOutputText


T = TypeVar("T", bound="ResponseOutputMessage")


@_attrs_define
class ResponseOutputMessage:
    """
    Attributes:
        type_ (ResponseOutputMessageType):
        id (str):
        status (ResponseOutputMessageStatus):
        role (ResponseOutputMessageRole):
        content (list[ResponseOutputText]):
    """

    type_: ResponseOutputMessageType
    id: str
    status: ResponseOutputMessageStatus
    role: ResponseOutputMessageRole
    content: list[ResponseOutputText]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_.value

        id = self.id

        status = self.status.value

        role = self.role.value

        content = []
        for content_item_data in self.content:
            content_item = content_item_data.to_dict()
            content.append(content_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "type": type_,
                "id": id,
                "status": status,
                "role": role,
                "content": content,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.response_output_text import ResponseOutputText  # noqa: PLC0415

        d = dict(src_dict)
        type_ = ResponseOutputMessageType(d.pop("type"))

        id = d.pop("id")

        status = ResponseOutputMessageStatus(d.pop("status"))

        role = ResponseOutputMessageRole(d.pop("role"))

        content = []
        _content = d.pop("content")
        for content_item_data in _content:
            content_item = ResponseOutputText.from_dict(content_item_data)

            content.append(content_item)

        response_output_message = cls(
            type_=type_,
            id=id,
            status=status,
            role=role,
            content=content,
        )

        response_output_message.additional_properties = d
        return response_output_message

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
