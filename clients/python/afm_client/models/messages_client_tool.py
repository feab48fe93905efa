from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.messages_client_tool_type_type_1 import MessagesClientToolTypeType1
from ..models.messages_client_tool_type_type_2_type_1 import MessagesClientToolTypeType2Type1
from ..models.messages_client_tool_type_type_3_type_1 import MessagesClientToolTypeType3Type1
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.messages_cache_control_type_0 import MessagesCacheControlType0
    from ..models.messages_client_tool_input_schema import MessagesClientToolInputSchema


T = TypeVar("T", bound="MessagesClientTool")


@_attrs_define
class MessagesClientTool:
    """A client tool: `name`, `description` and the JSON Schema of its `input`.

    Attributes:
        name (str):
        input_schema (MessagesClientToolInputSchema): JSON Schema of the tool's `input` object; enforced when the tool
            is forced.
        type_ (MessagesClientToolTypeType1 | MessagesClientToolTypeType2Type1 | MessagesClientToolTypeType3Type1 | None
            | Unset): `custom` (or absent) for a client tool.
        description (str | Unset):
        defer_loading (bool | Unset): Kept out of the prompt until a `tool_reference` block names the tool.
        cache_control (MessagesCacheControlType0 | None | Unset): Prompt-caching breakpoint; accepted and ignored (the
            prefix cache needs no hints).
    """

    name: str
    input_schema: MessagesClientToolInputSchema
    type_: (
        MessagesClientToolTypeType1 | MessagesClientToolTypeType2Type1 | MessagesClientToolTypeType3Type1 | None | Unset
    ) = UNSET
    description: str | Unset = UNSET
    defer_loading: bool | Unset = UNSET
    cache_control: MessagesCacheControlType0 | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.messages_cache_control_type_0 import MessagesCacheControlType0  # noqa: PLC0415

        name = self.name

        input_schema = self.input_schema.to_dict()

        type_: None | str | Unset
        if isinstance(self.type_, Unset):
            type_ = UNSET
        elif isinstance(self.type_, MessagesClientToolTypeType1):
            type_ = self.type_.value
        elif isinstance(self.type_, MessagesClientToolTypeType2Type1):
            type_ = self.type_.value
        elif isinstance(self.type_, MessagesClientToolTypeType3Type1):
            type_ = self.type_.value
        else:
            type_ = self.type_

        description = self.description

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
                "input_schema": input_schema,
            }
        )
        if type_ is not UNSET:
            field_dict["type"] = type_
        if description is not UNSET:
            field_dict["description"] = description
        if defer_loading is not UNSET:
            field_dict["defer_loading"] = defer_loading
        if cache_control is not UNSET:
            field_dict["cache_control"] = cache_control

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.messages_cache_control_type_0 import MessagesCacheControlType0  # noqa: PLC0415
        from ..models.messages_client_tool_input_schema import MessagesClientToolInputSchema  # noqa: PLC0415

        d = dict(src_dict)
        name = d.pop("name")

        input_schema = MessagesClientToolInputSchema.from_dict(d.pop("input_schema"))

        def _parse_type_(
            data: object,
        ) -> (
            MessagesClientToolTypeType1
            | MessagesClientToolTypeType2Type1
            | MessagesClientToolTypeType3Type1
            | None
            | Unset
        ):
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                type_type_1 = MessagesClientToolTypeType1(data)

                return type_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, str):
                    raise TypeError()
                type_type_2_type_1 = MessagesClientToolTypeType2Type1(data)

                return type_type_2_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, str):
                    raise TypeError()
                type_type_3_type_1 = MessagesClientToolTypeType3Type1(data)

                return type_type_3_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(
                MessagesClientToolTypeType1
                | MessagesClientToolTypeType2Type1
                | MessagesClientToolTypeType3Type1
                | None
                | Unset,
                data,
            )

        type_ = _parse_type_(d.pop("type", UNSET))

        description = d.pop("description", UNSET)

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

        messages_client_tool = cls(
            name=name,
            input_schema=input_schema,
            type_=type_,
            description=description,
            defer_loading=defer_loading,
            cache_control=cache_control,
        )

        messages_client_tool.additional_properties = d
        return messages_client_tool

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
