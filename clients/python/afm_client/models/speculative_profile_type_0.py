from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.speculative_profile_type_0_method import SpeculativeProfileType0Method
from ..types import UNSET, Unset

T = TypeVar("T", bound="SpeculativeProfileType0")


@_attrs_define
class SpeculativeProfileType0:
    """Speculative decoding for this request (`--spec-ngram`, `--draft-model`); null when the server does not speculate.
    Speculation runs while the request decodes alone (c=1) and has no grammar constraint; the counts are zero otherwise.

        Attributes:
            method (SpeculativeProfileType0Method): How tokens are drafted.
            draft_tokens (int): Drafted tokens the model verified.
            accepted_tokens (int): Of those, the tokens the model accepted.
            acceptance_rate (float | None | Unset): accepted_tokens / draft_tokens; null when nothing was drafted.
    """

    method: SpeculativeProfileType0Method
    draft_tokens: int
    accepted_tokens: int
    acceptance_rate: float | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        method = self.method.value

        draft_tokens = self.draft_tokens

        accepted_tokens = self.accepted_tokens

        acceptance_rate: float | None | Unset
        if isinstance(self.acceptance_rate, Unset):
            acceptance_rate = UNSET
        else:
            acceptance_rate = self.acceptance_rate

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "method": method,
                "draft_tokens": draft_tokens,
                "accepted_tokens": accepted_tokens,
            }
        )
        if acceptance_rate is not UNSET:
            field_dict["acceptance_rate"] = acceptance_rate

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        method = SpeculativeProfileType0Method(d.pop("method"))

        draft_tokens = d.pop("draft_tokens")

        accepted_tokens = d.pop("accepted_tokens")

        def _parse_acceptance_rate(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        acceptance_rate = _parse_acceptance_rate(d.pop("acceptance_rate", UNSET))

        speculative_profile_type_0 = cls(
            method=method,
            draft_tokens=draft_tokens,
            accepted_tokens=accepted_tokens,
            acceptance_rate=acceptance_rate,
        )

        speculative_profile_type_0.additional_properties = d
        return speculative_profile_type_0

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
