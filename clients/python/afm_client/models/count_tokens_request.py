from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.assistant_content_message import AssistantContentMessage
    from ..models.assistant_tool_calls_message import AssistantToolCallsMessage
    from ..models.count_tokens_request_system_type_1_item import CountTokensRequestSystemType1Item
    from ..models.system_message import SystemMessage
    from ..models.tool import Tool
    from ..models.tool_message import ToolMessage
    from ..models.user_message import UserMessage


T = TypeVar("T", bound="CountTokensRequest")


@_attrs_define
class CountTokensRequest:
    """
    Attributes:
        messages (list[AssistantContentMessage | AssistantToolCallsMessage | SystemMessage | ToolMessage |
            UserMessage]):
        model (str | Unset):
        system (list[CountTokensRequestSystemType1Item] | str | Unset): Anthropic-style system prompt, rendered as a
            leading system message.
        tools (list[Tool] | Unset):
    """

    messages: list[AssistantContentMessage | AssistantToolCallsMessage | SystemMessage | ToolMessage | UserMessage]
    model: str | Unset = UNSET
    system: list[CountTokensRequestSystemType1Item] | str | Unset = UNSET
    tools: list[Tool] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.assistant_content_message import AssistantContentMessage  # noqa: PLC0415
        from ..models.assistant_tool_calls_message import AssistantToolCallsMessage  # noqa: PLC0415
        from ..models.system_message import SystemMessage  # noqa: PLC0415
        from ..models.user_message import UserMessage  # noqa: PLC0415

        messages = []
        for messages_item_data in self.messages:
            messages_item: dict[str, Any]
            if isinstance(messages_item_data, SystemMessage):
                messages_item = messages_item_data.to_dict()
            elif isinstance(messages_item_data, UserMessage):
                messages_item = messages_item_data.to_dict()
            elif isinstance(messages_item_data, AssistantContentMessage):
                messages_item = messages_item_data.to_dict()
            elif isinstance(messages_item_data, AssistantToolCallsMessage):
                messages_item = messages_item_data.to_dict()
            else:
                messages_item = messages_item_data.to_dict()

            messages.append(messages_item)

        model = self.model

        system: list[dict[str, Any]] | str | Unset
        if isinstance(self.system, Unset):
            system = UNSET
        elif isinstance(self.system, list):
            system = []
            for system_type_1_item_data in self.system:
                system_type_1_item = system_type_1_item_data.to_dict()
                system.append(system_type_1_item)

        else:
            system = self.system

        tools: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.tools, Unset):
            tools = []
            for tools_item_data in self.tools:
                tools_item = tools_item_data.to_dict()
                tools.append(tools_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "messages": messages,
            }
        )
        if model is not UNSET:
            field_dict["model"] = model
        if system is not UNSET:
            field_dict["system"] = system
        if tools is not UNSET:
            field_dict["tools"] = tools

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.assistant_content_message import AssistantContentMessage  # noqa: PLC0415
        from ..models.assistant_tool_calls_message import AssistantToolCallsMessage  # noqa: PLC0415
        from ..models.count_tokens_request_system_type_1_item import CountTokensRequestSystemType1Item  # noqa: PLC0415
        from ..models.system_message import SystemMessage  # noqa: PLC0415
        from ..models.tool import Tool  # noqa: PLC0415
        from ..models.tool_message import ToolMessage  # noqa: PLC0415
        from ..models.user_message import UserMessage  # noqa: PLC0415

        d = dict(src_dict)
        messages = []
        _messages = d.pop("messages")
        for messages_item_data in _messages:

            def _parse_messages_item(
                data: object,
            ) -> AssistantContentMessage | AssistantToolCallsMessage | SystemMessage | ToolMessage | UserMessage:
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_chat_message_type_0 = SystemMessage.from_dict(data)

                    return componentsschemas_chat_message_type_0
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_chat_message_type_1 = UserMessage.from_dict(data)

                    return componentsschemas_chat_message_type_1
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_assistant_input_message_type_0 = AssistantContentMessage.from_dict(data)

                    return componentsschemas_assistant_input_message_type_0
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_assistant_input_message_type_1 = AssistantToolCallsMessage.from_dict(data)

                    return componentsschemas_assistant_input_message_type_1
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_chat_message_type_3 = ToolMessage.from_dict(data)

                return componentsschemas_chat_message_type_3

            messages_item = _parse_messages_item(messages_item_data)

            messages.append(messages_item)

        model = d.pop("model", UNSET)

        def _parse_system(data: object) -> list[CountTokensRequestSystemType1Item] | str | Unset:
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                system_type_1 = []
                _system_type_1 = data
                for system_type_1_item_data in _system_type_1:
                    system_type_1_item = CountTokensRequestSystemType1Item.from_dict(system_type_1_item_data)

                    system_type_1.append(system_type_1_item)

                return system_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[CountTokensRequestSystemType1Item] | str | Unset, data)

        system = _parse_system(d.pop("system", UNSET))

        _tools = d.pop("tools", UNSET)
        tools: list[Tool] | Unset = UNSET
        if _tools is not UNSET:
            tools = []
            for tools_item_data in _tools:
                tools_item = Tool.from_dict(tools_item_data)

                tools.append(tools_item)

        count_tokens_request = cls(
            messages=messages,
            model=model,
            system=system,
            tools=tools,
        )

        count_tokens_request.additional_properties = d
        return count_tokens_request

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
