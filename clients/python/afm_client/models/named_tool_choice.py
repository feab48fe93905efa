from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.named_tool_choice_type import NamedToolChoiceType

if TYPE_CHECKING:
    from ..models.named_tool_choice_function import NamedToolChoiceFunction


T = TypeVar("T", bound="NamedToolChoice")


@_attrs_define
class NamedToolChoice:
    """
    Attributes:
        type_ (NamedToolChoiceType):
        function (NamedToolChoiceFunction):
    """

    type_: NamedToolChoiceType
    function: NamedToolChoiceFunction
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
        from ..models.named_tool_choice_function import NamedToolChoiceFunction  # noqa: PLC0415

        d = dict(src_dict)
        type_ = NamedToolChoiceType(d.pop("type"))

        function = NamedToolChoiceFunction.from_dict(d.pop("function"))

        named_tool_choice = cls(
            type_=type_,
            function=function,
        )

        named_tool_choice.additional_properties = d
        return named_tool_choice

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
