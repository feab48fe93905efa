from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.response_text_format_json_schema_type import ResponseTextFormatJsonSchemaType
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.response_text_format_json_schema_schema import ResponseTextFormatJsonSchemaSchema


T = TypeVar("T", bound="ResponseTextFormatJsonSchema")


@_attrs_define
class ResponseTextFormatJsonSchema:
    """JSON that satisfies `schema`.

    Attributes:
        type_ (ResponseTextFormatJsonSchemaType):
        name (str):
        schema (ResponseTextFormatJsonSchemaSchema): The JSON Schema the text must satisfy.
        description (None | str | Unset):
        strict (bool | None | Unset):
    """

    type_: ResponseTextFormatJsonSchemaType
    name: str
    schema: ResponseTextFormatJsonSchemaSchema
    description: None | str | Unset = UNSET
    strict: bool | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_.value

        name = self.name

        schema = self.schema.to_dict()

        description: None | str | Unset
        if isinstance(self.description, Unset):
            description = UNSET
        else:
            description = self.description

        strict: bool | None | Unset
        if isinstance(self.strict, Unset):
            strict = UNSET
        else:
            strict = self.strict

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "type": type_,
                "name": name,
                "schema": schema,
            }
        )
        if description is not UNSET:
            field_dict["description"] = description
        if strict is not UNSET:
            field_dict["strict"] = strict

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.response_text_format_json_schema_schema import ResponseTextFormatJsonSchemaSchema  # noqa: PLC0415

        d = dict(src_dict)
        type_ = ResponseTextFormatJsonSchemaType(d.pop("type"))

        name = d.pop("name")

        schema = ResponseTextFormatJsonSchemaSchema.from_dict(d.pop("schema"))

        def _parse_description(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        description = _parse_description(d.pop("description", UNSET))

        def _parse_strict(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        strict = _parse_strict(d.pop("strict", UNSET))

        response_text_format_json_schema = cls(
            type_=type_,
            name=name,
            schema=schema,
            description=description,
            strict=strict,
        )

        response_text_format_json_schema.additional_properties = d
        return response_text_format_json_schema

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
