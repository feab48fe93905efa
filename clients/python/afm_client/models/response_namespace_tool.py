from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.response_namespace_tool_type import ResponseNamespaceToolType
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.response_namespace_function import ResponseNamespaceFunction
    from ..models.response_namespace_other_tool import ResponseNamespaceOtherTool


T = TypeVar("T", bound="ResponseNamespaceTool")


@_attrs_define
class ResponseNamespaceTool:
    """A named group of function tools; each is offered as `<namespace>.<name>`.

    Attributes:
        type_ (ResponseNamespaceToolType):
        name (str):
        description (None | str | Unset):
        tools (list[ResponseNamespaceFunction | ResponseNamespaceOtherTool] | Unset): The namespace's function tools
            (other types are left out and reported).
    """

    type_: ResponseNamespaceToolType
    name: str
    description: None | str | Unset = UNSET
    tools: list[ResponseNamespaceFunction | ResponseNamespaceOtherTool] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.response_namespace_function import ResponseNamespaceFunction  # noqa: PLC0415

        type_ = self.type_.value

        name = self.name

        description: None | str | Unset
        if isinstance(self.description, Unset):
            description = UNSET
        else:
            description = self.description

        tools: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.tools, Unset):
            tools = []
            for tools_item_data in self.tools:
                tools_item: dict[str, Any]
                if isinstance(tools_item_data, ResponseNamespaceFunction):
                    tools_item = tools_item_data.to_dict()
                else:
                    tools_item = tools_item_data.to_dict()

                tools.append(tools_item)

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
        if tools is not UNSET:
            field_dict["tools"] = tools

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.response_namespace_function import ResponseNamespaceFunction  # noqa: PLC0415
        from ..models.response_namespace_other_tool import ResponseNamespaceOtherTool  # noqa: PLC0415

        d = dict(src_dict)
        type_ = ResponseNamespaceToolType(d.pop("type"))

        name = d.pop("name")

        def _parse_description(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        description = _parse_description(d.pop("description", UNSET))

        _tools = d.pop("tools", UNSET)
        tools: list[ResponseNamespaceFunction | ResponseNamespaceOtherTool] | Unset = UNSET
        if _tools is not UNSET:
            tools = []
            for tools_item_data in _tools:

                def _parse_tools_item(data: object) -> ResponseNamespaceFunction | ResponseNamespaceOtherTool:
                    try:
                        if not isinstance(data, dict):
                            raise TypeError()
                        componentsschemas_response_namespace_member_type_0 = ResponseNamespaceFunction.from_dict(data)

                        return componentsschemas_response_namespace_member_type_0
                    except (TypeError, ValueError, AttributeError, KeyError):
                        pass
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_response_namespace_member_type_1 = ResponseNamespaceOtherTool.from_dict(data)

                    return componentsschemas_response_namespace_member_type_1

                tools_item = _parse_tools_item(tools_item_data)

                tools.append(tools_item)

        response_namespace_tool = cls(
            type_=type_,
            name=name,
            description=description,
            tools=tools,
        )

        response_namespace_tool.additional_properties = d
        return response_namespace_tool

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
