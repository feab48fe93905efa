from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.response_lifecycle_event_type import ResponseLifecycleEventType

if TYPE_CHECKING:
    from ..models.response_object import ResponseObject


T = TypeVar("T", bound="ResponseLifecycleEvent")


@_attrs_define
class ResponseLifecycleEvent:
    """
    Attributes:
        type_ (ResponseLifecycleEventType):
        sequence_number (int):
        response (ResponseObject):
    """

    type_: ResponseLifecycleEventType
    sequence_number: int
    response: ResponseObject
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_.value

        sequence_number = self.sequence_number

        response = self.response.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "type": type_,
                "sequence_number": sequence_number,
                "response": response,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.response_object import ResponseObject  # noqa: PLC0415

        d = dict(src_dict)
        type_ = ResponseLifecycleEventType(d.pop("type"))

        sequence_number = d.pop("sequence_number")

        response = ResponseObject.from_dict(d.pop("response"))

        response_lifecycle_event = cls(
            type_=type_,
            sequence_number=sequence_number,
            response=response,
        )

        response_lifecycle_event.additional_properties = d
        return response_lifecycle_event

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
