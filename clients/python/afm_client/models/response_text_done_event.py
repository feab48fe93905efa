from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.response_text_done_event_type import ResponseTextDoneEventType
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.response_text_done_event_logprobs_item import ResponseTextDoneEventLogprobsItem


T = TypeVar("T", bound="ResponseTextDoneEvent")


@_attrs_define
class ResponseTextDoneEvent:
    """
    Attributes:
        type_ (ResponseTextDoneEventType):
        sequence_number (int):
        item_id (str):
        output_index (int):
        content_index (int):
        text (str):
        logprobs (list[ResponseTextDoneEventLogprobsItem] | Unset):
    """

    type_: ResponseTextDoneEventType
    sequence_number: int
    item_id: str
    output_index: int
    content_index: int
    text: str
    logprobs: list[ResponseTextDoneEventLogprobsItem] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_.value

        sequence_number = self.sequence_number

        item_id = self.item_id

        output_index = self.output_index

        content_index = self.content_index

        text = self.text

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
                "text": text,
            }
        )
        if logprobs is not UNSET:
            field_dict["logprobs"] = logprobs

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.response_text_done_event_logprobs_item import ResponseTextDoneEventLogprobsItem  # noqa: PLC0415

        d = dict(src_dict)
        type_ = ResponseTextDoneEventType(d.pop("type"))

        sequence_number = d.pop("sequence_number")

        item_id = d.pop("item_id")

        output_index = d.pop("output_index")

        content_index = d.pop("content_index")

        text = d.pop("text")

        _logprobs = d.pop("logprobs", UNSET)
        logprobs: list[ResponseTextDoneEventLogprobsItem] | Unset = UNSET
        if _logprobs is not UNSET:
            logprobs = []
            for logprobs_item_data in _logprobs:
                logprobs_item = ResponseTextDoneEventLogprobsItem.from_dict(logprobs_item_data)

                logprobs.append(logprobs_item)

        response_text_done_event = cls(
            type_=type_,
            sequence_number=sequence_number,
            item_id=item_id,
            output_index=output_index,
            content_index=content_index,
            text=text,
            logprobs=logprobs,
        )

        response_text_done_event.additional_properties = d
        return response_text_done_event

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
