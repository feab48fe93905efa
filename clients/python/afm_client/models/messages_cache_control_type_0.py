from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.messages_cache_control_type_0_ttl import MessagesCacheControlType0Ttl
from ..models.messages_cache_control_type_0_type import MessagesCacheControlType0Type
from ..types import UNSET, Unset

T = TypeVar("T", bound="MessagesCacheControlType0")


@_attrs_define
class MessagesCacheControlType0:
    """Prompt-caching breakpoint; accepted and ignored (the prefix cache needs no hints).

    Attributes:
        type_ (MessagesCacheControlType0Type | Unset):
        ttl (MessagesCacheControlType0Ttl | Unset):
    """

    type_: MessagesCacheControlType0Type | Unset = UNSET
    ttl: MessagesCacheControlType0Ttl | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        type_: str | Unset = UNSET
        if not isinstance(self.type_, Unset):
            type_ = self.type_.value

        ttl: str | Unset = UNSET
        if not isinstance(self.ttl, Unset):
            ttl = self.ttl.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if type_ is not UNSET:
            field_dict["type"] = type_
        if ttl is not UNSET:
            field_dict["ttl"] = ttl

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        _type_ = d.pop("type", UNSET)
        type_: MessagesCacheControlType0Type | Unset
        if isinstance(_type_, Unset):
            type_ = UNSET
        else:
            type_ = MessagesCacheControlType0Type(_type_)

        _ttl = d.pop("ttl", UNSET)
        ttl: MessagesCacheControlType0Ttl | Unset
        if isinstance(_ttl, Unset):
            ttl = UNSET
        else:
            ttl = MessagesCacheControlType0Ttl(_ttl)

        messages_cache_control_type_0 = cls(
            type_=type_,
            ttl=ttl,
        )

        messages_cache_control_type_0.additional_properties = d
        return messages_cache_control_type_0

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
