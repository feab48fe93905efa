from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.messages_cache_control_type_0 import MessagesCacheControlType0
    from ..models.messages_tool_input_schema import MessagesToolInputSchema


T = TypeVar("T", bound="MessagesTool")


@_attrs_define
class MessagesTool:
    """A client tool: `name`, `description` and the JSON Schema of its `input` (required for
    client tools). Anthropic server tools (a `type` other than `custom`, such as
    `web_search_20250305`) are left out of the prompt and reported in `X-AFM-Warnings`.

        Attributes:
            name (str):
            type_ (None | str | Unset): `custom` (or absent) for a client tool.
            description (str | Unset):
            input_schema (MessagesToolInputSchema | Unset): JSON Schema of the tool's `input` object; enforced when the tool
                is forced.
            defer_loading (bool | Unset): Kept out of the prompt until a `tool_reference` block names the tool.
            cache_control (MessagesCacheControlType0 | None | Unset): Prompt-caching breakpoint; accepted and ignored (the
                prefix cache needs no hints).
    """

    name: str
    type_: None | str | Unset = UNSET
    description: str | Unset = UNSET
    input_schema: MessagesToolInputSchema | Unset = UNSET
    defer_loading: bool | Unset = UNSET
    cache_control: MessagesCacheControlType0 | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.messages_cache_control_type_0 import MessagesCacheControlType0  # noqa: PLC0415

        name = self.name

        type_: None | str | Unset
        if isinstance(self.type_, Unset):
            type_ = UNSET
        else:
            type_ = self.type_

        description = self.description

        input_schema: dict[str, Any] | Unset = UNSET
        if not isinstance(self.input_schema, Unset):
            input_schema = self.input_schema.to_dict()

        defer_loading = self.defer_loading

        cache_control: dict[str, Any] | None | Unset
        if isinstance(self.cache_control, Unset):
            cache_control = UNSET
        elif isinstance(self.cache_control, MessagesCacheControlType0):
            cache_control = self.cache_control.to_dict()
        else:
            cache_control = self.cache_control

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
        if input_schema is not UNSET:
            field_dict["input_schema"] = input_schema
        if defer_loading is not UNSET:
            field_dict["defer_loading"] = defer_loading
        if cache_control is not UNSET:
            field_dict["cache_control"] = cache_control

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.messages_cache_control_type_0 import MessagesCacheControlType0  # noqa: PLC0415
        from ..models.messages_tool_input_schema import MessagesToolInputSchema  # noqa: PLC0415

        d = dict(src_dict)
        name = d.pop("name")

        def _parse_type_(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        type_ = _parse_type_(d.pop("type", UNSET))

        description = d.pop("description", UNSET)

        _input_schema = d.pop("input_schema", UNSET)
        input_schema: MessagesToolInputSchema | Unset
        if isinstance(_input_schema, Unset):
            input_schema = UNSET
        else:
            input_schema = MessagesToolInputSchema.from_dict(_input_schema)

        defer_loading = d.pop("defer_loading", UNSET)

        def _parse_cache_control(data: object) -> MessagesCacheControlType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_messages_cache_control_type_0 = MessagesCacheControlType0.from_dict(data)

                return componentsschemas_messages_cache_control_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(MessagesCacheControlType0 | None | Unset, data)

        cache_control = _parse_cache_control(d.pop("cache_control", UNSET))

        messages_tool = cls(
            name=name,
            type_=type_,
            description=description,
            input_schema=input_schema,
            defer_loading=defer_loading,
            cache_control=cache_control,
        )

        messages_tool.additional_properties = d
        return messages_tool

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
