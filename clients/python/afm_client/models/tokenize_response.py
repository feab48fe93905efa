from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="TokenizeResponse")


@_attrs_define
class TokenizeResponse:
    """
    Attributes:
        tokens (list[int]):
        count (int):
        model (str):
        max_model_len (int):
    """

    tokens: list[int]
    count: int
    model: str
    max_model_len: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        tokens = self.tokens

        count = self.count

        model = self.model

        max_model_len = self.max_model_len

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "tokens": tokens,
                "count": count,
                "model": model,
                "max_model_len": max_model_len,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        tokens = cast(list[int], d.pop("tokens"))

        count = d.pop("count")

        model = d.pop("model")

        max_model_len = d.pop("max_model_len")

        tokenize_response = cls(
            tokens=tokens,
            count=count,
            model=model,
            max_model_len=max_model_len,
        )

        tokenize_response.additional_properties = d
        return tokenize_response

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
