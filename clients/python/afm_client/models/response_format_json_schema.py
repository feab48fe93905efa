from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.response_format_json_schema_type import ResponseFormatJsonSchemaType

if TYPE_CHECKING:
    from ..models.json_schema_format import JsonSchemaFormat


T = TypeVar("T", bound="ResponseFormatJsonSchema")


@_attrs_define
class ResponseFormatJsonSchema:
    """JSON that satisfies `json_schema.schema`.

    Attributes:
        type_ (ResponseFormatJsonSchemaType):
        json_schema (JsonSchemaFormat):
    """

    type_: ResponseFormatJsonSchemaType
    json_schema: JsonSchemaFormat
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_.value

        json_schema = self.json_schema.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "type": type_,
                "json_schema": json_schema,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.json_schema_format import JsonSchemaFormat  # noqa: PLC0415

        d = dict(src_dict)
        type_ = ResponseFormatJsonSchemaType(d.pop("type"))

        json_schema = JsonSchemaFormat.from_dict(d.pop("json_schema"))

        response_format_json_schema = cls(
            type_=type_,
            json_schema=json_schema,
        )

        response_format_json_schema.additional_properties = d
        return response_format_json_schema

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
