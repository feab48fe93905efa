from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.top_logprob import TopLogprob


T = TypeVar("T", bound="TokenLogprob")


@_attrs_define
class TokenLogprob:
    """
    Attributes:
        token (str):
        logprob (float):
        bytes_ (list[int] | None):
        top_logprobs (list[TopLogprob]):
    """

    token: str
    logprob: float
    bytes_: list[int] | None
    top_logprobs: list[TopLogprob]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        token = self.token

        logprob = self.logprob

        bytes_: list[int] | None
        if isinstance(self.bytes_, list):
            bytes_ = self.bytes_

        else:
            bytes_ = self.bytes_

        top_logprobs = []
        for top_logprobs_item_data in self.top_logprobs:
            top_logprobs_item = top_logprobs_item_data.to_dict()
            top_logprobs.append(top_logprobs_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "token": token,
                "logprob": logprob,
                "bytes": bytes_,
                "top_logprobs": top_logprobs,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.top_logprob import TopLogprob  # noqa: PLC0415

        d = dict(src_dict)
        token = d.pop("token")

        logprob = d.pop("logprob")

        def _parse_bytes_(data: object) -> list[int] | None:
            if data is None:
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                bytes_type_0 = cast(list[int], data)

                return bytes_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[int] | None, data)

        bytes_ = _parse_bytes_(d.pop("bytes"))

        top_logprobs = []
        _top_logprobs = d.pop("top_logprobs")
        for top_logprobs_item_data in _top_logprobs:
            top_logprobs_item = TopLogprob.from_dict(top_logprobs_item_data)

            top_logprobs.append(top_logprobs_item)

        token_logprob = cls(
            token=token,
            logprob=logprob,
            bytes_=bytes_,
            top_logprobs=top_logprobs,
        )

        token_logprob.additional_properties = d
        return token_logprob

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
