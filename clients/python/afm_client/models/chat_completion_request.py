from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.chat_completion_request_reasoning_effort_type_1 import ChatCompletionRequestReasoningEffortType1
from ..models.chat_completion_request_reasoning_effort_type_2_type_1 import (
    ChatCompletionRequestReasoningEffortType2Type1,
)
from ..models.chat_completion_request_reasoning_effort_type_3_type_1 import (
    ChatCompletionRequestReasoningEffortType3Type1,
)
from ..models.tool_choice_type_0_type_1 import ToolChoiceType0Type1
from ..models.tool_choice_type_0_type_2_type_1 import ToolChoiceType0Type2Type1
from ..models.tool_choice_type_0_type_3_type_1 import ToolChoiceType0Type3Type1
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.assistant_content_message import AssistantContentMessage
    from ..models.assistant_tool_calls_message import AssistantToolCallsMessage
    from ..models.chat_completion_request_chat_template_kwargs_type_0 import (
        ChatCompletionRequestChatTemplateKwargsType0,
    )
    from ..models.named_tool_choice import NamedToolChoice
    from ..models.response_format_json_object import ResponseFormatJsonObject
    from ..models.response_format_json_schema import ResponseFormatJsonSchema
    from ..models.response_format_text import ResponseFormatText
    from ..models.stream_options_type_0 import StreamOptionsType0
    from ..models.system_message import SystemMessage
    from ..models.tool import Tool
    from ..models.tool_message import ToolMessage
    from ..models.user_message import UserMessage


T = TypeVar("T", bound="ChatCompletionRequest")


@_attrs_define
class ChatCompletionRequest:
    """Unknown fields are accepted and ignored, as OpenAI clients send fields a server may not know.

    Attributes:
        messages (list[AssistantContentMessage | AssistantToolCallsMessage | SystemMessage | ToolMessage |
            UserMessage]): The conversation. Must not be empty.
        model (str | Unset): Requested model id. A single-model server normalises aliases and serves the active model;
            with several models (`--model` given more than once, `--models-dir`) it picks the model (unknown ids get 404
            `model_not_found`, no model gets the first one). The response names what ran.
        temperature (float | None | Unset): Sampling temperature (0 = greedy). Overrides `--temperature`.
        top_p (float | None | Unset): Nucleus sampling threshold. Overrides `--top-p`.
        top_k (int | None | Unset): AFM extension. Sample only among the k most likely tokens (0 = off). Overrides
            `--top-k`.
        min_p (float | None | Unset): AFM extension. Drop candidates whose probability is below min_p times the top
            token's. Overrides `--min-p`.
        max_tokens (int | None | Unset): Primary output-token limit; wins over `max_completion_tokens`. Defaults to
            `--max-tokens`, capped by the context window.
        max_completion_tokens (int | None | Unset): Accepted alias, used only when `max_tokens` is absent.
        repetition_penalty (float | None | Unset): AFM extension. Multiplicative penalty on tokens already in the prompt
            or output (1 = off); wins over `repeat_penalty`.
        repeat_penalty (float | None | Unset): Accepted alias of `repetition_penalty`, used only when it is absent.
        presence_penalty (float | None | Unset): OpenAI meaning; subtracted once from every token already generated.
        frequency_penalty (float | None | Unset): OpenAI meaning; subtracted once per occurrence of each token already
            generated.
        seed (int | None | Unset): Same seed, same request, same machine -> same output.
        stop (list[str] | None | str | Unset): Up to 16 stop sequences; merged CLI-first with `--stop` and de-
            duplicated. The stop text is not returned.
        stream (bool | None | Unset): Stream SSE chunks. 400 when the server runs with `--no-streaming`.
        stream_options (None | StreamOptionsType0 | Unset): Streaming options.
        logprobs (bool | None | Unset): Return the log probability of each output token.
        top_logprobs (int | None | Unset): Alternatives per token (needs `logprobs`); above `--max-logprobs` (default
            20) -> 400.
        n (int | None | Unset): Only 1 is supported.
        tools (list[Tool] | None | Unset): Function tools the model may call.
        tool_choice (NamedToolChoice | None | ToolChoiceType0Type1 | ToolChoiceType0Type2Type1 |
            ToolChoiceType0Type3Type1 | Unset): `none`, `auto`, `required`, or `{"type": "function", "function": {"name":
            ...}}` (the name must be among `tools`).
        parallel_tool_calls (bool | None | Unset): false limits the assistant turn to at most one tool call.
        response_format (None | ResponseFormatJsonObject | ResponseFormatJsonSchema | ResponseFormatText | Unset): The
            output format; null is the same as absent.
        chat_template_kwargs (ChatCompletionRequestChatTemplateKwargsType0 | None | Unset): AFM extension. Values passed
            to the model's chat template, such as `enable_thinking`; merged over `--default-chat-template-kwargs`.
        reasoning_effort (ChatCompletionRequestReasoningEffortType1 | ChatCompletionRequestReasoningEffortType2Type1 |
            ChatCompletionRequestReasoningEffortType3Type1 | None | Unset): AFM extension (DeepSeek style). Inserted into
            `chat_template_kwargs` as
            `reasoning_effort`; `none` also sets `enable_thinking: false`. An explicit
            `chat_template_kwargs.enable_thinking: false` stays authoritative.
        user (None | str | Unset): Accepted for client compatibility; selects no local user and no security boundary.
        ignore_eos (bool | None | Unset): vLLM extension. Keep generating past end-of-sequence until the token limit.
    """

    messages: list[AssistantContentMessage | AssistantToolCallsMessage | SystemMessage | ToolMessage | UserMessage]
    model: str | Unset = UNSET
    temperature: float | None | Unset = UNSET
    top_p: float | None | Unset = UNSET
    top_k: int | None | Unset = UNSET
    min_p: float | None | Unset = UNSET
    max_tokens: int | None | Unset = UNSET
    max_completion_tokens: int | None | Unset = UNSET
    repetition_penalty: float | None | Unset = UNSET
    repeat_penalty: float | None | Unset = UNSET
    presence_penalty: float | None | Unset = UNSET
    frequency_penalty: float | None | Unset = UNSET
    seed: int | None | Unset = UNSET
    stop: list[str] | None | str | Unset = UNSET
    stream: bool | None | Unset = UNSET
    stream_options: None | StreamOptionsType0 | Unset = UNSET
    logprobs: bool | None | Unset = UNSET
    top_logprobs: int | None | Unset = UNSET
    n: int | None | Unset = UNSET
    tools: list[Tool] | None | Unset = UNSET
    tool_choice: (
        NamedToolChoice | None | ToolChoiceType0Type1 | ToolChoiceType0Type2Type1 | ToolChoiceType0Type3Type1 | Unset
    ) = UNSET
    parallel_tool_calls: bool | None | Unset = UNSET
    response_format: None | ResponseFormatJsonObject | ResponseFormatJsonSchema | ResponseFormatText | Unset = UNSET
    chat_template_kwargs: ChatCompletionRequestChatTemplateKwargsType0 | None | Unset = UNSET
    reasoning_effort: (
        ChatCompletionRequestReasoningEffortType1
        | ChatCompletionRequestReasoningEffortType2Type1
        | ChatCompletionRequestReasoningEffortType3Type1
        | None
        | Unset
    ) = UNSET
    user: None | str | Unset = UNSET
    ignore_eos: bool | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.assistant_content_message import AssistantContentMessage  # noqa: PLC0415
        from ..models.assistant_tool_calls_message import AssistantToolCallsMessage  # noqa: PLC0415
        from ..models.chat_completion_request_chat_template_kwargs_type_0 import (
            ChatCompletionRequestChatTemplateKwargsType0,  # noqa: PLC0415
        )
        from ..models.named_tool_choice import NamedToolChoice  # noqa: PLC0415
        from ..models.response_format_json_object import ResponseFormatJsonObject  # noqa: PLC0415
        from ..models.response_format_json_schema import ResponseFormatJsonSchema  # noqa: PLC0415
        from ..models.response_format_text import ResponseFormatText  # noqa: PLC0415
        from ..models.stream_options_type_0 import StreamOptionsType0  # noqa: PLC0415
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

        temperature: float | None | Unset
        if isinstance(self.temperature, Unset):
            temperature = UNSET
        else:
            temperature = self.temperature

        top_p: float | None | Unset
        if isinstance(self.top_p, Unset):
            top_p = UNSET
        else:
            top_p = self.top_p

        top_k: int | None | Unset
        if isinstance(self.top_k, Unset):
            top_k = UNSET
        else:
            top_k = self.top_k

        min_p: float | None | Unset
        if isinstance(self.min_p, Unset):
            min_p = UNSET
        else:
            min_p = self.min_p

        max_tokens: int | None | Unset
        if isinstance(self.max_tokens, Unset):
            max_tokens = UNSET
        else:
            max_tokens = self.max_tokens

        max_completion_tokens: int | None | Unset
        if isinstance(self.max_completion_tokens, Unset):
            max_completion_tokens = UNSET
        else:
            max_completion_tokens = self.max_completion_tokens

        repetition_penalty: float | None | Unset
        if isinstance(self.repetition_penalty, Unset):
            repetition_penalty = UNSET
        else:
            repetition_penalty = self.repetition_penalty

        repeat_penalty: float | None | Unset
        if isinstance(self.repeat_penalty, Unset):
            repeat_penalty = UNSET
        else:
            repeat_penalty = self.repeat_penalty

        presence_penalty: float | None | Unset
        if isinstance(self.presence_penalty, Unset):
            presence_penalty = UNSET
        else:
            presence_penalty = self.presence_penalty

        frequency_penalty: float | None | Unset
        if isinstance(self.frequency_penalty, Unset):
            frequency_penalty = UNSET
        else:
            frequency_penalty = self.frequency_penalty

        seed: int | None | Unset
        if isinstance(self.seed, Unset):
            seed = UNSET
        else:
            seed = self.seed

        stop: list[str] | None | str | Unset
        if isinstance(self.stop, Unset):
            stop = UNSET
        elif isinstance(self.stop, list):
            stop = self.stop

        else:
            stop = self.stop

        stream: bool | None | Unset
        if isinstance(self.stream, Unset):
            stream = UNSET
        else:
            stream = self.stream

        stream_options: dict[str, Any] | None | Unset
        if isinstance(self.stream_options, Unset):
            stream_options = UNSET
        elif isinstance(self.stream_options, StreamOptionsType0):
            stream_options = self.stream_options.to_dict()
        else:
            stream_options = self.stream_options

        logprobs: bool | None | Unset
        if isinstance(self.logprobs, Unset):
            logprobs = UNSET
        else:
            logprobs = self.logprobs

        top_logprobs: int | None | Unset
        if isinstance(self.top_logprobs, Unset):
            top_logprobs = UNSET
        else:
            top_logprobs = self.top_logprobs

        n: int | None | Unset
        if isinstance(self.n, Unset):
            n = UNSET
        else:
            n = self.n

        tools: list[dict[str, Any]] | None | Unset
        if isinstance(self.tools, Unset):
            tools = UNSET
        elif isinstance(self.tools, list):
            tools = []
            for tools_type_0_item_data in self.tools:
                tools_type_0_item = tools_type_0_item_data.to_dict()
                tools.append(tools_type_0_item)

        else:
            tools = self.tools

        tool_choice: dict[str, Any] | None | str | Unset
        if isinstance(self.tool_choice, Unset):
            tool_choice = UNSET
        elif isinstance(self.tool_choice, ToolChoiceType0Type1):
            tool_choice = self.tool_choice.value
        elif isinstance(self.tool_choice, ToolChoiceType0Type2Type1):
            tool_choice = self.tool_choice.value
        elif isinstance(self.tool_choice, ToolChoiceType0Type3Type1):
            tool_choice = self.tool_choice.value
        elif isinstance(self.tool_choice, NamedToolChoice):
            tool_choice = self.tool_choice.to_dict()
        else:
            tool_choice = self.tool_choice

        parallel_tool_calls: bool | None | Unset
        if isinstance(self.parallel_tool_calls, Unset):
            parallel_tool_calls = UNSET
        else:
            parallel_tool_calls = self.parallel_tool_calls

        response_format: dict[str, Any] | None | Unset
        if isinstance(self.response_format, Unset):
            response_format = UNSET
        elif isinstance(self.response_format, ResponseFormatText):
            response_format = self.response_format.to_dict()
        elif isinstance(self.response_format, ResponseFormatJsonObject):
            response_format = self.response_format.to_dict()
        elif isinstance(self.response_format, ResponseFormatJsonSchema):
            response_format = self.response_format.to_dict()
        else:
            response_format = self.response_format

        chat_template_kwargs: dict[str, Any] | None | Unset
        if isinstance(self.chat_template_kwargs, Unset):
            chat_template_kwargs = UNSET
        elif isinstance(self.chat_template_kwargs, ChatCompletionRequestChatTemplateKwargsType0):
            chat_template_kwargs = self.chat_template_kwargs.to_dict()
        else:
            chat_template_kwargs = self.chat_template_kwargs

        reasoning_effort: None | str | Unset
        if isinstance(self.reasoning_effort, Unset):
            reasoning_effort = UNSET
        elif isinstance(self.reasoning_effort, ChatCompletionRequestReasoningEffortType1):
            reasoning_effort = self.reasoning_effort.value
        elif isinstance(self.reasoning_effort, ChatCompletionRequestReasoningEffortType2Type1):
            reasoning_effort = self.reasoning_effort.value
        elif isinstance(self.reasoning_effort, ChatCompletionRequestReasoningEffortType3Type1):
            reasoning_effort = self.reasoning_effort.value
        else:
            reasoning_effort = self.reasoning_effort

        user: None | str | Unset
        if isinstance(self.user, Unset):
            user = UNSET
        else:
            user = self.user

        ignore_eos: bool | None | Unset
        if isinstance(self.ignore_eos, Unset):
            ignore_eos = UNSET
        else:
            ignore_eos = self.ignore_eos

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "messages": messages,
            }
        )
        if model is not UNSET:
            field_dict["model"] = model
        if temperature is not UNSET:
            field_dict["temperature"] = temperature
        if top_p is not UNSET:
            field_dict["top_p"] = top_p
        if top_k is not UNSET:
            field_dict["top_k"] = top_k
        if min_p is not UNSET:
            field_dict["min_p"] = min_p
        if max_tokens is not UNSET:
            field_dict["max_tokens"] = max_tokens
        if max_completion_tokens is not UNSET:
            field_dict["max_completion_tokens"] = max_completion_tokens
        if repetition_penalty is not UNSET:
            field_dict["repetition_penalty"] = repetition_penalty
        if repeat_penalty is not UNSET:
            field_dict["repeat_penalty"] = repeat_penalty
        if presence_penalty is not UNSET:
            field_dict["presence_penalty"] = presence_penalty
        if frequency_penalty is not UNSET:
            field_dict["frequency_penalty"] = frequency_penalty
        if seed is not UNSET:
            field_dict["seed"] = seed
        if stop is not UNSET:
            field_dict["stop"] = stop
        if stream is not UNSET:
            field_dict["stream"] = stream
        if stream_options is not UNSET:
            field_dict["stream_options"] = stream_options
        if logprobs is not UNSET:
            field_dict["logprobs"] = logprobs
        if top_logprobs is not UNSET:
            field_dict["top_logprobs"] = top_logprobs
        if n is not UNSET:
            field_dict["n"] = n
        if tools is not UNSET:
            field_dict["tools"] = tools
        if tool_choice is not UNSET:
            field_dict["tool_choice"] = tool_choice
        if parallel_tool_calls is not UNSET:
            field_dict["parallel_tool_calls"] = parallel_tool_calls
        if response_format is not UNSET:
            field_dict["response_format"] = response_format
        if chat_template_kwargs is not UNSET:
            field_dict["chat_template_kwargs"] = chat_template_kwargs
        if reasoning_effort is not UNSET:
            field_dict["reasoning_effort"] = reasoning_effort
        if user is not UNSET:
            field_dict["user"] = user
        if ignore_eos is not UNSET:
            field_dict["ignore_eos"] = ignore_eos

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.assistant_content_message import AssistantContentMessage  # noqa: PLC0415
        from ..models.assistant_tool_calls_message import AssistantToolCallsMessage  # noqa: PLC0415
        from ..models.chat_completion_request_chat_template_kwargs_type_0 import (
            ChatCompletionRequestChatTemplateKwargsType0,  # noqa: PLC0415
        )
        from ..models.named_tool_choice import NamedToolChoice  # noqa: PLC0415
        from ..models.response_format_json_object import ResponseFormatJsonObject  # noqa: PLC0415
        from ..models.response_format_json_schema import ResponseFormatJsonSchema  # noqa: PLC0415
        from ..models.response_format_text import ResponseFormatText  # noqa: PLC0415
        from ..models.stream_options_type_0 import StreamOptionsType0  # noqa: PLC0415
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

        def _parse_temperature(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        temperature = _parse_temperature(d.pop("temperature", UNSET))

        def _parse_top_p(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        top_p = _parse_top_p(d.pop("top_p", UNSET))

        def _parse_top_k(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        top_k = _parse_top_k(d.pop("top_k", UNSET))

        def _parse_min_p(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        min_p = _parse_min_p(d.pop("min_p", UNSET))

        def _parse_max_tokens(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_tokens = _parse_max_tokens(d.pop("max_tokens", UNSET))

        def _parse_max_completion_tokens(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_completion_tokens = _parse_max_completion_tokens(d.pop("max_completion_tokens", UNSET))

        def _parse_repetition_penalty(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        repetition_penalty = _parse_repetition_penalty(d.pop("repetition_penalty", UNSET))

        def _parse_repeat_penalty(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        repeat_penalty = _parse_repeat_penalty(d.pop("repeat_penalty", UNSET))

        def _parse_presence_penalty(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        presence_penalty = _parse_presence_penalty(d.pop("presence_penalty", UNSET))

        def _parse_frequency_penalty(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        frequency_penalty = _parse_frequency_penalty(d.pop("frequency_penalty", UNSET))

        def _parse_seed(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        seed = _parse_seed(d.pop("seed", UNSET))

        def _parse_stop(data: object) -> list[str] | None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                stop_type_1 = cast(list[str], data)

                return stop_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | str | Unset, data)

        stop = _parse_stop(d.pop("stop", UNSET))

        def _parse_stream(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        stream = _parse_stream(d.pop("stream", UNSET))

        def _parse_stream_options(data: object) -> None | StreamOptionsType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_stream_options_type_0 = StreamOptionsType0.from_dict(data)

                return componentsschemas_stream_options_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | StreamOptionsType0 | Unset, data)

        stream_options = _parse_stream_options(d.pop("stream_options", UNSET))

        def _parse_logprobs(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        logprobs = _parse_logprobs(d.pop("logprobs", UNSET))

        def _parse_top_logprobs(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        top_logprobs = _parse_top_logprobs(d.pop("top_logprobs", UNSET))

        def _parse_n(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        n = _parse_n(d.pop("n", UNSET))

        def _parse_tools(data: object) -> list[Tool] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                tools_type_0 = []
                _tools_type_0 = data
                for tools_type_0_item_data in _tools_type_0:
                    tools_type_0_item = Tool.from_dict(tools_type_0_item_data)

                    tools_type_0.append(tools_type_0_item)

                return tools_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[Tool] | None | Unset, data)

        tools = _parse_tools(d.pop("tools", UNSET))

        def _parse_tool_choice(
            data: object,
        ) -> (
            NamedToolChoice
            | None
            | ToolChoiceType0Type1
            | ToolChoiceType0Type2Type1
            | ToolChoiceType0Type3Type1
            | Unset
        ):
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                componentsschemas_tool_choice_type_0_type_1 = ToolChoiceType0Type1(data)

                return componentsschemas_tool_choice_type_0_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, str):
                    raise TypeError()
                componentsschemas_tool_choice_type_0_type_2_type_1 = ToolChoiceType0Type2Type1(data)

                return componentsschemas_tool_choice_type_0_type_2_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, str):
                    raise TypeError()
                componentsschemas_tool_choice_type_0_type_3_type_1 = ToolChoiceType0Type3Type1(data)

                return componentsschemas_tool_choice_type_0_type_3_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_tool_choice_type_1 = NamedToolChoice.from_dict(data)

                return componentsschemas_tool_choice_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(
                NamedToolChoice
                | None
                | ToolChoiceType0Type1
                | ToolChoiceType0Type2Type1
                | ToolChoiceType0Type3Type1
                | Unset,
                data,
            )

        tool_choice = _parse_tool_choice(d.pop("tool_choice", UNSET))

        def _parse_parallel_tool_calls(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        parallel_tool_calls = _parse_parallel_tool_calls(d.pop("parallel_tool_calls", UNSET))

        def _parse_response_format(
            data: object,
        ) -> None | ResponseFormatJsonObject | ResponseFormatJsonSchema | ResponseFormatText | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_response_format_type_0 = ResponseFormatText.from_dict(data)

                return componentsschemas_response_format_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_response_format_type_1 = ResponseFormatJsonObject.from_dict(data)

                return componentsschemas_response_format_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_response_format_type_2 = ResponseFormatJsonSchema.from_dict(data)

                return componentsschemas_response_format_type_2
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ResponseFormatJsonObject | ResponseFormatJsonSchema | ResponseFormatText | Unset, data)

        response_format = _parse_response_format(d.pop("response_format", UNSET))

        def _parse_chat_template_kwargs(data: object) -> ChatCompletionRequestChatTemplateKwargsType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                chat_template_kwargs_type_0 = ChatCompletionRequestChatTemplateKwargsType0.from_dict(data)

                return chat_template_kwargs_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ChatCompletionRequestChatTemplateKwargsType0 | None | Unset, data)

        chat_template_kwargs = _parse_chat_template_kwargs(d.pop("chat_template_kwargs", UNSET))

        def _parse_reasoning_effort(
            data: object,
        ) -> (
            ChatCompletionRequestReasoningEffortType1
            | ChatCompletionRequestReasoningEffortType2Type1
            | ChatCompletionRequestReasoningEffortType3Type1
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
                reasoning_effort_type_1 = ChatCompletionRequestReasoningEffortType1(data)

                return reasoning_effort_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, str):
                    raise TypeError()
                reasoning_effort_type_2_type_1 = ChatCompletionRequestReasoningEffortType2Type1(data)

                return reasoning_effort_type_2_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, str):
                    raise TypeError()
                reasoning_effort_type_3_type_1 = ChatCompletionRequestReasoningEffortType3Type1(data)

                return reasoning_effort_type_3_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(
                ChatCompletionRequestReasoningEffortType1
                | ChatCompletionRequestReasoningEffortType2Type1
                | ChatCompletionRequestReasoningEffortType3Type1
                | None
                | Unset,
                data,
            )

        reasoning_effort = _parse_reasoning_effort(d.pop("reasoning_effort", UNSET))

        def _parse_user(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        user = _parse_user(d.pop("user", UNSET))

        def _parse_ignore_eos(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        ignore_eos = _parse_ignore_eos(d.pop("ignore_eos", UNSET))

        chat_completion_request = cls(
            messages=messages,
            model=model,
            temperature=temperature,
            top_p=top_p,
            top_k=top_k,
            min_p=min_p,
            max_tokens=max_tokens,
            max_completion_tokens=max_completion_tokens,
            repetition_penalty=repetition_penalty,
            repeat_penalty=repeat_penalty,
            presence_penalty=presence_penalty,
            frequency_penalty=frequency_penalty,
            seed=seed,
            stop=stop,
            stream=stream,
            stream_options=stream_options,
            logprobs=logprobs,
            top_logprobs=top_logprobs,
            n=n,
            tools=tools,
            tool_choice=tool_choice,
            parallel_tool_calls=parallel_tool_calls,
            response_format=response_format,
            chat_template_kwargs=chat_template_kwargs,
            reasoning_effort=reasoning_effort,
            user=user,
            ignore_eos=ignore_eos,
        )

        chat_completion_request.additional_properties = d
        return chat_completion_request

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
