from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.messages_error_response_type import MessagesErrorResponseType
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.messages_error_response_error import MessagesErrorResponseError


T = TypeVar("T", bound="MessagesErrorResponse")


@_attrs_define
class MessagesErrorResponse:
    """Anthropic's error envelope (error responses on `/v1/messages*`, and the stream's `error` event).

    Attributes:
        type_ (MessagesErrorResponseType):
        error (MessagesErrorResponseError):
        request_id (None | str | Unset):
    """

    type_: MessagesErrorResponseType
    error: MessagesErrorResponseError
    request_id: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_.value

        error = self.error.to_dict()

        request_id: None | str | Unset
        if isinstance(self.request_id, Unset):
            request_id = UNSET
        else:
            request_id = self.request_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "type": type_,
                "error": error,
            }
        )
        if request_id is not UNSET:
            field_dict["request_id"] = request_id

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.messages_error_response_error import MessagesErrorResponseError  # noqa: PLC0415

        d = dict(src_dict)
        type_ = MessagesErrorResponseType(d.pop("type"))

        error = MessagesErrorResponseError.from_dict(d.pop("error"))

        def _parse_request_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        request_id = _parse_request_id(d.pop("request_id", UNSET))

        messages_error_response = cls(
            type_=type_,
            error=error,
            request_id=request_id,
        )

        messages_error_response.additional_properties = d
        return messages_error_response

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
