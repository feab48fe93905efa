from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="TokenizePromptRequest")


@_attrs_define
class TokenizePromptRequest:
    """Plain text under vLLM's field name.

    Attributes:
        prompt (str): Alias of `text` (vLLM).
        model (str | Unset):
        add_special_tokens (bool | Unset): Add the tokenizer's special tokens around the text. Default: False.
    """

    prompt: str
    model: str | Unset = UNSET
    add_special_tokens: bool | Unset = False
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        prompt = self.prompt

        model = self.model

        add_special_tokens = self.add_special_tokens

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "prompt": prompt,
            }
        )
        if model is not UNSET:
            field_dict["model"] = model
        if add_special_tokens is not UNSET:
            field_dict["add_special_tokens"] = add_special_tokens

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        prompt = d.pop("prompt")

        model = d.pop("model", UNSET)

        add_special_tokens = d.pop("add_special_tokens", UNSET)

        tokenize_prompt_request = cls(
            prompt=prompt,
            model=model,
            add_special_tokens=add_special_tokens,
        )

        tokenize_prompt_request.additional_properties = d
        return tokenize_prompt_request

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
