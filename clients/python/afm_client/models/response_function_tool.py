from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.response_function_tool_type import ResponseFunctionToolType
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.response_function_tool_parameters_type_0 import ResponseFunctionToolParametersType0


T = TypeVar("T", bound="ResponseFunctionTool")


@_attrs_define
class ResponseFunctionTool:
    """
    Attributes:
        type_ (ResponseFunctionToolType):
        name (str):
        description (None | str | Unset):
        parameters (None | ResponseFunctionToolParametersType0 | Unset): JSON Schema of the arguments object.
        strict (bool | None | Unset): Arguments must validate against `parameters`; enforced by the grammar engine.
    """

    type_: ResponseFunctionToolType
    name: str
    description: None | str | Unset = UNSET
    parameters: None | ResponseFunctionToolParametersType0 | Unset = UNSET
    strict: bool | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.response_function_tool_parameters_type_0 import ResponseFunctionToolParametersType0  # noqa: PLC0415

        type_ = self.type_.value

        name = self.name

        description: None | str | Unset
        if isinstance(self.description, Unset):
            description = UNSET
        else:
            description = self.description

        parameters: dict[str, Any] | None | Unset
        if isinstance(self.parameters, Unset):
            parameters = UNSET
        elif isinstance(self.parameters, ResponseFunctionToolParametersType0):
            parameters = self.parameters.to_dict()
        else:
            parameters = self.parameters

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
            }
        )
        if description is not UNSET:
            field_dict["description"] = description
        if parameters is not UNSET:
            field_dict["parameters"] = parameters
        if strict is not UNSET:
            field_dict["strict"] = strict

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.response_function_tool_parameters_type_0 import ResponseFunctionToolParametersType0  # noqa: PLC0415

        d = dict(src_dict)
        type_ = ResponseFunctionToolType(d.pop("type"))

        name = d.pop("name")

        def _parse_description(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        description = _parse_description(d.pop("description", UNSET))

        def _parse_parameters(data: object) -> None | ResponseFunctionToolParametersType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                parameters_type_0 = ResponseFunctionToolParametersType0.from_dict(data)

                return parameters_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ResponseFunctionToolParametersType0 | Unset, data)

        parameters = _parse_parameters(d.pop("parameters", UNSET))

        def _parse_strict(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        strict = _parse_strict(d.pop("strict", UNSET))

        response_function_tool = cls(
            type_=type_,
            name=name,
            description=description,
            parameters=parameters,
            strict=strict,
        )

        response_function_tool.additional_properties = d
        return response_function_tool

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
