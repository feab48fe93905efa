from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.response_arguments_delta_event_type import ResponseArgumentsDeltaEventType

T = TypeVar("T", bound="ResponseArgumentsDeltaEvent")


@_attrs_define
class ResponseArgumentsDeltaEvent:
    """
    Attributes:
        type_ (ResponseArgumentsDeltaEventType):
        sequence_number (int):
        item_id (str):
        output_index (int):
        delta (str):
    """

    type_: ResponseArgumentsDeltaEventType
    sequence_number: int
    item_id: str
    output_index: int
    delta: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_.value

        sequence_number = self.sequence_number

        item_id = self.item_id

        output_index = self.output_index

        delta = self.delta

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "type": type_,
                "sequence_number": sequence_number,
                "item_id": item_id,
                "output_index": output_index,
                "delta": delta,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        type_ = ResponseArgumentsDeltaEventType(d.pop("type"))

        sequence_number = d.pop("sequence_number")

        item_id = d.pop("item_id")

        output_index = d.pop("output_index")

        delta = d.pop("delta")

        response_arguments_delta_event = cls(
            type_=type_,
            sequence_number=sequence_number,
            item_id=item_id,
            output_index=output_index,
            delta=delta,
        )

        response_arguments_delta_event.additional_properties = d
        return response_arguments_delta_event

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
