from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.assistant_content_message_role import AssistantContentMessageRole
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.audio_content_part import AudioContentPart
    from ..models.image_content_part import ImageContentPart
    from ..models.text_content_part import TextContentPart
    from ..models.tool_call import ToolCall


T = TypeVar("T", bound="AssistantContentMessage")


@_attrs_define
class AssistantContentMessage:
    """An earlier assistant turn with content (and perhaps tool calls).

    Attributes:
        role (AssistantContentMessageRole):
        content (list[AudioContentPart | ImageContentPart | TextContentPart] | str): Text, or an array of content parts.
        name (None | str | Unset):
        tool_calls (list[ToolCall] | None | Unset): Assistant tool calls, sent back verbatim in multi-turn
            conversations.
        reasoning_content (None | str | Unset): Earlier assistant reasoning, passed to templates that render it.
    """

    role: AssistantContentMessageRole
    content: list[AudioContentPart | ImageContentPart | TextContentPart] | str
    name: None | str | Unset = UNSET
    tool_calls: list[ToolCall] | None | Unset = UNSET
    reasoning_content: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.image_content_part import ImageContentPart  # noqa: PLC0415
        from ..models.text_content_part import TextContentPart  # noqa: PLC0415

        role = self.role.value

        content: list[dict[str, Any]] | str
        if isinstance(self.content, list):
            content = []
            for componentsschemas_message_content_type_1_item_data in self.content:
                componentsschemas_message_content_type_1_item: dict[str, Any]
                if isinstance(componentsschemas_message_content_type_1_item_data, TextContentPart):
                    componentsschemas_message_content_type_1_item = (
                        componentsschemas_message_content_type_1_item_data.to_dict()
                    )
                elif isinstance(componentsschemas_message_content_type_1_item_data, ImageContentPart):
                    componentsschemas_message_content_type_1_item = (
                        componentsschemas_message_content_type_1_item_data.to_dict()
                    )
                else:
                    componentsschemas_message_content_type_1_item = (
                        componentsschemas_message_content_type_1_item_data.to_dict()
                    )

                content.append(componentsschemas_message_content_type_1_item)

        else:
            content = self.content

        name: None | str | Unset
        if isinstance(self.name, Unset):
            name = UNSET
        else:
            name = self.name

        tool_calls: list[dict[str, Any]] | None | Unset
        if isinstance(self.tool_calls, Unset):
            tool_calls = UNSET
        elif isinstance(self.tool_calls, list):
            tool_calls = []
            for tool_calls_type_0_item_data in self.tool_calls:
                tool_calls_type_0_item = tool_calls_type_0_item_data.to_dict()
                tool_calls.append(tool_calls_type_0_item)

        else:
            tool_calls = self.tool_calls

        reasoning_content: None | str | Unset
        if isinstance(self.reasoning_content, Unset):
            reasoning_content = UNSET
        else:
            reasoning_content = self.reasoning_content

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "role": role,
                "content": content,
            }
        )
        if name is not UNSET:
            field_dict["name"] = name
        if tool_calls is not UNSET:
            field_dict["tool_calls"] = tool_calls
        if reasoning_content is not UNSET:
            field_dict["reasoning_content"] = reasoning_content

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.audio_content_part import AudioContentPart  # noqa: PLC0415
        from ..models.image_content_part import ImageContentPart  # noqa: PLC0415
        from ..models.text_content_part import TextContentPart  # noqa: PLC0415
        from ..models.tool_call import ToolCall  # noqa: PLC0415

        d = dict(src_dict)
        role = AssistantContentMessageRole(d.pop("role"))

        def _parse_content(data: object) -> list[AudioContentPart | ImageContentPart | TextContentPart] | str:
            try:
                if not isinstance(data, list):
                    raise TypeError()
                componentsschemas_message_content_type_1 = []
                _componentsschemas_message_content_type_1 = data
                for componentsschemas_message_content_type_1_item_data in _componentsschemas_message_content_type_1:

                    def _parse_componentsschemas_message_content_type_1_item(
                        data: object,
                    ) -> AudioContentPart | ImageContentPart | TextContentPart:
                        try:
                            if not isinstance(data, dict):
                                raise TypeError()
                            componentsschemas_content_part_type_0 = TextContentPart.from_dict(data)

                            return componentsschemas_content_part_type_0
                        except (TypeError, ValueError, AttributeError, KeyError):
                            pass
                        try:
                            if not isinstance(data, dict):
                                raise TypeError()
                            componentsschemas_content_part_type_1 = ImageContentPart.from_dict(data)

                            return componentsschemas_content_part_type_1
                        except (TypeError, ValueError, AttributeError, KeyError):
                            pass
                        if not isinstance(data, dict):
                            raise TypeError()
                        componentsschemas_content_part_type_2 = AudioContentPart.from_dict(data)

                        return componentsschemas_content_part_type_2

                    componentsschemas_message_content_type_1_item = (
                        _parse_componentsschemas_message_content_type_1_item(
                            componentsschemas_message_content_type_1_item_data
                        )
                    )

                    componentsschemas_message_content_type_1.append(componentsschemas_message_content_type_1_item)

                return componentsschemas_message_content_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[AudioContentPart | ImageContentPart | TextContentPart] | str, data)

        content = _parse_content(d.pop("content"))

        def _parse_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        name = _parse_name(d.pop("name", UNSET))

        def _parse_tool_calls(data: object) -> list[ToolCall] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                tool_calls_type_0 = []
                _tool_calls_type_0 = data
                for tool_calls_type_0_item_data in _tool_calls_type_0:
                    tool_calls_type_0_item = ToolCall.from_dict(tool_calls_type_0_item_data)

                    tool_calls_type_0.append(tool_calls_type_0_item)

                return tool_calls_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[ToolCall] | None | Unset, data)

        tool_calls = _parse_tool_calls(d.pop("tool_calls", UNSET))

        def _parse_reasoning_content(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        reasoning_content = _parse_reasoning_content(d.pop("reasoning_content", UNSET))

        assistant_content_message = cls(
            role=role,
            content=content,
            name=name,
            tool_calls=tool_calls,
            reasoning_content=reasoning_content,
        )

        assistant_content_message.additional_properties = d
        return assistant_content_message

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
