from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.chat_message import ChatMessage
    from ..models.tokenize_request_chat_template_kwargs import TokenizeRequestChatTemplateKwargs
    from ..models.tool import Tool


T = TypeVar("T", bound="TokenizeRequest")


@_attrs_define
class TokenizeRequest:
    """Exactly one of `text`, `prompt` or `messages`; anything else gets 400.

    Attributes:
        model (str | Unset):
        text (str | Unset): Text to tokenize.
        prompt (str | Unset): Alias of `text` (vLLM).
        messages (list[ChatMessage] | Unset): Chat messages; the chat template is rendered first.
        tools (list[Tool] | Unset):
        add_special_tokens (bool | Unset): Add the tokenizer's special tokens around plain text. Default: False.
        add_generation_prompt (bool | Unset): With `messages`, end with the assistant prompt. Default: True.
        chat_template_kwargs (TokenizeRequestChatTemplateKwargs | Unset):
    """

    model: str | Unset = UNSET
    text: str | Unset = UNSET
    prompt: str | Unset = UNSET
    messages: list[ChatMessage] | Unset = UNSET
    tools: list[Tool] | Unset = UNSET
    add_special_tokens: bool | Unset = False
    add_generation_prompt: bool | Unset = True
    chat_template_kwargs: TokenizeRequestChatTemplateKwargs | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        model = self.model

        text = self.text

        prompt = self.prompt

        messages: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.messages, Unset):
            messages = []
            for messages_item_data in self.messages:
                messages_item = messages_item_data.to_dict()
                messages.append(messages_item)

        tools: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.tools, Unset):
            tools = []
            for tools_item_data in self.tools:
                tools_item = tools_item_data.to_dict()
                tools.append(tools_item)

        add_special_tokens = self.add_special_tokens

        add_generation_prompt = self.add_generation_prompt

        chat_template_kwargs: dict[str, Any] | Unset = UNSET
        if not isinstance(self.chat_template_kwargs, Unset):
            chat_template_kwargs = self.chat_template_kwargs.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if model is not UNSET:
            field_dict["model"] = model
        if text is not UNSET:
            field_dict["text"] = text
        if prompt is not UNSET:
            field_dict["prompt"] = prompt
        if messages is not UNSET:
            field_dict["messages"] = messages
        if tools is not UNSET:
            field_dict["tools"] = tools
        if add_special_tokens is not UNSET:
            field_dict["add_special_tokens"] = add_special_tokens
        if add_generation_prompt is not UNSET:
            field_dict["add_generation_prompt"] = add_generation_prompt
        if chat_template_kwargs is not UNSET:
            field_dict["chat_template_kwargs"] = chat_template_kwargs

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.chat_message import ChatMessage  # noqa: PLC0415
        from ..models.tokenize_request_chat_template_kwargs import TokenizeRequestChatTemplateKwargs  # noqa: PLC0415
        from ..models.tool import Tool  # noqa: PLC0415

        d = dict(src_dict)
        model = d.pop("model", UNSET)

        text = d.pop("text", UNSET)

        prompt = d.pop("prompt", UNSET)

        _messages = d.pop("messages", UNSET)
        messages: list[ChatMessage] | Unset = UNSET
        if _messages is not UNSET:
            messages = []
            for messages_item_data in _messages:
                messages_item = ChatMessage.from_dict(messages_item_data)

                messages.append(messages_item)

        _tools = d.pop("tools", UNSET)
        tools: list[Tool] | Unset = UNSET
        if _tools is not UNSET:
            tools = []
            for tools_item_data in _tools:
                tools_item = Tool.from_dict(tools_item_data)

                tools.append(tools_item)

        add_special_tokens = d.pop("add_special_tokens", UNSET)

        add_generation_prompt = d.pop("add_generation_prompt", UNSET)

        _chat_template_kwargs = d.pop("chat_template_kwargs", UNSET)
        chat_template_kwargs: TokenizeRequestChatTemplateKwargs | Unset
        if isinstance(_chat_template_kwargs, Unset):
            chat_template_kwargs = UNSET
        else:
            chat_template_kwargs = TokenizeRequestChatTemplateKwargs.from_dict(_chat_template_kwargs)

        tokenize_request = cls(
            model=model,
            text=text,
            prompt=prompt,
            messages=messages,
            tools=tools,
            add_special_tokens=add_special_tokens,
            add_generation_prompt=add_generation_prompt,
            chat_template_kwargs=chat_template_kwargs,
        )

        tokenize_request.additional_properties = d
        return tokenize_request

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
