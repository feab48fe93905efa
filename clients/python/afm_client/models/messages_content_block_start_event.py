from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.messages_content_block_start_event_type import MessagesContentBlockStartEventType

if TYPE_CHECKING:
    from ..models.messages_text_block import MessagesTextBlock
    from ..models.messages_thinking_block import MessagesThinkingBlock
    from ..models.messages_tool_use_block import MessagesToolUseBlock


T = TypeVar("T", bound="MessagesContentBlockStartEvent")


@_attrs_define
class MessagesContentBlockStartEvent:
    """
    Attributes:
        type_ (MessagesContentBlockStartEventType):
        index (int):
        content_block (MessagesTextBlock | MessagesThinkingBlock | MessagesToolUseBlock): A response content block, told
            apart by `type`.
    """

    type_: MessagesContentBlockStartEventType
    index: int
    content_block: MessagesTextBlock | MessagesThinkingBlock | MessagesToolUseBlock
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.messages_text_block import MessagesTextBlock  # noqa: PLC0415
        from ..models.messages_thinking_block import MessagesThinkingBlock  # noqa: PLC0415

        type_ = self.type_.value

        index = self.index

        content_block: dict[str, Any]
        if isinstance(self.content_block, MessagesTextBlock):
            content_block = self.content_block.to_dict()
        elif isinstance(self.content_block, MessagesThinkingBlock):
            content_block = self.content_block.to_dict()
        else:
            content_block = self.content_block.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "type": type_,
                "index": index,
                "content_block": content_block,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.messages_text_block import MessagesTextBlock  # noqa: PLC0415
        from ..models.messages_thinking_block import MessagesThinkingBlock  # noqa: PLC0415
        from ..models.messages_tool_use_block import MessagesToolUseBlock  # noqa: PLC0415

        d = dict(src_dict)
        type_ = MessagesContentBlockStartEventType(d.pop("type"))

        index = d.pop("index")

        def _parse_content_block(data: object) -> MessagesTextBlock | MessagesThinkingBlock | MessagesToolUseBlock:
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_messages_content_block_type_0 = MessagesTextBlock.from_dict(data)

                return componentsschemas_messages_content_block_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_messages_content_block_type_1 = MessagesThinkingBlock.from_dict(data)

                return componentsschemas_messages_content_block_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            componentsschemas_messages_content_block_type_2 = MessagesToolUseBlock.from_dict(data)

            return componentsschemas_messages_content_block_type_2

        content_block = _parse_content_block(d.pop("content_block"))

        messages_content_block_start_event = cls(
            type_=type_,
            index=index,
            content_block=content_block,
        )

        messages_content_block_start_event.additional_properties = d
        return messages_content_block_start_event

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
