from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.response_namespace_function_type_type_1 import ResponseNamespaceFunctionTypeType1
from ..models.response_namespace_function_type_type_2_type_1 import ResponseNamespaceFunctionTypeType2Type1
from ..models.response_namespace_function_type_type_3_type_1 import ResponseNamespaceFunctionTypeType3Type1
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.response_namespace_function_parameters_type_0 import ResponseNamespaceFunctionParametersType0


T = TypeVar("T", bound="ResponseNamespaceFunction")


@_attrs_define
class ResponseNamespaceFunction:
    """
    Attributes:
        name (str):
        type_ (None | ResponseNamespaceFunctionTypeType1 | ResponseNamespaceFunctionTypeType2Type1 |
            ResponseNamespaceFunctionTypeType3Type1 | Unset):
        description (None | str | Unset):
        parameters (None | ResponseNamespaceFunctionParametersType0 | Unset): JSON Schema of the arguments object.
        strict (bool | None | Unset):
    """

    name: str
    type_: (
        None
        | ResponseNamespaceFunctionTypeType1
        | ResponseNamespaceFunctionTypeType2Type1
        | ResponseNamespaceFunctionTypeType3Type1
        | Unset
    ) = UNSET
    description: None | str | Unset = UNSET
    parameters: None | ResponseNamespaceFunctionParametersType0 | Unset = UNSET
    strict: bool | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.response_namespace_function_parameters_type_0 import ResponseNamespaceFunctionParametersType0  # noqa: PLC0415

        name = self.name

        type_: None | str | Unset
        if isinstance(self.type_, Unset):
            type_ = UNSET
        elif isinstance(self.type_, ResponseNamespaceFunctionTypeType1):
            type_ = self.type_.value
        elif isinstance(self.type_, ResponseNamespaceFunctionTypeType2Type1):
            type_ = self.type_.value
        elif isinstance(self.type_, ResponseNamespaceFunctionTypeType3Type1):
            type_ = self.type_.value
        else:
            type_ = self.type_

        description: None | str | Unset
        if isinstance(self.description, Unset):
            description = UNSET
        else:
            description = self.description

        parameters: dict[str, Any] | None | Unset
        if isinstance(self.parameters, Unset):
            parameters = UNSET
        elif isinstance(self.parameters, ResponseNamespaceFunctionParametersType0):
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
                "name": name,
            }
        )
        if type_ is not UNSET:
            field_dict["type"] = type_
        if description is not UNSET:
            field_dict["description"] = description
        if parameters is not UNSET:
            field_dict["parameters"] = parameters
        if strict is not UNSET:
            field_dict["strict"] = strict

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.response_namespace_function_parameters_type_0 import ResponseNamespaceFunctionParametersType0  # noqa: PLC0415

        d = dict(src_dict)
        name = d.pop("name")

        def _parse_type_(
            data: object,
        ) -> (
            None
            | ResponseNamespaceFunctionTypeType1
            | ResponseNamespaceFunctionTypeType2Type1
            | ResponseNamespaceFunctionTypeType3Type1
            | Unset
        ):
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                type_type_1 = ResponseNamespaceFunctionTypeType1(data)

                return type_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, str):
                    raise TypeError()
                type_type_2_type_1 = ResponseNamespaceFunctionTypeType2Type1(data)

                return type_type_2_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, str):
                    raise TypeError()
                type_type_3_type_1 = ResponseNamespaceFunctionTypeType3Type1(data)

                return type_type_3_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(
                None
                | ResponseNamespaceFunctionTypeType1
                | ResponseNamespaceFunctionTypeType2Type1
                | ResponseNamespaceFunctionTypeType3Type1
                | Unset,
                data,
            )

        type_ = _parse_type_(d.pop("type", UNSET))

        def _parse_description(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        description = _parse_description(d.pop("description", UNSET))

        def _parse_parameters(data: object) -> None | ResponseNamespaceFunctionParametersType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                parameters_type_0 = ResponseNamespaceFunctionParametersType0.from_dict(data)

                return parameters_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ResponseNamespaceFunctionParametersType0 | Unset, data)

        parameters = _parse_parameters(d.pop("parameters", UNSET))

        def _parse_strict(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        strict = _parse_strict(d.pop("strict", UNSET))

        response_namespace_function = cls(
            name=name,
            type_=type_,
            description=description,
            parameters=parameters,
            strict=strict,
        )

        response_namespace_function.additional_properties = d
        return response_namespace_function

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
