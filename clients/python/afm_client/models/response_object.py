from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.response_object_object import ResponseObjectObject
from ..models.response_object_status import ResponseObjectStatus
from ..models.response_object_tool_choice_type_0 import ResponseObjectToolChoiceType0
from ..models.response_object_truncation import ResponseObjectTruncation
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.response_error_type_0 import ResponseErrorType0
    from ..models.response_function_call import ResponseFunctionCall
    from ..models.response_function_tool import ResponseFunctionTool
    from ..models.response_function_tool_choice import ResponseFunctionToolChoice
    from ..models.response_hosted_tool import ResponseHostedTool
    from ..models.response_incomplete_details_type_0 import ResponseIncompleteDetailsType0
    from ..models.response_namespace_tool import ResponseNamespaceTool
    from ..models.response_object_metadata_type_0 import ResponseObjectMetadataType0
    from ..models.response_object_reasoning_type_0 import ResponseObjectReasoningType0
    from ..models.response_object_text import ResponseObjectText
    from ..models.response_output_message import ResponseOutputMessage
    from ..models.response_reasoning_item import ResponseReasoningItem
    from ..models.response_usage_type_0 import ResponseUsageType0


T = TypeVar("T", bound="ResponseObject")


@_attrs_define
class ResponseObject:
    """
    Attributes:
        id (str): `resp_...`
        object_ (ResponseObjectObject):
        created_at (int):
        status (ResponseObjectStatus):
        model (str): The model that actually ran.
        output (list[ResponseFunctionCall | ResponseOutputMessage | ResponseReasoningItem]):
        completed_at (int | None | Unset):
        background (bool | None | Unset):
        error (None | ResponseErrorType0 | Unset):
        incomplete_details (None | ResponseIncompleteDetailsType0 | Unset):
        instructions (None | str | Unset):
        max_output_tokens (int | None | Unset):
        parallel_tool_calls (bool | Unset):
        previous_response_id (None | str | Unset):
        reasoning (None | ResponseObjectReasoningType0 | Unset):
        store (bool | Unset):
        temperature (float | None | Unset):
        top_p (float | None | Unset):
        text (ResponseObjectText | Unset):
        tool_choice (ResponseFunctionToolChoice | ResponseObjectToolChoiceType0 | Unset):
        tools (list[ResponseFunctionTool | ResponseHostedTool | ResponseNamespaceTool] | Unset):
        truncation (ResponseObjectTruncation | Unset):
        usage (None | ResponseUsageType0 | Unset):
        user (None | str | Unset):
        metadata (None | ResponseObjectMetadataType0 | Unset):
    """

    id: str
    object_: ResponseObjectObject
    created_at: int
    status: ResponseObjectStatus
    model: str
    output: list[ResponseFunctionCall | ResponseOutputMessage | ResponseReasoningItem]
    completed_at: int | None | Unset = UNSET
    background: bool | None | Unset = UNSET
    error: None | ResponseErrorType0 | Unset = UNSET
    incomplete_details: None | ResponseIncompleteDetailsType0 | Unset = UNSET
    instructions: None | str | Unset = UNSET
    max_output_tokens: int | None | Unset = UNSET
    parallel_tool_calls: bool | Unset = UNSET
    previous_response_id: None | str | Unset = UNSET
    reasoning: None | ResponseObjectReasoningType0 | Unset = UNSET
    store: bool | Unset = UNSET
    temperature: float | None | Unset = UNSET
    top_p: float | None | Unset = UNSET
    text: ResponseObjectText | Unset = UNSET
    tool_choice: ResponseFunctionToolChoice | ResponseObjectToolChoiceType0 | Unset = UNSET
    tools: list[ResponseFunctionTool | ResponseHostedTool | ResponseNamespaceTool] | Unset = UNSET
    truncation: ResponseObjectTruncation | Unset = UNSET
    usage: None | ResponseUsageType0 | Unset = UNSET
    user: None | str | Unset = UNSET
    metadata: None | ResponseObjectMetadataType0 | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.response_error_type_0 import ResponseErrorType0  # noqa: PLC0415
        from ..models.response_function_call import ResponseFunctionCall  # noqa: PLC0415
        from ..models.response_function_tool import ResponseFunctionTool  # noqa: PLC0415
        from ..models.response_incomplete_details_type_0 import ResponseIncompleteDetailsType0  # noqa: PLC0415
        from ..models.response_namespace_tool import ResponseNamespaceTool  # noqa: PLC0415
        from ..models.response_object_metadata_type_0 import ResponseObjectMetadataType0  # noqa: PLC0415
        from ..models.response_object_reasoning_type_0 import ResponseObjectReasoningType0  # noqa: PLC0415
        from ..models.response_output_message import ResponseOutputMessage  # noqa: PLC0415
        from ..models.response_usage_type_0 import ResponseUsageType0  # noqa: PLC0415

        id = self.id

        object_ = self.object_.value

        created_at = self.created_at

        status = self.status.value

        model = self.model

        output = []
        for output_item_data in self.output:
            output_item: dict[str, Any]
            if isinstance(output_item_data, ResponseOutputMessage):
                output_item = output_item_data.to_dict()
            elif isinstance(output_item_data, ResponseFunctionCall):
                output_item = output_item_data.to_dict()
            else:
                output_item = output_item_data.to_dict()

            output.append(output_item)

        completed_at: int | None | Unset
        if isinstance(self.completed_at, Unset):
            completed_at = UNSET
        else:
            completed_at = self.completed_at

        background: bool | None | Unset
        if isinstance(self.background, Unset):
            background = UNSET
        else:
            background = self.background

        error: dict[str, Any] | None | Unset
        if isinstance(self.error, Unset):
            error = UNSET
        elif isinstance(self.error, ResponseErrorType0):
            error = self.error.to_dict()
        else:
            error = self.error

        incomplete_details: dict[str, Any] | None | Unset
        if isinstance(self.incomplete_details, Unset):
            incomplete_details = UNSET
        elif isinstance(self.incomplete_details, ResponseIncompleteDetailsType0):
            incomplete_details = self.incomplete_details.to_dict()
        else:
            incomplete_details = self.incomplete_details

        instructions: None | str | Unset
        if isinstance(self.instructions, Unset):
            instructions = UNSET
        else:
            instructions = self.instructions

        max_output_tokens: int | None | Unset
        if isinstance(self.max_output_tokens, Unset):
            max_output_tokens = UNSET
        else:
            max_output_tokens = self.max_output_tokens

        parallel_tool_calls = self.parallel_tool_calls

        previous_response_id: None | str | Unset
        if isinstance(self.previous_response_id, Unset):
            previous_response_id = UNSET
        else:
            previous_response_id = self.previous_response_id

        reasoning: dict[str, Any] | None | Unset
        if isinstance(self.reasoning, Unset):
            reasoning = UNSET
        elif isinstance(self.reasoning, ResponseObjectReasoningType0):
            reasoning = self.reasoning.to_dict()
        else:
            reasoning = self.reasoning

        store = self.store

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

        text: dict[str, Any] | Unset = UNSET
        if not isinstance(self.text, Unset):
            text = self.text.to_dict()

        tool_choice: dict[str, Any] | str | Unset
        if isinstance(self.tool_choice, Unset):
            tool_choice = UNSET
        elif isinstance(self.tool_choice, ResponseObjectToolChoiceType0):
            tool_choice = self.tool_choice.value
        else:
            tool_choice = self.tool_choice.to_dict()

        tools: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.tools, Unset):
            tools = []
            for tools_item_data in self.tools:
                tools_item: dict[str, Any]
                if isinstance(tools_item_data, ResponseFunctionTool):
                    tools_item = tools_item_data.to_dict()
                elif isinstance(tools_item_data, ResponseNamespaceTool):
                    tools_item = tools_item_data.to_dict()
                else:
                    tools_item = tools_item_data.to_dict()

                tools.append(tools_item)

        truncation: str | Unset = UNSET
        if not isinstance(self.truncation, Unset):
            truncation = self.truncation.value

        usage: dict[str, Any] | None | Unset
        if isinstance(self.usage, Unset):
            usage = UNSET
        elif isinstance(self.usage, ResponseUsageType0):
            usage = self.usage.to_dict()
        else:
            usage = self.usage

        user: None | str | Unset
        if isinstance(self.user, Unset):
            user = UNSET
        else:
            user = self.user

        metadata: dict[str, Any] | None | Unset
        if isinstance(self.metadata, Unset):
            metadata = UNSET
        elif isinstance(self.metadata, ResponseObjectMetadataType0):
            metadata = self.metadata.to_dict()
        else:
            metadata = self.metadata

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "object": object_,
                "created_at": created_at,
                "status": status,
                "model": model,
                "output": output,
            }
        )
        if completed_at is not UNSET:
            field_dict["completed_at"] = completed_at
        if background is not UNSET:
            field_dict["background"] = background
        if error is not UNSET:
            field_dict["error"] = error
        if incomplete_details is not UNSET:
            field_dict["incomplete_details"] = incomplete_details
        if instructions is not UNSET:
            field_dict["instructions"] = instructions
        if max_output_tokens is not UNSET:
            field_dict["max_output_tokens"] = max_output_tokens
        if parallel_tool_calls is not UNSET:
            field_dict["parallel_tool_calls"] = parallel_tool_calls
        if previous_response_id is not UNSET:
            field_dict["previous_response_id"] = previous_response_id
        if reasoning is not UNSET:
            field_dict["reasoning"] = reasoning
        if store is not UNSET:
            field_dict["store"] = store
        if temperature is not UNSET:
            field_dict["temperature"] = temperature
        if top_p is not UNSET:
            field_dict["top_p"] = top_p
        if text is not UNSET:
            field_dict["text"] = text
        if tool_choice is not UNSET:
            field_dict["tool_choice"] = tool_choice
        if tools is not UNSET:
            field_dict["tools"] = tools
        if truncation is not UNSET:
            field_dict["truncation"] = truncation
        if usage is not UNSET:
            field_dict["usage"] = usage
        if user is not UNSET:
            field_dict["user"] = user
        if metadata is not UNSET:
            field_dict["metadata"] = metadata

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.response_error_type_0 import ResponseErrorType0  # noqa: PLC0415
        from ..models.response_function_call import ResponseFunctionCall  # noqa: PLC0415
        from ..models.response_function_tool import ResponseFunctionTool  # noqa: PLC0415
        from ..models.response_function_tool_choice import ResponseFunctionToolChoice  # noqa: PLC0415
        from ..models.response_hosted_tool import ResponseHostedTool  # noqa: PLC0415
        from ..models.response_incomplete_details_type_0 import ResponseIncompleteDetailsType0  # noqa: PLC0415
        from ..models.response_namespace_tool import ResponseNamespaceTool  # noqa: PLC0415
        from ..models.response_object_metadata_type_0 import ResponseObjectMetadataType0  # noqa: PLC0415
        from ..models.response_object_reasoning_type_0 import ResponseObjectReasoningType0  # noqa: PLC0415
        from ..models.response_object_text import ResponseObjectText  # noqa: PLC0415
        from ..models.response_output_message import ResponseOutputMessage  # noqa: PLC0415
        from ..models.response_reasoning_item import ResponseReasoningItem  # noqa: PLC0415
        from ..models.response_usage_type_0 import ResponseUsageType0  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        object_ = ResponseObjectObject(d.pop("object"))

        created_at = d.pop("created_at")

        status = ResponseObjectStatus(d.pop("status"))

        model = d.pop("model")

        output = []
        _output = d.pop("output")
        for output_item_data in _output:

            def _parse_output_item(
                data: object,
            ) -> ResponseFunctionCall | ResponseOutputMessage | ResponseReasoningItem:
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_response_output_item_type_0 = ResponseOutputMessage.from_dict(data)

                    return componentsschemas_response_output_item_type_0
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_response_output_item_type_1 = ResponseFunctionCall.from_dict(data)

                    return componentsschemas_response_output_item_type_1
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_response_output_item_type_2 = ResponseReasoningItem.from_dict(data)

                return componentsschemas_response_output_item_type_2

            output_item = _parse_output_item(output_item_data)

            output.append(output_item)

        def _parse_completed_at(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        completed_at = _parse_completed_at(d.pop("completed_at", UNSET))

        def _parse_background(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        background = _parse_background(d.pop("background", UNSET))

        def _parse_error(data: object) -> None | ResponseErrorType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_response_error_type_0 = ResponseErrorType0.from_dict(data)

                return componentsschemas_response_error_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ResponseErrorType0 | Unset, data)

        error = _parse_error(d.pop("error", UNSET))

        def _parse_incomplete_details(data: object) -> None | ResponseIncompleteDetailsType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_response_incomplete_details_type_0 = ResponseIncompleteDetailsType0.from_dict(data)

                return componentsschemas_response_incomplete_details_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ResponseIncompleteDetailsType0 | Unset, data)

        incomplete_details = _parse_incomplete_details(d.pop("incomplete_details", UNSET))

        def _parse_instructions(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        instructions = _parse_instructions(d.pop("instructions", UNSET))

        def _parse_max_output_tokens(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_output_tokens = _parse_max_output_tokens(d.pop("max_output_tokens", UNSET))

        parallel_tool_calls = d.pop("parallel_tool_calls", UNSET)

        def _parse_previous_response_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        previous_response_id = _parse_previous_response_id(d.pop("previous_response_id", UNSET))

        def _parse_reasoning(data: object) -> None | ResponseObjectReasoningType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                reasoning_type_0 = ResponseObjectReasoningType0.from_dict(data)

                return reasoning_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ResponseObjectReasoningType0 | Unset, data)

        reasoning = _parse_reasoning(d.pop("reasoning", UNSET))

        store = d.pop("store", UNSET)

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

        _text = d.pop("text", UNSET)
        text: ResponseObjectText | Unset
        if isinstance(_text, Unset):
            text = UNSET
        else:
            text = ResponseObjectText.from_dict(_text)

        def _parse_tool_choice(data: object) -> ResponseFunctionToolChoice | ResponseObjectToolChoiceType0 | Unset:
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                tool_choice_type_0 = ResponseObjectToolChoiceType0(data)

                return tool_choice_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            tool_choice_type_1 = ResponseFunctionToolChoice.from_dict(data)

            return tool_choice_type_1

        tool_choice = _parse_tool_choice(d.pop("tool_choice", UNSET))

        _tools = d.pop("tools", UNSET)
        tools: list[ResponseFunctionTool | ResponseHostedTool | ResponseNamespaceTool] | Unset = UNSET
        if _tools is not UNSET:
            tools = []
            for tools_item_data in _tools:

                def _parse_tools_item(
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

                tools_item = _parse_tools_item(tools_item_data)

                tools.append(tools_item)

        _truncation = d.pop("truncation", UNSET)
        truncation: ResponseObjectTruncation | Unset
        if isinstance(_truncation, Unset):
            truncation = UNSET
        else:
            truncation = ResponseObjectTruncation(_truncation)

        def _parse_usage(data: object) -> None | ResponseUsageType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_response_usage_type_0 = ResponseUsageType0.from_dict(data)

                return componentsschemas_response_usage_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ResponseUsageType0 | Unset, data)

        usage = _parse_usage(d.pop("usage", UNSET))

        def _parse_user(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        user = _parse_user(d.pop("user", UNSET))

        def _parse_metadata(data: object) -> None | ResponseObjectMetadataType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                metadata_type_0 = ResponseObjectMetadataType0.from_dict(data)

                return metadata_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ResponseObjectMetadataType0 | Unset, data)

        metadata = _parse_metadata(d.pop("metadata", UNSET))

        response_object = cls(
            id=id,
            object_=object_,
            created_at=created_at,
            status=status,
            model=model,
            output=output,
            completed_at=completed_at,
            background=background,
            error=error,
            incomplete_details=incomplete_details,
            instructions=instructions,
            max_output_tokens=max_output_tokens,
            parallel_tool_calls=parallel_tool_calls,
            previous_response_id=previous_response_id,
            reasoning=reasoning,
            store=store,
            temperature=temperature,
            top_p=top_p,
            text=text,
            tool_choice=tool_choice,
            tools=tools,
            truncation=truncation,
            usage=usage,
            user=user,
            metadata=metadata,
        )

        response_object.additional_properties = d
        return response_object

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
