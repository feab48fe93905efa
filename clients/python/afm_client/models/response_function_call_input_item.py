from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.response_function_call_input_item_type import ResponseFunctionCallInputItemType
from ..types import UNSET, Unset

T = TypeVar("T", bound="ResponseFunctionCallInputItem")


@_attrs_define
class ResponseFunctionCallInputItem:
    """An earlier function call, sent back with its output.

    Attributes:
        type_ (ResponseFunctionCallInputItemType):
        call_id (str):
        name (str):
        id (None | str | Unset):
        status (None | str | Unset):
        namespace (None | str | Unset):
        arguments (str | Unset):
    """

    type_: ResponseFunctionCallInputItemType
    call_id: str
    name: str
    id: None | str | Unset = UNSET
    status: None | str | Unset = UNSET
    namespace: None | str | Unset = UNSET
    arguments: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_.value

        call_id = self.call_id

        name = self.name

        id: None | str | Unset
        if isinstance(self.id, Unset):
            id = UNSET
        else:
            id = self.id

        status: None | str | Unset
        if isinstance(self.status, Unset):
            status = UNSET
        else:
            status = self.status

        namespace: None | str | Unset
        if isinstance(self.namespace, Unset):
            namespace = UNSET
        else:
            namespace = self.namespace

        arguments = self.arguments

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "type": type_,
                "call_id": call_id,
                "name": name,
            }
        )
        if id is not UNSET:
            field_dict["id"] = id
        if status is not UNSET:
            field_dict["status"] = status
        if namespace is not UNSET:
            field_dict["namespace"] = namespace
        if arguments is not UNSET:
            field_dict["arguments"] = arguments

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        type_ = ResponseFunctionCallInputItemType(d.pop("type"))

        call_id = d.pop("call_id")

        name = d.pop("name")

        def _parse_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        id = _parse_id(d.pop("id", UNSET))

        def _parse_status(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        status = _parse_status(d.pop("status", UNSET))

        def _parse_namespace(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        namespace = _parse_namespace(d.pop("namespace", UNSET))

        arguments = d.pop("arguments", UNSET)

        response_function_call_input_item = cls(
            type_=type_,
            call_id=call_id,
            name=name,
            id=id,
            status=status,
            namespace=namespace,
            arguments=arguments,
        )

        response_function_call_input_item.additional_properties = d
        return response_function_call_input_item

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
