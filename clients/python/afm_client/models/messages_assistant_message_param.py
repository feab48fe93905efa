from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.messages_assistant_message_param_role import MessagesAssistantMessageParamRole

if TYPE_CHECKING:
    from ..models.messages_redacted_thinking_block_param import MessagesRedactedThinkingBlockParam
    from ..models.messages_text_block_param import MessagesTextBlockParam
    from ..models.messages_thinking_block_param import MessagesThinkingBlockParam
    from ..models.messages_tool_use_block_param import MessagesToolUseBlockParam
    from ..models.messages_unsupported_block_param import MessagesUnsupportedBlockParam


T = TypeVar("T", bound="MessagesAssistantMessageParam")


@_attrs_define
class MessagesAssistantMessageParam:
    """
    Attributes:
        role (MessagesAssistantMessageParamRole):
        content (list[MessagesRedactedThinkingBlockParam | MessagesTextBlockParam | MessagesThinkingBlockParam |
            MessagesToolUseBlockParam | MessagesUnsupportedBlockParam] | str): Text, or content blocks.
    """

    role: MessagesAssistantMessageParamRole
    content: (
        list[
            MessagesRedactedThinkingBlockParam
            | MessagesTextBlockParam
            | MessagesThinkingBlockParam
            | MessagesToolUseBlockParam
            | MessagesUnsupportedBlockParam
        ]
        | str
    )
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.messages_redacted_thinking_block_param import MessagesRedactedThinkingBlockParam  # noqa: PLC0415
        from ..models.messages_text_block_param import MessagesTextBlockParam  # noqa: PLC0415
        from ..models.messages_thinking_block_param import MessagesThinkingBlockParam  # noqa: PLC0415
        from ..models.messages_tool_use_block_param import MessagesToolUseBlockParam  # noqa: PLC0415

        role = self.role.value

        content: list[dict[str, Any]] | str
        if isinstance(self.content, list):
            content = []
            for content_type_1_item_data in self.content:
                content_type_1_item: dict[str, Any]
                if isinstance(content_type_1_item_data, MessagesTextBlockParam):
                    content_type_1_item = content_type_1_item_data.to_dict()
                elif isinstance(content_type_1_item_data, MessagesToolUseBlockParam):
                    content_type_1_item = content_type_1_item_data.to_dict()
                elif isinstance(content_type_1_item_data, MessagesThinkingBlockParam):
                    content_type_1_item = content_type_1_item_data.to_dict()
                elif isinstance(content_type_1_item_data, MessagesRedactedThinkingBlockParam):
                    content_type_1_item = content_type_1_item_data.to_dict()
                else:
                    content_type_1_item = content_type_1_item_data.to_dict()

                content.append(content_type_1_item)

        else:
            content = self.content

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "role": role,
                "content": content,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.messages_redacted_thinking_block_param import MessagesRedactedThinkingBlockParam  # noqa: PLC0415
        from ..models.messages_text_block_param import MessagesTextBlockParam  # noqa: PLC0415
        from ..models.messages_thinking_block_param import MessagesThinkingBlockParam  # noqa: PLC0415
        from ..models.messages_tool_use_block_param import MessagesToolUseBlockParam  # noqa: PLC0415
        from ..models.messages_unsupported_block_param import MessagesUnsupportedBlockParam  # noqa: PLC0415

        d = dict(src_dict)
        role = MessagesAssistantMessageParamRole(d.pop("role"))

        def _parse_content(
            data: object,
        ) -> (
            list[
                MessagesRedactedThinkingBlockParam
                | MessagesTextBlockParam
                | MessagesThinkingBlockParam
                | MessagesToolUseBlockParam
                | MessagesUnsupportedBlockParam
            ]
            | str
        ):
            try:
                if not isinstance(data, list):
                    raise TypeError()
                content_type_1 = []
                _content_type_1 = data
                for content_type_1_item_data in _content_type_1:

                    def _parse_content_type_1_item(
                        data: object,
                    ) -> (
                        MessagesRedactedThinkingBlockParam
                        | MessagesTextBlockParam
                        | MessagesThinkingBlockParam
                        | MessagesToolUseBlockParam
                        | MessagesUnsupportedBlockParam
                    ):
                        try:
                            if not isinstance(data, dict):
                                raise TypeError()
                            componentsschemas_messages_assistant_block_param_type_0 = MessagesTextBlockParam.from_dict(
                                data
                            )

                            return componentsschemas_messages_assistant_block_param_type_0
                        except (TypeError, ValueError, AttributeError, KeyError):
                            pass
                        try:
                            if not isinstance(data, dict):
                                raise TypeError()
                            componentsschemas_messages_assistant_block_param_type_1 = (
                                MessagesToolUseBlockParam.from_dict(data)
                            )

                            return componentsschemas_messages_assistant_block_param_type_1
                        except (TypeError, ValueError, AttributeError, KeyError):
                            pass
                        try:
                            if not isinstance(data, dict):
                                raise TypeError()
                            componentsschemas_messages_assistant_block_param_type_2 = (
                                MessagesThinkingBlockParam.from_dict(data)
                            )

                            return componentsschemas_messages_assistant_block_param_type_2
                        except (TypeError, ValueError, AttributeError, KeyError):
                            pass
                        try:
                            if not isinstance(data, dict):
                                raise TypeError()
                            componentsschemas_messages_assistant_block_param_type_3 = (
                                MessagesRedactedThinkingBlockParam.from_dict(data)
                            )

                            return componentsschemas_messages_assistant_block_param_type_3
                        except (TypeError, ValueError, AttributeError, KeyError):
                            pass
                        if not isinstance(data, dict):
                            raise TypeError()
                        componentsschemas_messages_assistant_block_param_type_4 = (
                            MessagesUnsupportedBlockParam.from_dict(data)
                        )

                        return componentsschemas_messages_assistant_block_param_type_4

                    content_type_1_item = _parse_content_type_1_item(content_type_1_item_data)

                    content_type_1.append(content_type_1_item)

                return content_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(
                list[
                    MessagesRedactedThinkingBlockParam
                    | MessagesTextBlockParam
                    | MessagesThinkingBlockParam
                    | MessagesToolUseBlockParam
                    | MessagesUnsupportedBlockParam
                ]
                | str,
                data,
            )

        content = _parse_content(d.pop("content"))

        messages_assistant_message_param = cls(
            role=role,
            content=content,
        )

        messages_assistant_message_param.additional_properties = d
        return messages_assistant_message_param

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
