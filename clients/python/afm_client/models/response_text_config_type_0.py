from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.response_text_format import ResponseTextFormat


T = TypeVar("T", bound="ResponseTextConfigType0")


@_attrs_define
class ResponseTextConfigType0:
    """
    Attributes:
        format_ (ResponseTextFormat | Unset): `text`, `json_object` or `json_schema` (`name`, `schema`, `strict`);
            enforced token by token unless the grammar engine is disabled.
        verbosity (None | str | Unset):
    """

    format_: ResponseTextFormat | Unset = UNSET
    verbosity: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        format_: dict[str, Any] | Unset = UNSET
        if not isinstance(self.format_, Unset):
            format_ = self.format_.to_dict()

        verbosity: None | str | Unset
        if isinstance(self.verbosity, Unset):
            verbosity = UNSET
        else:
            verbosity = self.verbosity

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if format_ is not UNSET:
            field_dict["format"] = format_
        if verbosity is not UNSET:
            field_dict["verbosity"] = verbosity

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.response_text_format import ResponseTextFormat  # noqa: PLC0415

        d = dict(src_dict)
        _format_ = d.pop("format", UNSET)
        format_: ResponseTextFormat | Unset
        if isinstance(_format_, Unset):
            format_ = UNSET
        else:
            format_ = ResponseTextFormat.from_dict(_format_)

        def _parse_verbosity(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        verbosity = _parse_verbosity(d.pop("verbosity", UNSET))

        response_text_config_type_0 = cls(
            format_=format_,
            verbosity=verbosity,
        )

        response_text_config_type_0.additional_properties = d
        return response_text_config_type_0

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
