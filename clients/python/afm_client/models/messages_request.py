from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.messages_assistant_message_param import MessagesAssistantMessageParam
    from ..models.messages_client_tool import MessagesClientTool
    from ..models.messages_context_management_type_0 import MessagesContextManagementType0
    from ..models.messages_metadata import MessagesMetadata
    from ..models.messages_output_config_type_0 import MessagesOutputConfigType0
    from ..models.messages_server_tool import MessagesServerTool
    from ..models.messages_system_message_param import MessagesSystemMessageParam
    from ..models.messages_text_block_param import MessagesTextBlockParam
    from ..models.messages_thinking_config import MessagesThinkingConfig
    from ..models.messages_tool_choice_any import MessagesToolChoiceAny
    from ..models.messages_tool_choice_auto import MessagesToolChoiceAuto
    from ..models.messages_tool_choice_none import MessagesToolChoiceNone
    from ..models.messages_tool_choice_tool import MessagesToolChoiceTool
    from ..models.messages_user_message_param import MessagesUserMessageParam


T = TypeVar("T", bound="MessagesRequest")


@_attrs_define
class MessagesRequest:
    """An Anthropic Messages request. Unknown fields (`service_tier`, `container`, ...) are
    accepted and ignored.

        Attributes:
            model (str): Requested model id; resolves as for chat completions.
            max_tokens (int): Output-token limit (required, as Anthropic requires), capped by the context window.
            messages (list[MessagesAssistantMessageParam | MessagesSystemMessageParam | MessagesUserMessageParam]):
                Alternating `user` / `assistant` turns.
            system (list[MessagesTextBlockParam] | str | Unset): System prompt, a string or text blocks (joined).
            stop_sequences (list[str] | Unset): Custom stop strings; the matched one is reported as `stop_sequence`.
            temperature (float | Unset): Sampling temperature (Anthropic's range is 0-1; AFM accepts up to 2 as chat does).
            top_p (float | Unset):
            top_k (int | Unset): Sample among the k most likely tokens (0 = off).
            tools (list[MessagesClientTool | MessagesServerTool] | Unset):
            tool_choice (MessagesToolChoiceAny | MessagesToolChoiceAuto | MessagesToolChoiceNone | MessagesToolChoiceTool |
                Unset): By `type`: `auto` (the model decides), `any` (some tool must be called), `tool` (the
                tool `name` must be called) or `none` (tools are not offered).
                `disable_parallel_tool_use` keeps at most one call.
            thinking (MessagesThinkingConfig | Unset): `enabled`, `adaptive` and `between_tools` turn the model's reasoning
                on (the chat
                template's `enable_thinking`); `budget_tokens` is accepted but not enforced. `disabled`
                turns it off. `display: omitted` returns thinking blocks with empty `thinking` and the
                reasoning sealed in `signature` (read back when the block is sent again).
            output_config (MessagesOutputConfigType0 | None | Unset): Output settings; `effort` maps to the template's
                reasoning effort.
            context_management (MessagesContextManagementType0 | None | Unset): Context edits applied to the conversation
                before it is rendered.
            metadata (MessagesMetadata | Unset): Accepted and ignored.
            stream (bool | Unset): Stream named SSE events instead of one message.
            seed (int | None | Unset): AFM extension. Seed for sampling; the same seed gives the same message, streamed or
                not.
    """

    model: str
    max_tokens: int
    messages: list[MessagesAssistantMessageParam | MessagesSystemMessageParam | MessagesUserMessageParam]
    system: list[MessagesTextBlockParam] | str | Unset = UNSET
    stop_sequences: list[str] | Unset = UNSET
    temperature: float | Unset = UNSET
    top_p: float | Unset = UNSET
    top_k: int | Unset = UNSET
    tools: list[MessagesClientTool | MessagesServerTool] | Unset = UNSET
    tool_choice: (
        MessagesToolChoiceAny | MessagesToolChoiceAuto | MessagesToolChoiceNone | MessagesToolChoiceTool | Unset
    ) = UNSET
    thinking: MessagesThinkingConfig | Unset = UNSET
    output_config: MessagesOutputConfigType0 | None | Unset = UNSET
    context_management: MessagesContextManagementType0 | None | Unset = UNSET
    metadata: MessagesMetadata | Unset = UNSET
    stream: bool | Unset = UNSET
    seed: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.messages_assistant_message_param import MessagesAssistantMessageParam  # noqa: PLC0415
        from ..models.messages_client_tool import MessagesClientTool  # noqa: PLC0415
        from ..models.messages_context_management_type_0 import MessagesContextManagementType0  # noqa: PLC0415
        from ..models.messages_output_config_type_0 import MessagesOutputConfigType0  # noqa: PLC0415
        from ..models.messages_tool_choice_any import MessagesToolChoiceAny  # noqa: PLC0415
        from ..models.messages_tool_choice_auto import MessagesToolChoiceAuto  # noqa: PLC0415
        from ..models.messages_tool_choice_tool import MessagesToolChoiceTool  # noqa: PLC0415
        from ..models.messages_user_message_param import MessagesUserMessageParam  # noqa: PLC0415

        model = self.model

        max_tokens = self.max_tokens

        messages = []
        for messages_item_data in self.messages:
            messages_item: dict[str, Any]
            if isinstance(messages_item_data, MessagesUserMessageParam):
                messages_item = messages_item_data.to_dict()
            elif isinstance(messages_item_data, MessagesAssistantMessageParam):
                messages_item = messages_item_data.to_dict()
            else:
                messages_item = messages_item_data.to_dict()

            messages.append(messages_item)

        system: list[dict[str, Any]] | str | Unset
        if isinstance(self.system, Unset):
            system = UNSET
        elif isinstance(self.system, list):
            system = []
            for componentsschemas_messages_system_type_1_item_data in self.system:
                componentsschemas_messages_system_type_1_item = (
                    componentsschemas_messages_system_type_1_item_data.to_dict()
                )
                system.append(componentsschemas_messages_system_type_1_item)

        else:
            system = self.system

        stop_sequences: list[str] | Unset = UNSET
        if not isinstance(self.stop_sequences, Unset):
            stop_sequences = self.stop_sequences

        temperature = self.temperature

        top_p = self.top_p

        top_k = self.top_k

        tools: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.tools, Unset):
            tools = []
            for tools_item_data in self.tools:
                tools_item: dict[str, Any]
                if isinstance(tools_item_data, MessagesClientTool):
                    tools_item = tools_item_data.to_dict()
                else:
                    tools_item = tools_item_data.to_dict()

                tools.append(tools_item)

        tool_choice: dict[str, Any] | Unset
        if isinstance(self.tool_choice, Unset):
            tool_choice = UNSET
        elif isinstance(self.tool_choice, MessagesToolChoiceAuto):
            tool_choice = self.tool_choice.to_dict()
        elif isinstance(self.tool_choice, MessagesToolChoiceAny):
            tool_choice = self.tool_choice.to_dict()
        elif isinstance(self.tool_choice, MessagesToolChoiceTool):
            tool_choice = self.tool_choice.to_dict()
        else:
            tool_choice = self.tool_choice.to_dict()

        thinking: dict[str, Any] | Unset = UNSET
        if not isinstance(self.thinking, Unset):
            thinking = self.thinking.to_dict()

        output_config: dict[str, Any] | None | Unset
        if isinstance(self.output_config, Unset):
            output_config = UNSET
        elif isinstance(self.output_config, MessagesOutputConfigType0):
            output_config = self.output_config.to_dict()
        else:
            output_config = self.output_config

        context_management: dict[str, Any] | None | Unset
        if isinstance(self.context_management, Unset):
            context_management = UNSET
        elif isinstance(self.context_management, MessagesContextManagementType0):
            context_management = self.context_management.to_dict()
        else:
            context_management = self.context_management

        metadata: dict[str, Any] | Unset = UNSET
        if not isinstance(self.metadata, Unset):
            metadata = self.metadata.to_dict()

        stream = self.stream

        seed: int | None | Unset
        if isinstance(self.seed, Unset):
            seed = UNSET
        else:
            seed = self.seed

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "model": model,
                "max_tokens": max_tokens,
                "messages": messages,
            }
        )
        if system is not UNSET:
            field_dict["system"] = system
        if stop_sequences is not UNSET:
            field_dict["stop_sequences"] = stop_sequences
        if temperature is not UNSET:
            field_dict["temperature"] = temperature
        if top_p is not UNSET:
            field_dict["top_p"] = top_p
        if top_k is not UNSET:
            field_dict["top_k"] = top_k
        if tools is not UNSET:
            field_dict["tools"] = tools
        if tool_choice is not UNSET:
            field_dict["tool_choice"] = tool_choice
        if thinking is not UNSET:
            field_dict["thinking"] = thinking
        if output_config is not UNSET:
            field_dict["output_config"] = output_config
        if context_management is not UNSET:
            field_dict["context_management"] = context_management
        if metadata is not UNSET:
            field_dict["metadata"] = metadata
        if stream is not UNSET:
            field_dict["stream"] = stream
        if seed is not UNSET:
            field_dict["seed"] = seed

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.messages_assistant_message_param import MessagesAssistantMessageParam  # noqa: PLC0415
        from ..models.messages_client_tool import MessagesClientTool  # noqa: PLC0415
        from ..models.messages_context_management_type_0 import MessagesContextManagementType0  # noqa: PLC0415
        from ..models.messages_metadata import MessagesMetadata  # noqa: PLC0415
        from ..models.messages_output_config_type_0 import MessagesOutputConfigType0  # noqa: PLC0415
        from ..models.messages_server_tool import MessagesServerTool  # noqa: PLC0415
        from ..models.messages_system_message_param import MessagesSystemMessageParam  # noqa: PLC0415
        from ..models.messages_text_block_param import MessagesTextBlockParam  # noqa: PLC0415
        from ..models.messages_thinking_config import MessagesThinkingConfig  # noqa: PLC0415
        from ..models.messages_tool_choice_any import MessagesToolChoiceAny  # noqa: PLC0415
        from ..models.messages_tool_choice_auto import MessagesToolChoiceAuto  # noqa: PLC0415
        from ..models.messages_tool_choice_none import MessagesToolChoiceNone  # noqa: PLC0415
        from ..models.messages_tool_choice_tool import MessagesToolChoiceTool  # noqa: PLC0415
        from ..models.messages_user_message_param import MessagesUserMessageParam  # noqa: PLC0415

        d = dict(src_dict)
        model = d.pop("model")

        max_tokens = d.pop("max_tokens")

        messages = []
        _messages = d.pop("messages")
        for messages_item_data in _messages:

            def _parse_messages_item(
                data: object,
            ) -> MessagesAssistantMessageParam | MessagesSystemMessageParam | MessagesUserMessageParam:
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_messages_message_param_type_0 = MessagesUserMessageParam.from_dict(data)

                    return componentsschemas_messages_message_param_type_0
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_messages_message_param_type_1 = MessagesAssistantMessageParam.from_dict(data)

                    return componentsschemas_messages_message_param_type_1
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_messages_message_param_type_2 = MessagesSystemMessageParam.from_dict(data)

                return componentsschemas_messages_message_param_type_2

            messages_item = _parse_messages_item(messages_item_data)

            messages.append(messages_item)

        def _parse_system(data: object) -> list[MessagesTextBlockParam] | str | Unset:
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                componentsschemas_messages_system_type_1 = []
                _componentsschemas_messages_system_type_1 = data
                for componentsschemas_messages_system_type_1_item_data in _componentsschemas_messages_system_type_1:
                    componentsschemas_messages_system_type_1_item = MessagesTextBlockParam.from_dict(
                        componentsschemas_messages_system_type_1_item_data
                    )

                    componentsschemas_messages_system_type_1.append(componentsschemas_messages_system_type_1_item)

                return componentsschemas_messages_system_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[MessagesTextBlockParam] | str | Unset, data)

        system = _parse_system(d.pop("system", UNSET))

        stop_sequences = cast(list[str], d.pop("stop_sequences", UNSET))

        temperature = d.pop("temperature", UNSET)

        top_p = d.pop("top_p", UNSET)

        top_k = d.pop("top_k", UNSET)

        _tools = d.pop("tools", UNSET)
        tools: list[MessagesClientTool | MessagesServerTool] | Unset = UNSET
        if _tools is not UNSET:
            tools = []
            for tools_item_data in _tools:

                def _parse_tools_item(data: object) -> MessagesClientTool | MessagesServerTool:
                    try:
                        if not isinstance(data, dict):
                            raise TypeError()
                        componentsschemas_messages_tool_type_0 = MessagesClientTool.from_dict(data)

                        return componentsschemas_messages_tool_type_0
                    except (TypeError, ValueError, AttributeError, KeyError):
                        pass
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_messages_tool_type_1 = MessagesServerTool.from_dict(data)

                    return componentsschemas_messages_tool_type_1

                tools_item = _parse_tools_item(tools_item_data)

                tools.append(tools_item)

        def _parse_tool_choice(
            data: object,
        ) -> MessagesToolChoiceAny | MessagesToolChoiceAuto | MessagesToolChoiceNone | MessagesToolChoiceTool | Unset:
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_messages_tool_choice_type_0 = MessagesToolChoiceAuto.from_dict(data)

                return componentsschemas_messages_tool_choice_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_messages_tool_choice_type_1 = MessagesToolChoiceAny.from_dict(data)

                return componentsschemas_messages_tool_choice_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_messages_tool_choice_type_2 = MessagesToolChoiceTool.from_dict(data)

                return componentsschemas_messages_tool_choice_type_2
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            componentsschemas_messages_tool_choice_type_3 = MessagesToolChoiceNone.from_dict(data)

            return componentsschemas_messages_tool_choice_type_3

        tool_choice = _parse_tool_choice(d.pop("tool_choice", UNSET))

        _thinking = d.pop("thinking", UNSET)
        thinking: MessagesThinkingConfig | Unset
        if isinstance(_thinking, Unset):
            thinking = UNSET
        else:
            thinking = MessagesThinkingConfig.from_dict(_thinking)

        def _parse_output_config(data: object) -> MessagesOutputConfigType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_messages_output_config_type_0 = MessagesOutputConfigType0.from_dict(data)

                return componentsschemas_messages_output_config_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(MessagesOutputConfigType0 | None | Unset, data)

        output_config = _parse_output_config(d.pop("output_config", UNSET))

        def _parse_context_management(data: object) -> MessagesContextManagementType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_messages_context_management_type_0 = MessagesContextManagementType0.from_dict(data)

                return componentsschemas_messages_context_management_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(MessagesContextManagementType0 | None | Unset, data)

        context_management = _parse_context_management(d.pop("context_management", UNSET))

        _metadata = d.pop("metadata", UNSET)
        metadata: MessagesMetadata | Unset
        if isinstance(_metadata, Unset):
            metadata = UNSET
        else:
            metadata = MessagesMetadata.from_dict(_metadata)

        stream = d.pop("stream", UNSET)

        def _parse_seed(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        seed = _parse_seed(d.pop("seed", UNSET))

        messages_request = cls(
            model=model,
            max_tokens=max_tokens,
            messages=messages,
            system=system,
            stop_sequences=stop_sequences,
            temperature=temperature,
            top_p=top_p,
            top_k=top_k,
            tools=tools,
            tool_choice=tool_choice,
            thinking=thinking,
            output_config=output_config,
            context_management=context_management,
            metadata=metadata,
            stream=stream,
            seed=seed,
        )

        messages_request.additional_properties = d
        return messages_request

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
