from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.response_text_delta_event_type import ResponseTextDeltaEventType
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.response_text_delta_event_logprobs_item import ResponseTextDeltaEventLogprobsItem


T = TypeVar("T", bound="ResponseTextDeltaEvent")


@_attrs_define
class ResponseTextDeltaEvent:
    """
    Attributes:
        type_ (ResponseTextDeltaEventType):
        sequence_number (int):
        item_id (str):
        output_index (int):
        content_index (int):
        delta (str):
        logprobs (list[ResponseTextDeltaEventLogprobsItem] | Unset):
    """

    type_: ResponseTextDeltaEventType
    sequence_number: int
    item_id: str
    output_index: int
    content_index: int
    delta: str
    logprobs: list[ResponseTextDeltaEventLogprobsItem] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_.value

        sequence_number = self.sequence_number

        item_id = self.item_id

        output_index = self.output_index

        content_index = self.content_index

        delta = self.delta

        logprobs: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.logprobs, Unset):
            logprobs = []
            for logprobs_item_data in self.logprobs:
                logprobs_item = logprobs_item_data.to_dict()
                logprobs.append(logprobs_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "type": type_,
                "sequence_number": sequence_number,
                "item_id": item_id,
                "output_index": output_index,
                "content_index": content_index,
                "delta": delta,
            }
        )
        if logprobs is not UNSET:
            field_dict["logprobs"] = logprobs

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.response_text_delta_event_logprobs_item import ResponseTextDeltaEventLogprobsItem  # noqa: PLC0415

        d = dict(src_dict)
        type_ = ResponseTextDeltaEventType(d.pop("type"))

        sequence_number = d.pop("sequence_number")

        item_id = d.pop("item_id")

        output_index = d.pop("output_index")

        content_index = d.pop("content_index")

        delta = d.pop("delta")

        _logprobs = d.pop("logprobs", UNSET)
        logprobs: list[ResponseTextDeltaEventLogprobsItem] | Unset = UNSET
        if _logprobs is not UNSET:
            logprobs = []
            for logprobs_item_data in _logprobs:
                logprobs_item = ResponseTextDeltaEventLogprobsItem.from_dict(logprobs_item_data)

                logprobs.append(logprobs_item)

        response_text_delta_event = cls(
            type_=type_,
            sequence_number=sequence_number,
            item_id=item_id,
            output_index=output_index,
            content_index=content_index,
            delta=delta,
            logprobs=logprobs,
        )

        response_text_delta_event.additional_properties = d
        return response_text_delta_event

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
