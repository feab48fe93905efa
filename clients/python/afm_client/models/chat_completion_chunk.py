from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.chat_completion_chunk_object import ChatCompletionChunkObject
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.afm_profile_type_0 import AfmProfileType0
    from ..models.chat_chunk_choice import ChatChunkChoice
    from ..models.error_detail import ErrorDetail
    from ..models.timings import Timings
    from ..models.usage import Usage


T = TypeVar("T", bound="ChatCompletionChunk")


@_attrs_define
class ChatCompletionChunk:
    """One `chat.completion.chunk`: the JSON in the `data` of a chat stream event. Every chunk
    of a stream has the same `id`. The first delta carries `role`; the finish chunk has
    `finish_reason`; the usage chunk (and the `afm_profile` chunk) has `choices: []`. A
    mid-stream failure is a chunk with `finish_reason: "error"` and an `error` object.
    In `/v1/batch/completions` each chunk is a whole answer and carries `custom_id`.

        Attributes:
            id (str): `chatcmpl-...`, the same for the whole stream.
            object_ (ChatCompletionChunkObject):
            created (int):
            model (str):
            choices (list[ChatChunkChoice]):
            system_fingerprint (str | Unset):
            custom_id (str | Unset): `/v1/batch/completions` only: the request's `custom_id`.
            usage (Usage | Unset):
            timings (Timings | Unset): llama.cpp-style counts and milliseconds.
            afm_profile (AfmProfileType0 | None | Unset): Added with `X-AFM-Profile`. Fields that need Apple hardware are
                null elsewhere.
            error (ErrorDetail | Unset):
    """

    id: str
    object_: ChatCompletionChunkObject
    created: int
    model: str
    choices: list[ChatChunkChoice]
    system_fingerprint: str | Unset = UNSET
    custom_id: str | Unset = UNSET
    usage: Usage | Unset = UNSET
    timings: Timings | Unset = UNSET
    afm_profile: AfmProfileType0 | None | Unset = UNSET
    error: ErrorDetail | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.afm_profile_type_0 import AfmProfileType0  # noqa: PLC0415

        id = self.id

        object_ = self.object_.value

        created = self.created

        model = self.model

        choices = []
        for choices_item_data in self.choices:
            choices_item = choices_item_data.to_dict()
            choices.append(choices_item)

        system_fingerprint = self.system_fingerprint

        custom_id = self.custom_id

        usage: dict[str, Any] | Unset = UNSET
        if not isinstance(self.usage, Unset):
            usage = self.usage.to_dict()

        timings: dict[str, Any] | Unset = UNSET
        if not isinstance(self.timings, Unset):
            timings = self.timings.to_dict()

        afm_profile: dict[str, Any] | None | Unset
        if isinstance(self.afm_profile, Unset):
            afm_profile = UNSET
        elif isinstance(self.afm_profile, AfmProfileType0):
            afm_profile = self.afm_profile.to_dict()
        else:
            afm_profile = self.afm_profile

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
        if custom_id is not UNSET:
            field_dict["custom_id"] = custom_id
        if usage is not UNSET:
            field_dict["usage"] = usage
        if timings is not UNSET:
            field_dict["timings"] = timings
        if afm_profile is not UNSET:
            field_dict["afm_profile"] = afm_profile
        if error is not UNSET:
            field_dict["error"] = error

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.afm_profile_type_0 import AfmProfileType0  # noqa: PLC0415
        from ..models.chat_chunk_choice import ChatChunkChoice  # noqa: PLC0415
        from ..models.error_detail import ErrorDetail  # noqa: PLC0415
        from ..models.timings import Timings  # noqa: PLC0415
        from ..models.usage import Usage  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        object_ = ChatCompletionChunkObject(d.pop("object"))

        created = d.pop("created")

        model = d.pop("model")

        choices = []
        _choices = d.pop("choices")
        for choices_item_data in _choices:
            choices_item = ChatChunkChoice.from_dict(choices_item_data)

            choices.append(choices_item)

        system_fingerprint = d.pop("system_fingerprint", UNSET)

        custom_id = d.pop("custom_id", UNSET)

        _usage = d.pop("usage", UNSET)
        usage: Usage | Unset
        if isinstance(_usage, Unset):
            usage = UNSET
        else:
            usage = Usage.from_dict(_usage)

        _timings = d.pop("timings", UNSET)
        timings: Timings | Unset
        if isinstance(_timings, Unset):
            timings = UNSET
        else:
            timings = Timings.from_dict(_timings)

        def _parse_afm_profile(data: object) -> AfmProfileType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_afm_profile_type_0 = AfmProfileType0.from_dict(data)

                return componentsschemas_afm_profile_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(AfmProfileType0 | None | Unset, data)

        afm_profile = _parse_afm_profile(d.pop("afm_profile", UNSET))

        _error = d.pop("error", UNSET)
        error: ErrorDetail | Unset
        if isinstance(_error, Unset):
            error = UNSET
        else:
            error = ErrorDetail.from_dict(_error)

        chat_completion_chunk = cls(
            id=id,
            object_=object_,
            created=created,
            model=model,
            choices=choices,
            system_fingerprint=system_fingerprint,
            custom_id=custom_id,
            usage=usage,
            timings=timings,
            afm_profile=afm_profile,
            error=error,
        )

        chat_completion_chunk.additional_properties = d
        return chat_completion_chunk

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
