from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.assistant_content_message import AssistantContentMessage
    from ..models.assistant_tool_calls_message import AssistantToolCallsMessage
    from ..models.system_message import SystemMessage
    from ..models.tokenize_messages_request_chat_template_kwargs import TokenizeMessagesRequestChatTemplateKwargs
    from ..models.tool import Tool
    from ..models.tool_message import ToolMessage
    from ..models.user_message import UserMessage


T = TypeVar("T", bound="TokenizeMessagesRequest")


@_attrs_define
class TokenizeMessagesRequest:
    """Chat messages; the chat template is rendered first.

    Attributes:
        messages (list[AssistantContentMessage | AssistantToolCallsMessage | SystemMessage | ToolMessage |
            UserMessage]):
        model (str | Unset):
        tools (list[Tool] | Unset):
        add_generation_prompt (bool | Unset): End with the assistant prompt. Default: True.
        chat_template_kwargs (TokenizeMessagesRequestChatTemplateKwargs | Unset):
    """

    messages: list[AssistantContentMessage | AssistantToolCallsMessage | SystemMessage | ToolMessage | UserMessage]
    model: str | Unset = UNSET
    tools: list[Tool] | Unset = UNSET
    add_generation_prompt: bool | Unset = True
    chat_template_kwargs: TokenizeMessagesRequestChatTemplateKwargs | Unset = UNSET
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

        tools: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.tools, Unset):
            tools = []
            for tools_item_data in self.tools:
                tools_item = tools_item_data.to_dict()
                tools.append(tools_item)

        add_generation_prompt = self.add_generation_prompt

        chat_template_kwargs: dict[str, Any] | Unset = UNSET
        if not isinstance(self.chat_template_kwargs, Unset):
            chat_template_kwargs = self.chat_template_kwargs.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "messages": messages,
            }
        )
        if model is not UNSET:
            field_dict["model"] = model
        if tools is not UNSET:
            field_dict["tools"] = tools
        if add_generation_prompt is not UNSET:
            field_dict["add_generation_prompt"] = add_generation_prompt
        if chat_template_kwargs is not UNSET:
            field_dict["chat_template_kwargs"] = chat_template_kwargs

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.assistant_content_message import AssistantContentMessage  # noqa: PLC0415
        from ..models.assistant_tool_calls_message import AssistantToolCallsMessage  # noqa: PLC0415
        from ..models.system_message import SystemMessage  # noqa: PLC0415
        from ..models.tokenize_messages_request_chat_template_kwargs import TokenizeMessagesRequestChatTemplateKwargs  # noqa: PLC0415
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

        _tools = d.pop("tools", UNSET)
        tools: list[Tool] | Unset = UNSET
        if _tools is not UNSET:
            tools = []
            for tools_item_data in _tools:
                tools_item = Tool.from_dict(tools_item_data)

                tools.append(tools_item)

        add_generation_prompt = d.pop("add_generation_prompt", UNSET)

        _chat_template_kwargs = d.pop("chat_template_kwargs", UNSET)
        chat_template_kwargs: TokenizeMessagesRequestChatTemplateKwargs | Unset
        if isinstance(_chat_template_kwargs, Unset):
            chat_template_kwargs = UNSET
        else:
            chat_template_kwargs = TokenizeMessagesRequestChatTemplateKwargs.from_dict(_chat_template_kwargs)

        tokenize_messages_request = cls(
            messages=messages,
            model=model,
            tools=tools,
            add_generation_prompt=add_generation_prompt,
            chat_template_kwargs=chat_template_kwargs,
        )

        tokenize_messages_request.additional_properties = d
        return tokenize_messages_request

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
