from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.response_function_tool_choice_type import ResponseFunctionToolChoiceType
from ..types import UNSET, Unset

T = TypeVar("T", bound="ResponseFunctionToolChoice")


@_attrs_define
class ResponseFunctionToolChoice:
    """The model must call the function `name` (one of `tools`).

    Attributes:
        type_ (ResponseFunctionToolChoiceType):
        name (str):
        namespace (None | str | Unset): The namespace tool whose function `name` is.
    """

    type_: ResponseFunctionToolChoiceType
    name: str
    namespace: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_.value

        name = self.name

        namespace: None | str | Unset
        if isinstance(self.namespace, Unset):
            namespace = UNSET
        else:
            namespace = self.namespace

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "type": type_,
                "name": name,
            }
        )
        if namespace is not UNSET:
            field_dict["namespace"] = namespace

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        type_ = ResponseFunctionToolChoiceType(d.pop("type"))

        name = d.pop("name")

        def _parse_namespace(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        namespace = _parse_namespace(d.pop("namespace", UNSET))

        response_function_tool_choice = cls(
            type_=type_,
            name=name,
            namespace=namespace,
        )

        response_function_tool_choice.additional_properties = d
        return response_function_tool_choice

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
