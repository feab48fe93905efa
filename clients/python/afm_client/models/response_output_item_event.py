from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.response_output_item_event_type import ResponseOutputItemEventType

if TYPE_CHECKING:
    from ..models.response_function_call import ResponseFunctionCall
    from ..models.response_output_message import ResponseOutputMessage
    from ..models.response_reasoning_item import ResponseReasoningItem


T = TypeVar("T", bound="ResponseOutputItemEvent")


@_attrs_define
class ResponseOutputItemEvent:
    """
    Attributes:
        type_ (ResponseOutputItemEventType):
        sequence_number (int):
        output_index (int):
        item (ResponseFunctionCall | ResponseOutputMessage | ResponseReasoningItem): An output item, told apart by
            `type`.
    """

    type_: ResponseOutputItemEventType
    sequence_number: int
    output_index: int
    item: ResponseFunctionCall | ResponseOutputMessage | ResponseReasoningItem
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.response_function_call import ResponseFunctionCall  # noqa: PLC0415
        from ..models.response_output_message import ResponseOutputMessage  # noqa: PLC0415

        type_ = self.type_.value

        sequence_number = self.sequence_number

        output_index = self.output_index

        item: dict[str, Any]
        if isinstance(self.item, ResponseOutputMessage):
            item = self.item.to_dict()
        elif isinstance(self.item, ResponseFunctionCall):
            item = self.item.to_dict()
        else:
            item = self.item.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "type": type_,
                "sequence_number": sequence_number,
                "output_index": output_index,
                "item": item,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.response_function_call import ResponseFunctionCall  # noqa: PLC0415
        from ..models.response_output_message import ResponseOutputMessage  # noqa: PLC0415
        from ..models.response_reasoning_item import ResponseReasoningItem  # noqa: PLC0415

        d = dict(src_dict)
        type_ = ResponseOutputItemEventType(d.pop("type"))

        sequence_number = d.pop("sequence_number")

        output_index = d.pop("output_index")

        def _parse_item(data: object) -> ResponseFunctionCall | ResponseOutputMessage | ResponseReasoningItem:
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_response_output_item_type_0 = ResponseOutputMessage.from_dict(data)

                return componentsschemas_response_output_item_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_response_output_item_type_1 = ResponseFunctionCall.from_dict(data)

                return componentsschemas_response_output_item_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            componentsschemas_response_output_item_type_2 = ResponseReasoningItem.from_dict(data)

            return componentsschemas_response_output_item_type_2

        item = _parse_item(d.pop("item"))

        response_output_item_event = cls(
            type_=type_,
            sequence_number=sequence_number,
            output_index=output_index,
            item=item,
        )

        response_output_item_event.additional_properties = d
        return response_output_item_event

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
