from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.response_text_format_json_object import ResponseTextFormatJsonObject
    from ..models.response_text_format_json_schema import ResponseTextFormatJsonSchema
    from ..models.response_text_format_text import ResponseTextFormatText


T = TypeVar("T", bound="ResponseTextConfigType0")


@_attrs_define
class ResponseTextConfigType0:
    """
    Attributes:
        format_ (ResponseTextFormatJsonObject | ResponseTextFormatJsonSchema | ResponseTextFormatText | Unset): By
            `type`: `text`, `json_object` or `json_schema` (`name` and `schema` required, `strict`); enforced token by token
            unless the grammar engine is disabled.
        verbosity (None | str | Unset):
    """

    format_: ResponseTextFormatJsonObject | ResponseTextFormatJsonSchema | ResponseTextFormatText | Unset = UNSET
    verbosity: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.response_text_format_json_object import ResponseTextFormatJsonObject  # noqa: PLC0415
        from ..models.response_text_format_text import ResponseTextFormatText  # noqa: PLC0415

        format_: dict[str, Any] | Unset
        if isinstance(self.format_, Unset):
            format_ = UNSET
        elif isinstance(self.format_, ResponseTextFormatText):
            format_ = self.format_.to_dict()
        elif isinstance(self.format_, ResponseTextFormatJsonObject):
            format_ = self.format_.to_dict()
        else:
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
        from ..models.response_text_format_json_object import ResponseTextFormatJsonObject  # noqa: PLC0415
        from ..models.response_text_format_json_schema import ResponseTextFormatJsonSchema  # noqa: PLC0415
        from ..models.response_text_format_text import ResponseTextFormatText  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_format_(
            data: object,
        ) -> ResponseTextFormatJsonObject | ResponseTextFormatJsonSchema | ResponseTextFormatText | Unset:
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_response_text_format_type_0 = ResponseTextFormatText.from_dict(data)

                return componentsschemas_response_text_format_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_response_text_format_type_1 = ResponseTextFormatJsonObject.from_dict(data)

                return componentsschemas_response_text_format_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            componentsschemas_response_text_format_type_2 = ResponseTextFormatJsonSchema.from_dict(data)

            return componentsschemas_response_text_format_type_2

        format_ = _parse_format_(d.pop("format", UNSET))

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
