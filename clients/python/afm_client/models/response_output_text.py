from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.response_output_text_type import ResponseOutputTextType
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.response_output_text_annotations_item import ResponseOutputTextAnnotationsItem
    from ..models.response_output_text_logprobs_item import ResponseOutputTextLogprobsItem


T = TypeVar("T", bound="ResponseOutputText")


@_attrs_define
class ResponseOutputText:
    """
    Attributes:
        type_ (ResponseOutputTextType):
        text (str):
        annotations (list[ResponseOutputTextAnnotationsItem]):
        logprobs (list[ResponseOutputTextLogprobsItem] | Unset):
    """

    type_: ResponseOutputTextType
    text: str
    annotations: list[ResponseOutputTextAnnotationsItem]
    logprobs: list[ResponseOutputTextLogprobsItem] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_.value

        text = self.text

        annotations = []
        for annotations_item_data in self.annotations:
            annotations_item = annotations_item_data.to_dict()
            annotations.append(annotations_item)

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
                "text": text,
                "annotations": annotations,
            }
        )
        if logprobs is not UNSET:
            field_dict["logprobs"] = logprobs

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.response_output_text_annotations_item import ResponseOutputTextAnnotationsItem  # noqa: PLC0415
        from ..models.response_output_text_logprobs_item import ResponseOutputTextLogprobsItem  # noqa: PLC0415

        d = dict(src_dict)
        type_ = ResponseOutputTextType(d.pop("type"))

        text = d.pop("text")

        annotations = []
        _annotations = d.pop("annotations")
        for annotations_item_data in _annotations:
            annotations_item = ResponseOutputTextAnnotationsItem.from_dict(annotations_item_data)

            annotations.append(annotations_item)

        _logprobs = d.pop("logprobs", UNSET)
        logprobs: list[ResponseOutputTextLogprobsItem] | Unset = UNSET
        if _logprobs is not UNSET:
            logprobs = []
            for logprobs_item_data in _logprobs:
                logprobs_item = ResponseOutputTextLogprobsItem.from_dict(logprobs_item_data)

                logprobs.append(logprobs_item)

        response_output_text = cls(
            type_=type_,
            text=text,
            annotations=annotations,
            logprobs=logprobs,
        )

        response_output_text.additional_properties = d
        return response_output_text

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
