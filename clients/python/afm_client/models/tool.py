from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.tool_type import ToolType

if TYPE_CHECKING:
    from ..models.function_definition import FunctionDefinition


T = TypeVar("T", bound="Tool")


@_attrs_define
class Tool:
    """
    Attributes:
        type_ (ToolType):
        function (FunctionDefinition):
    """

    type_: ToolType
    function: FunctionDefinition
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_.value

        function = self.function.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "type": type_,
                "function": function,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.function_definition import FunctionDefinition  # noqa: PLC0415

        d = dict(src_dict)
        type_ = ToolType(d.pop("type"))

        function = FunctionDefinition.from_dict(d.pop("function"))

        tool = cls(
            type_=type_,
            function=function,
        )

        tool.additional_properties = d
        return tool

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
