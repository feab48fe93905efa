from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="ModelCapabilitiesType0")


@_attrs_define
class ModelCapabilitiesType0:
    """AFM extension. What a loaded chat model can do (null until it is loaded).

    Attributes:
        tools (bool): Its chat template renders tools (tool calls are parsed).
        reasoning (bool): Its chat template has thinking controls or think markup.
        vision (bool): It takes image input (always false here).
    """

    tools: bool
    reasoning: bool
    vision: bool
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        tools = self.tools

        reasoning = self.reasoning

        vision = self.vision

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "tools": tools,
                "reasoning": reasoning,
                "vision": vision,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        tools = d.pop("tools")

        reasoning = d.pop("reasoning")

        vision = d.pop("vision")

        model_capabilities_type_0 = cls(
            tools=tools,
            reasoning=reasoning,
            vision=vision,
        )

        model_capabilities_type_0.additional_properties = d
        return model_capabilities_type_0

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
