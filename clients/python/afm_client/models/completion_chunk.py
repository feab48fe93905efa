from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.completion_chunk_object import CompletionChunkObject
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.completion_choice import CompletionChoice
    from ..models.error_detail import ErrorDetail
    from ..models.usage import Usage


T = TypeVar("T", bound="CompletionChunk")


@_attrs_define
class CompletionChunk:
    """One `text_completion` chunk: the JSON in the `data` of a completions stream event. The
    usage chunk has `choices: []`; a mid-stream failure has `finish_reason: "error"` and an
    `error` object.

        Attributes:
            id (str):
            object_ (CompletionChunkObject):
            created (int):
            model (str):
            choices (list[CompletionChoice]):
            system_fingerprint (str | Unset):
            usage (Usage | Unset):
            error (ErrorDetail | Unset):
    """

    id: str
    object_: CompletionChunkObject
    created: int
    model: str
    choices: list[CompletionChoice]
    system_fingerprint: str | Unset = UNSET
    usage: Usage | Unset = UNSET
    error: ErrorDetail | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        object_ = self.object_.value

        created = self.created

        model = self.model

        choices = []
        for choices_item_data in self.choices:
            choices_item = choices_item_data.to_dict()
            choices.append(choices_item)

        system_fingerprint = self.system_fingerprint

        usage: dict[str, Any] | Unset = UNSET
        if not isinstance(self.usage, Unset):
            usage = self.usage.to_dict()

        error: dict[str, Any] | Unset = UNSET
        if not isinstance(self.error, Unset):
            error = self.error.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "object": object_,
                "created": created,
                "model": model,
                "choices": choices,
            }
        )
        if system_fingerprint is not UNSET:
            field_dict["system_fingerprint"] = system_fingerprint
        if usage is not UNSET:
            field_dict["usage"] = usage
        if error is not UNSET:
            field_dict["error"] = error

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.completion_choice import CompletionChoice  # noqa: PLC0415
        from ..models.error_detail import ErrorDetail  # noqa: PLC0415
        from ..models.usage import Usage  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        object_ = CompletionChunkObject(d.pop("object"))

        created = d.pop("created")

        model = d.pop("model")

        choices = []
        _choices = d.pop("choices")
        for choices_item_data in _choices:
            choices_item = CompletionChoice.from_dict(choices_item_data)

            choices.append(choices_item)

        system_fingerprint = d.pop("system_fingerprint", UNSET)

        _usage = d.pop("usage", UNSET)
        usage: Usage | Unset
        if isinstance(_usage, Unset):
            usage = UNSET
        else:
            usage = Usage.from_dict(_usage)

        _error = d.pop("error", UNSET)
        error: ErrorDetail | Unset
        if isinstance(_error, Unset):
            error = UNSET
        else:
            error = ErrorDetail.from_dict(_error)

        completion_chunk = cls(
            id=id,
            object_=object_,
            created=created,
            model=model,
            choices=choices,
            system_fingerprint=system_fingerprint,
            usage=usage,
            error=error,
        )

        completion_chunk.additional_properties = d
        return completion_chunk

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
