from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.create_response_request_truncation_type_1 import CreateResponseRequestTruncationType1
from ..models.create_response_request_truncation_type_2_type_1 import CreateResponseRequestTruncationType2Type1
from ..models.create_response_request_truncation_type_3_type_1 import CreateResponseRequestTruncationType3Type1
from ..models.response_tool_choice_type_0_type_1 import ResponseToolChoiceType0Type1
from ..models.response_tool_choice_type_0_type_2_type_1 import ResponseToolChoiceType0Type2Type1
from ..models.response_tool_choice_type_0_type_3_type_1 import ResponseToolChoiceType0Type3Type1
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.create_response_request_client_metadata_type_0 import CreateResponseRequestClientMetadataType0
    from ..models.create_response_request_metadata_type_0 import CreateResponseRequestMetadataType0
    from ..models.response_function_call_input_item import ResponseFunctionCallInputItem
    from ..models.response_function_call_output_input_item import ResponseFunctionCallOutputInputItem
    from ..models.response_function_tool import ResponseFunctionTool
    from ..models.response_function_tool_choice import ResponseFunctionToolChoice
    from ..models.response_hosted_tool import ResponseHostedTool
    from ..models.response_hosted_tool_choice import ResponseHostedToolChoice
    from ..models.response_input_message_item import ResponseInputMessageItem
    from ..models.response_namespace_tool import ResponseNamespaceTool
    from ..models.response_reasoning_config_type_0 import ResponseReasoningConfigType0
    from ..models.response_reasoning_input_item import ResponseReasoningInputItem
    from ..models.response_text_config_type_0 import ResponseTextConfigType0


T = TypeVar("T", bound="CreateResponseRequest")


@_attrs_define
class CreateResponseRequest:
    """A Responses API request. Unknown fields are accepted and ignored, as OpenAI clients send
    fields a server may not know. Sampling values win over server flags, as in chat.

        Attributes:
            model (str | Unset): Requested model id; the response names what ran.
            input_ (list[ResponseFunctionCallInputItem | ResponseFunctionCallOutputInputItem | ResponseInputMessageItem |
                ResponseReasoningInputItem] | str | Unset): A user message as a string, or a list of input items; neither may be
                empty.
                Without `previous_response_id` it is required.
            instructions (None | str | Unset): A system message placed first; not carried over by `previous_response_id`.
            tools (list[ResponseFunctionTool | ResponseHostedTool | ResponseNamespaceTool] | None | Unset): Function and
                namespace tools. Other tool types are left out of the prompt and reported in `X-AFM-Warnings`.
            tool_choice (None | ResponseFunctionToolChoice | ResponseHostedToolChoice | ResponseToolChoiceType0Type1 |
                ResponseToolChoiceType0Type2Type1 | ResponseToolChoiceType0Type3Type1 | Unset): `none`, `auto`, `required`, a
                function (`{"type": "function", "name": ...}`, the name
                among `tools`, `namespace` for a namespace tool's function), or a hosted tool type
                (`{"type": "web_search"}`, ...), refused with 400 as this server runs no hosted tools.
            parallel_tool_calls (bool | None | Unset): false limits the turn to at most one function call.
            text (None | ResponseTextConfigType0 | Unset):
            reasoning (None | ResponseReasoningConfigType0 | Unset):
            max_output_tokens (int | None | Unset): Output-token limit (reasoning included); reaching it makes the response
                `incomplete`.
            temperature (float | None | Unset):
            top_p (float | None | Unset):
            seed (int | None | Unset): AFM extension. Same seed, same request, same machine -> same output.
            store (bool | None | Unset): Keep the response for retrieval and `previous_response_id` (default true).
            previous_response_id (None | str | Unset): A stored response whose conversation this one continues (404 if
                unknown).
            metadata (CreateResponseRequestMetadataType0 | None | Unset):
            stream (bool | None | Unset): Stream typed response events. 400 when the server runs with `--no-streaming`.
            background (bool | None | Unset): Return the `queued` response at once and run it in the background (needs
                `store`).
            truncation (CreateResponseRequestTruncationType1 | CreateResponseRequestTruncationType2Type1 |
                CreateResponseRequestTruncationType3Type1 | None | Unset): `disabled` (default): a prompt over the context
                window is a 400. `auto` drops the oldest conversation items until it fits.
            user (None | str | Unset): Accepted for client compatibility.
            include (list[str] | None | Unset): `reasoning.encrypted_content` adds `encrypted_content` to reasoning items
                (sealed by this server, readable by it on a later turn); other values are accepted and ignored.
            prompt_cache_key (None | str | Unset): Accepted for client compatibility (the prefix cache needs no key).
            client_metadata (CreateResponseRequestClientMetadataType0 | None | Unset): Accepted and ignored (Codex sends its
                turn metadata here).
    """

    model: str | Unset = UNSET
    input_: (
        list[
            ResponseFunctionCallInputItem
            | ResponseFunctionCallOutputInputItem
            | ResponseInputMessageItem
            | ResponseReasoningInputItem
        ]
        | str
        | Unset
    ) = UNSET
    instructions: None | str | Unset = UNSET
    tools: list[ResponseFunctionTool | ResponseHostedTool | ResponseNamespaceTool] | None | Unset = UNSET
    tool_choice: (
        None
        | ResponseFunctionToolChoice
        | ResponseHostedToolChoice
        | ResponseToolChoiceType0Type1
        | ResponseToolChoiceType0Type2Type1
        | ResponseToolChoiceType0Type3Type1
        | Unset
    ) = UNSET
    parallel_tool_calls: bool | None | Unset = UNSET
    text: None | ResponseTextConfigType0 | Unset = UNSET
    reasoning: None | ResponseReasoningConfigType0 | Unset = UNSET
    max_output_tokens: int | None | Unset = UNSET
    temperature: float | None | Unset = UNSET
    top_p: float | None | Unset = UNSET
    seed: int | None | Unset = UNSET
    store: bool | None | Unset = UNSET
    previous_response_id: None | str | Unset = UNSET
    metadata: CreateResponseRequestMetadataType0 | None | Unset = UNSET
    stream: bool | None | Unset = UNSET
    background: bool | None | Unset = UNSET
    truncation: (
        CreateResponseRequestTruncationType1
        | CreateResponseRequestTruncationType2Type1
        | CreateResponseRequestTruncationType3Type1
        | None
        | Unset
    ) = UNSET
    user: None | str | Unset = UNSET
    include: list[str] | None | Unset = UNSET
    prompt_cache_key: None | str | Unset = UNSET
    client_metadata: CreateResponseRequestClientMetadataType0 | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.create_response_request_client_metadata_type_0 import CreateResponseRequestClientMetadataType0  # noqa: PLC0415
        from ..models.create_response_request_metadata_type_0 import CreateResponseRequestMetadataType0  # noqa: PLC0415
        from ..models.response_function_call_input_item import ResponseFunctionCallInputItem  # noqa: PLC0415
        from ..models.response_function_call_output_input_item import ResponseFunctionCallOutputInputItem  # noqa: PLC0415
        from ..models.response_function_tool import ResponseFunctionTool  # noqa: PLC0415
        from ..models.response_function_tool_choice import ResponseFunctionToolChoice  # noqa: PLC0415
        from ..models.response_hosted_tool_choice import ResponseHostedToolChoice  # noqa: PLC0415
        from ..models.response_input_message_item import ResponseInputMessageItem  # noqa: PLC0415
        from ..models.response_namespace_tool import ResponseNamespaceTool  # noqa: PLC0415
        from ..models.response_reasoning_config_type_0 import ResponseReasoningConfigType0  # noqa: PLC0415
        from ..models.response_text_config_type_0 import ResponseTextConfigType0  # noqa: PLC0415

        model = self.model

        input_: list[dict[str, Any]] | str | Unset
        if isinstance(self.input_, Unset):
            input_ = UNSET
        elif isinstance(self.input_, list):
            input_ = []
            for input_type_1_item_data in self.input_:
                input_type_1_item: dict[str, Any]
                if isinstance(input_type_1_item_data, ResponseInputMessageItem):
                    input_type_1_item = input_type_1_item_data.to_dict()
                elif isinstance(input_type_1_item_data, ResponseFunctionCallInputItem):
                    input_type_1_item = input_type_1_item_data.to_dict()
                elif isinstance(input_type_1_item_data, ResponseFunctionCallOutputInputItem):
                    input_type_1_item = input_type_1_item_data.to_dict()
                else:
                    input_type_1_item = input_type_1_item_data.to_dict()

                input_.append(input_type_1_item)

        else:
            input_ = self.input_

        instructions: None | str | Unset
        if isinstance(self.instructions, Unset):
            instructions = UNSET
        else:
            instructions = self.instructions

        tools: list[dict[str, Any]] | None | Unset
        if isinstance(self.tools, Unset):
            tools = UNSET
        elif isinstance(self.tools, list):
            tools = []
            for tools_type_0_item_data in self.tools:
                tools_type_0_item: dict[str, Any]
                if isinstance(tools_type_0_item_data, ResponseFunctionTool):
                    tools_type_0_item = tools_type_0_item_data.to_dict()
                elif isinstance(tools_type_0_item_data, ResponseNamespaceTool):
                    tools_type_0_item = tools_type_0_item_data.to_dict()
                else:
                    tools_type_0_item = tools_type_0_item_data.to_dict()

                tools.append(tools_type_0_item)

        else:
            tools = self.tools

        tool_choice: dict[str, Any] | None | str | Unset
        if isinstance(self.tool_choice, Unset):
            tool_choice = UNSET
        elif isinstance(self.tool_choice, ResponseToolChoiceType0Type1):
            tool_choice = self.tool_choice.value
        elif isinstance(self.tool_choice, ResponseToolChoiceType0Type2Type1):
            tool_choice = self.tool_choice.value
        elif isinstance(self.tool_choice, ResponseToolChoiceType0Type3Type1):
            tool_choice = self.tool_choice.value
        elif isinstance(self.tool_choice, ResponseFunctionToolChoice):
            tool_choice = self.tool_choice.to_dict()
        elif isinstance(self.tool_choice, ResponseHostedToolChoice):
            tool_choice = self.tool_choice.to_dict()
        else:
            tool_choice = self.tool_choice

        parallel_tool_calls: bool | None | Unset
        if isinstance(self.parallel_tool_calls, Unset):
            parallel_tool_calls = UNSET
        else:
            parallel_tool_calls = self.parallel_tool_calls

        text: dict[str, Any] | None | Unset
        if isinstance(self.text, Unset):
            text = UNSET
        elif isinstance(self.text, ResponseTextConfigType0):
            text = self.text.to_dict()
        else:
            text = self.text

        reasoning: dict[str, Any] | None | Unset
        if isinstance(self.reasoning, Unset):
            reasoning = UNSET
        elif isinstance(self.reasoning, ResponseReasoningConfigType0):
            reasoning = self.reasoning.to_dict()
        else:
            reasoning = self.reasoning

        max_output_tokens: int | None | Unset
        if isinstance(self.max_output_tokens, Unset):
            max_output_tokens = UNSET
        else:
            max_output_tokens = self.max_output_tokens

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

        seed: int | None | Unset
        if isinstance(self.seed, Unset):
            seed = UNSET
        else:
            seed = self.seed

        store: bool | None | Unset
        if isinstance(self.store, Unset):
            store = UNSET
        else:
            store = self.store

        previous_response_id: None | str | Unset
        if isinstance(self.previous_response_id, Unset):
            previous_response_id = UNSET
        else:
            previous_response_id = self.previous_response_id

        metadata: dict[str, Any] | None | Unset
        if isinstance(self.metadata, Unset):
            metadata = UNSET
        elif isinstance(self.metadata, CreateResponseRequestMetadataType0):
            metadata = self.metadata.to_dict()
        else:
            metadata = self.metadata

        stream: bool | None | Unset
        if isinstance(self.stream, Unset):
            stream = UNSET
        else:
            stream = self.stream

        background: bool | None | Unset
        if isinstance(self.background, Unset):
            background = UNSET
        else:
            background = self.background

        truncation: None | str | Unset
        if isinstance(self.truncation, Unset):
            truncation = UNSET
        elif isinstance(self.truncation, CreateResponseRequestTruncationType1):
            truncation = self.truncation.value
        elif isinstance(self.truncation, CreateResponseRequestTruncationType2Type1):
            truncation = self.truncation.value
        elif isinstance(self.truncation, CreateResponseRequestTruncationType3Type1):
            truncation = self.truncation.value
        else:
            truncation = self.truncation

        user: None | str | Unset
        if isinstance(self.user, Unset):
            user = UNSET
        else:
            user = self.user

        include: list[str] | None | Unset
        if isinstance(self.include, Unset):
            include = UNSET
        elif isinstance(self.include, list):
            include = self.include

        else:
            include = self.include

        prompt_cache_key: None | str | Unset
        if isinstance(self.prompt_cache_key, Unset):
            prompt_cache_key = UNSET
        else:
            prompt_cache_key = self.prompt_cache_key

        client_metadata: dict[str, Any] | None | Unset
        if isinstance(self.client_metadata, Unset):
            client_metadata = UNSET
        elif isinstance(self.client_metadata, CreateResponseRequestClientMetadataType0):
            client_metadata = self.client_metadata.to_dict()
        else:
            client_metadata = self.client_metadata

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if model is not UNSET:
            field_dict["model"] = model
        if input_ is not UNSET:
            field_dict["input"] = input_
        if instructions is not UNSET:
            field_dict["instructions"] = instructions
        if tools is not UNSET:
            field_dict["tools"] = tools
        if tool_choice is not UNSET:
            field_dict["tool_choice"] = tool_choice
        if parallel_tool_calls is not UNSET:
            field_dict["parallel_tool_calls"] = parallel_tool_calls
        if text is not UNSET:
            field_dict["text"] = text
        if reasoning is not UNSET:
            field_dict["reasoning"] = reasoning
        if max_output_tokens is not UNSET:
            field_dict["max_output_tokens"] = max_output_tokens
        if temperature is not UNSET:
            field_dict["temperature"] = temperature
        if top_p is not UNSET:
            field_dict["top_p"] = top_p
        if seed is not UNSET:
            field_dict["seed"] = seed
        if store is not UNSET:
            field_dict["store"] = store
        if previous_response_id is not UNSET:
            field_dict["previous_response_id"] = previous_response_id
        if metadata is not UNSET:
            field_dict["metadata"] = metadata
        if stream is not UNSET:
            field_dict["stream"] = stream
        if background is not UNSET:
            field_dict["background"] = background
        if truncation is not UNSET:
            field_dict["truncation"] = truncation
        if user is not UNSET:
            field_dict["user"] = user
        if include is not UNSET:
            field_dict["include"] = include
        if prompt_cache_key is not UNSET:
            field_dict["prompt_cache_key"] = prompt_cache_key
        if client_metadata is not UNSET:
            field_dict["client_metadata"] = client_metadata

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.create_response_request_client_metadata_type_0 import CreateResponseRequestClientMetadataType0  # noqa: PLC0415
        from ..models.create_response_request_metadata_type_0 import CreateResponseRequestMetadataType0  # noqa: PLC0415
        from ..models.response_function_call_input_item import ResponseFunctionCallInputItem  # noqa: PLC0415
        from ..models.response_function_call_output_input_item import ResponseFunctionCallOutputInputItem  # noqa: PLC0415
        from ..models.response_function_tool import ResponseFunctionTool  # noqa: PLC0415
        from ..models.response_function_tool_choice import ResponseFunctionToolChoice  # noqa: PLC0415
        from ..models.response_hosted_tool import ResponseHostedTool  # noqa: PLC0415
        from ..models.response_hosted_tool_choice import ResponseHostedToolChoice  # noqa: PLC0415
        from ..models.response_input_message_item import ResponseInputMessageItem  # noqa: PLC0415
        from ..models.response_namespace_tool import ResponseNamespaceTool  # noqa: PLC0415
        from ..models.response_reasoning_config_type_0 import ResponseReasoningConfigType0  # noqa: PLC0415
        from ..models.response_reasoning_input_item import ResponseReasoningInputItem  # noqa: PLC0415
        from ..models.response_text_config_type_0 import ResponseTextConfigType0  # noqa: PLC0415

        d = dict(src_dict)
        model = d.pop("model", UNSET)

        def _parse_input_(
            data: object,
        ) -> (
            list[
                ResponseFunctionCallInputItem
                | ResponseFunctionCallOutputInputItem
                | ResponseInputMessageItem
                | ResponseReasoningInputItem
            ]
            | str
            | Unset
        ):
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                input_type_1 = []
                _input_type_1 = data
                for input_type_1_item_data in _input_type_1:

                    def _parse_input_type_1_item(
                        data: object,
                    ) -> (
                        ResponseFunctionCallInputItem
                        | ResponseFunctionCallOutputInputItem
                        | ResponseInputMessageItem
                        | ResponseReasoningInputItem
                    ):
                        try:
                            if not isinstance(data, dict):
                                raise TypeError()
                            componentsschemas_response_input_item_type_0 = ResponseInputMessageItem.from_dict(data)

                            return componentsschemas_response_input_item_type_0
                        except (TypeError, ValueError, AttributeError, KeyError):
                            pass
                        try:
                            if not isinstance(data, dict):
                                raise TypeError()
                            componentsschemas_response_input_item_type_1 = ResponseFunctionCallInputItem.from_dict(data)

                            return componentsschemas_response_input_item_type_1
                        except (TypeError, ValueError, AttributeError, KeyError):
                            pass
                        try:
                            if not isinstance(data, dict):
                                raise TypeError()
                            componentsschemas_response_input_item_type_2 = (
                                ResponseFunctionCallOutputInputItem.from_dict(data)
                            )

                            return componentsschemas_response_input_item_type_2
                        except (TypeError, ValueError, AttributeError, KeyError):
                            pass
                        if not isinstance(data, dict):
                            raise TypeError()
                        componentsschemas_response_input_item_type_3 = ResponseReasoningInputItem.from_dict(data)

                        return componentsschemas_response_input_item_type_3

                    input_type_1_item = _parse_input_type_1_item(input_type_1_item_data)

                    input_type_1.append(input_type_1_item)

                return input_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(
                list[
                    ResponseFunctionCallInputItem
                    | ResponseFunctionCallOutputInputItem
                    | ResponseInputMessageItem
                    | ResponseReasoningInputItem
                ]
                | str
                | Unset,
                data,
            )

        input_ = _parse_input_(d.pop("input", UNSET))

        def _parse_instructions(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        instructions = _parse_instructions(d.pop("instructions", UNSET))

        def _parse_tools(
            data: object,
        ) -> list[ResponseFunctionTool | ResponseHostedTool | ResponseNamespaceTool] | None | Unset:
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

                    def _parse_tools_type_0_item(
                        data: object,
                    ) -> ResponseFunctionTool | ResponseHostedTool | ResponseNamespaceTool:
                        try:
                            if not isinstance(data, dict):
                                raise TypeError()
                            componentsschemas_response_tool_type_0 = ResponseFunctionTool.from_dict(data)

                            return componentsschemas_response_tool_type_0
                        except (TypeError, ValueError, AttributeError, KeyError):
                            pass
                        try:
                            if not isinstance(data, dict):
                                raise TypeError()
                            componentsschemas_response_tool_type_1 = ResponseNamespaceTool.from_dict(data)

                            return componentsschemas_response_tool_type_1
                        except (TypeError, ValueError, AttributeError, KeyError):
                            pass
                        if not isinstance(data, dict):
                            raise TypeError()
                        componentsschemas_response_tool_type_2 = ResponseHostedTool.from_dict(data)

                        return componentsschemas_response_tool_type_2

                    tools_type_0_item = _parse_tools_type_0_item(tools_type_0_item_data)

                    tools_type_0.append(tools_type_0_item)

                return tools_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[ResponseFunctionTool | ResponseHostedTool | ResponseNamespaceTool] | None | Unset, data)

        tools = _parse_tools(d.pop("tools", UNSET))

        def _parse_tool_choice(
            data: object,
        ) -> (
            None
            | ResponseFunctionToolChoice
            | ResponseHostedToolChoice
            | ResponseToolChoiceType0Type1
            | ResponseToolChoiceType0Type2Type1
            | ResponseToolChoiceType0Type3Type1
            | Unset
        ):
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                componentsschemas_response_tool_choice_type_0_type_1 = ResponseToolChoiceType0Type1(data)

                return componentsschemas_response_tool_choice_type_0_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, str):
                    raise TypeError()
                componentsschemas_response_tool_choice_type_0_type_2_type_1 = ResponseToolChoiceType0Type2Type1(data)

                return componentsschemas_response_tool_choice_type_0_type_2_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, str):
                    raise TypeError()
                componentsschemas_response_tool_choice_type_0_type_3_type_1 = ResponseToolChoiceType0Type3Type1(data)

                return componentsschemas_response_tool_choice_type_0_type_3_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_response_tool_choice_type_1 = ResponseFunctionToolChoice.from_dict(data)

                return componentsschemas_response_tool_choice_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_response_tool_choice_type_2 = ResponseHostedToolChoice.from_dict(data)

                return componentsschemas_response_tool_choice_type_2
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(
                None
                | ResponseFunctionToolChoice
                | ResponseHostedToolChoice
                | ResponseToolChoiceType0Type1
                | ResponseToolChoiceType0Type2Type1
                | ResponseToolChoiceType0Type3Type1
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

        def _parse_text(data: object) -> None | ResponseTextConfigType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_response_text_config_type_0 = ResponseTextConfigType0.from_dict(data)

                return componentsschemas_response_text_config_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ResponseTextConfigType0 | Unset, data)

        text = _parse_text(d.pop("text", UNSET))

        def _parse_reasoning(data: object) -> None | ResponseReasoningConfigType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_response_reasoning_config_type_0 = ResponseReasoningConfigType0.from_dict(data)

                return componentsschemas_response_reasoning_config_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ResponseReasoningConfigType0 | Unset, data)

        reasoning = _parse_reasoning(d.pop("reasoning", UNSET))

        def _parse_max_output_tokens(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_output_tokens = _parse_max_output_tokens(d.pop("max_output_tokens", UNSET))

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

        def _parse_seed(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        seed = _parse_seed(d.pop("seed", UNSET))

        def _parse_store(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        store = _parse_store(d.pop("store", UNSET))

        def _parse_previous_response_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        previous_response_id = _parse_previous_response_id(d.pop("previous_response_id", UNSET))

        def _parse_metadata(data: object) -> CreateResponseRequestMetadataType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                metadata_type_0 = CreateResponseRequestMetadataType0.from_dict(data)

                return metadata_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CreateResponseRequestMetadataType0 | None | Unset, data)

        metadata = _parse_metadata(d.pop("metadata", UNSET))

        def _parse_stream(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        stream = _parse_stream(d.pop("stream", UNSET))

        def _parse_background(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        background = _parse_background(d.pop("background", UNSET))

        def _parse_truncation(
            data: object,
        ) -> (
            CreateResponseRequestTruncationType1
            | CreateResponseRequestTruncationType2Type1
            | CreateResponseRequestTruncationType3Type1
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
                truncation_type_1 = CreateResponseRequestTruncationType1(data)

                return truncation_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, str):
                    raise TypeError()
                truncation_type_2_type_1 = CreateResponseRequestTruncationType2Type1(data)

                return truncation_type_2_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, str):
                    raise TypeError()
                truncation_type_3_type_1 = CreateResponseRequestTruncationType3Type1(data)

                return truncation_type_3_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(
                CreateResponseRequestTruncationType1
                | CreateResponseRequestTruncationType2Type1
                | CreateResponseRequestTruncationType3Type1
                | None
                | Unset,
                data,
            )

        truncation = _parse_truncation(d.pop("truncation", UNSET))

        def _parse_user(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        user = _parse_user(d.pop("user", UNSET))

        def _parse_include(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                include_type_0 = cast(list[str], data)

                return include_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        include = _parse_include(d.pop("include", UNSET))

        def _parse_prompt_cache_key(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        prompt_cache_key = _parse_prompt_cache_key(d.pop("prompt_cache_key", UNSET))

        def _parse_client_metadata(data: object) -> CreateResponseRequestClientMetadataType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                client_metadata_type_0 = CreateResponseRequestClientMetadataType0.from_dict(data)

                return client_metadata_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CreateResponseRequestClientMetadataType0 | None | Unset, data)

        client_metadata = _parse_client_metadata(d.pop("client_metadata", UNSET))

        create_response_request = cls(
            model=model,
            input_=input_,
            instructions=instructions,
            tools=tools,
            tool_choice=tool_choice,
            parallel_tool_calls=parallel_tool_calls,
            text=text,
            reasoning=reasoning,
            max_output_tokens=max_output_tokens,
            temperature=temperature,
            top_p=top_p,
            seed=seed,
            store=store,
            previous_response_id=previous_response_id,
            metadata=metadata,
            stream=stream,
            background=background,
            truncation=truncation,
            user=user,
            include=include,
            prompt_cache_key=prompt_cache_key,
            client_metadata=client_metadata,
        )

        create_response_request.additional_properties = d
        return create_response_request

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
