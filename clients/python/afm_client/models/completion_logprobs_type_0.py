from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.token_alternatives import TokenAlternatives


T = TypeVar("T", bound="CompletionLogprobsType0")


@_attrs_define
class CompletionLogprobsType0:
    """
    Attributes:
        tokens (list[str] | Unset):
        token_logprobs (list[float] | Unset):
        top_logprobs (list[TokenAlternatives] | Unset):
        text_offset (list[int] | Unset):
    """

    tokens: list[str] | Unset = UNSET
    token_logprobs: list[float] | Unset = UNSET
    top_logprobs: list[TokenAlternatives] | Unset = UNSET
    text_offset: list[int] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        tokens: list[str] | Unset = UNSET
        if not isinstance(self.tokens, Unset):
            tokens = self.tokens

        token_logprobs: list[float] | Unset = UNSET
        if not isinstance(self.token_logprobs, Unset):
            token_logprobs = self.token_logprobs

        top_logprobs: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.top_logprobs, Unset):
            top_logprobs = []
            for top_logprobs_item_data in self.top_logprobs:
                top_logprobs_item = top_logprobs_item_data.to_dict()
                top_logprobs.append(top_logprobs_item)

        text_offset: list[int] | Unset = UNSET
        if not isinstance(self.text_offset, Unset):
            text_offset = self.text_offset

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if tokens is not UNSET:
            field_dict["tokens"] = tokens
        if token_logprobs is not UNSET:
            field_dict["token_logprobs"] = token_logprobs
        if top_logprobs is not UNSET:
            field_dict["top_logprobs"] = top_logprobs
        if text_offset is not UNSET:
            field_dict["text_offset"] = text_offset

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.token_alternatives import TokenAlternatives  # noqa: PLC0415

        d = dict(src_dict)
        tokens = cast(list[str], d.pop("tokens", UNSET))

        token_logprobs = cast(list[float], d.pop("token_logprobs", UNSET))

        _top_logprobs = d.pop("top_logprobs", UNSET)
        top_logprobs: list[TokenAlternatives] | Unset = UNSET
        if _top_logprobs is not UNSET:
            top_logprobs = []
            for top_logprobs_item_data in _top_logprobs:
                top_logprobs_item = TokenAlternatives.from_dict(top_logprobs_item_data)

                top_logprobs.append(top_logprobs_item)

        text_offset = cast(list[int], d.pop("text_offset", UNSET))

        completion_logprobs_type_0 = cls(
            tokens=tokens,
            token_logprobs=token_logprobs,
            top_logprobs=top_logprobs,
            text_offset=text_offset,
        )

        completion_logprobs_type_0.additional_properties = d
        return completion_logprobs_type_0

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
