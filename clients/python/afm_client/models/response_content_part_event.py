from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.response_content_part_event_type import ResponseContentPartEventType

if TYPE_CHECKING:
    from ..models.response_output_text import ResponseOutputText
    from ..models.response_reasoning_text import ResponseReasoningText


T = TypeVar("T", bound="ResponseContentPartEvent")


@_attrs_define
class ResponseContentPartEvent:
    """
    Attributes:
        type_ (ResponseContentPartEventType):
        sequence_number (int):
        item_id (str):
        output_index (int):
        content_index (int):
        part (ResponseOutputText | ResponseReasoningText):
    """

    type_: ResponseContentPartEventType
    sequence_number: int
    item_id: str
    output_index: int
    content_index: int
    part: ResponseOutputText | ResponseReasoningText
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.response_output_text import ResponseOutputText  # noqa: PLC0415

        type_ = self.type_.value

        sequence_number = self.sequence_number

        item_id = self.item_id

        output_index = self.output_index

        content_index = self.content_index

        part: dict[str, Any]
        if isinstance(self.part, ResponseOutputText):
            part = self.part.to_dict()
        else:
            part = self.part.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "type": type_,
                "sequence_number": sequence_number,
                "item_id": item_id,
                "output_index": output_index,
                "content_index": content_index,
                "part": part,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.response_output_text import ResponseOutputText  # noqa: PLC0415
        from ..models.response_reasoning_text import ResponseReasoningText  # noqa: PLC0415

        d = dict(src_dict)
        type_ = ResponseContentPartEventType(d.pop("type"))

        sequence_number = d.pop("sequence_number")

        item_id = d.pop("item_id")

        output_index = d.pop("output_index")

        content_index = d.pop("content_index")

        def _parse_part(data: object) -> ResponseOutputText | ResponseReasoningText:
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                part_type_0 = ResponseOutputText.from_dict(data)

                return part_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            part_type_1 = ResponseReasoningText.from_dict(data)

            return part_type_1

        part = _parse_part(d.pop("part"))

        response_content_part_event = cls(
            type_=type_,
            sequence_number=sequence_number,
            item_id=item_id,
            output_index=output_index,
            content_index=content_index,
            part=part,
        )

        response_content_part_event.additional_properties = d
        return response_content_part_event

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
