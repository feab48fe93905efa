from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.response_function_call_status import ResponseFunctionCallStatus
from ..models.response_function_call_type import ResponseFunctionCallType
from ..types import UNSET, Unset

T = TypeVar("T", bound="ResponseFunctionCall")


@_attrs_define
class ResponseFunctionCall:
    """
    Attributes:
        type_ (ResponseFunctionCallType):
        id (str):
        call_id (str):
        name (str):
        arguments (str): The arguments as a JSON string.
        status (ResponseFunctionCallStatus):
        namespace (str | Unset): The namespace tool the function belongs to (absent for a plain function tool).
    """

    type_: ResponseFunctionCallType
    id: str
    call_id: str
    name: str
    arguments: str
    status: ResponseFunctionCallStatus
    namespace: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_.value

        id = self.id

        call_id = self.call_id

        name = self.name

        arguments = self.arguments

        status = self.status.value

        namespace = self.namespace

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "type": type_,
                "id": id,
                "call_id": call_id,
                "name": name,
                "arguments": arguments,
                "status": status,
            }
        )
        if namespace is not UNSET:
            field_dict["namespace"] = namespace

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        type_ = ResponseFunctionCallType(d.pop("type"))

        id = d.pop("id")

        call_id = d.pop("call_id")

        name = d.pop("name")

        arguments = d.pop("arguments")

        status = ResponseFunctionCallStatus(d.pop("status"))

        namespace = d.pop("namespace", UNSET)

        response_function_call = cls(
            type_=type_,
            id=id,
            call_id=call_id,
            name=name,
            arguments=arguments,
            status=status,
            namespace=namespace,
        )

        response_function_call.additional_properties = d
        return response_function_call

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
