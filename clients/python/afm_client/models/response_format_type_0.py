from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.response_format_type_0_type import ResponseFormatType0Type
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.json_schema_format import JsonSchemaFormat


T = TypeVar("T", bound="ResponseFormatType0")


@_attrs_define
class ResponseFormatType0:
    """`text`, `json_object` (any JSON object) or `json_schema`. Enforced token by token unless the grammar engine is
    disabled; wins over `--guided-json`.

        Attributes:
            type_ (ResponseFormatType0Type):
            json_schema (JsonSchemaFormat | Unset):
    """

    type_: ResponseFormatType0Type
    json_schema: JsonSchemaFormat | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_.value

        json_schema: dict[str, Any] | Unset = UNSET
        if not isinstance(self.json_schema, Unset):
            json_schema = self.json_schema.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "type": type_,
            }
        )
        if json_schema is not UNSET:
            field_dict["json_schema"] = json_schema

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.json_schema_format import JsonSchemaFormat  # noqa: PLC0415

        d = dict(src_dict)
        type_ = ResponseFormatType0Type(d.pop("type"))

        _json_schema = d.pop("json_schema", UNSET)
        json_schema: JsonSchemaFormat | Unset
        if isinstance(_json_schema, Unset):
            json_schema = UNSET
        else:
            json_schema = JsonSchemaFormat.from_dict(_json_schema)

        response_format_type_0 = cls(
            type_=type_,
            json_schema=json_schema,
        )

        response_format_type_0.additional_properties = d
        return response_format_type_0

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
