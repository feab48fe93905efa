from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.messages_message_role import MessagesMessageRole
from ..models.messages_message_stop_reason_type_1 import MessagesMessageStopReasonType1
from ..models.messages_message_stop_reason_type_2_type_1 import MessagesMessageStopReasonType2Type1
from ..models.messages_message_stop_reason_type_3_type_1 import MessagesMessageStopReasonType3Type1
from ..models.messages_message_type import MessagesMessageType

if TYPE_CHECKING:
    from ..models.messages_text_block import MessagesTextBlock
    from ..models.messages_thinking_block import MessagesThinkingBlock
    from ..models.messages_tool_use_block import MessagesToolUseBlock
    from ..models.messages_usage import MessagesUsage


T = TypeVar("T", bound="MessagesMessage")


@_attrs_define
class MessagesMessage:
    """
    Attributes:
        id (str): `msg_` and 24 hex characters.
        type_ (MessagesMessageType):
        role (MessagesMessageRole):
        content (list[MessagesTextBlock | MessagesThinkingBlock | MessagesToolUseBlock]): `thinking` first when the
            model reasoned, then `text`, then `tool_use` blocks.
        model (str):
        stop_reason (MessagesMessageStopReasonType1 | MessagesMessageStopReasonType2Type1 |
            MessagesMessageStopReasonType3Type1 | None): Null only in `message_start`.
        stop_sequence (None | str): The stop sequence that ended the turn, when `stop_reason` is `stop_sequence`.
        usage (MessagesUsage):
    """

    id: str
    type_: MessagesMessageType
    role: MessagesMessageRole
    content: list[MessagesTextBlock | MessagesThinkingBlock | MessagesToolUseBlock]
    model: str
    stop_reason: (
        MessagesMessageStopReasonType1
        | MessagesMessageStopReasonType2Type1
        | MessagesMessageStopReasonType3Type1
        | None
    )
    stop_sequence: None | str
    usage: MessagesUsage
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.messages_text_block import MessagesTextBlock  # noqa: PLC0415
        from ..models.messages_thinking_block import MessagesThinkingBlock  # noqa: PLC0415

        id = self.id

        type_ = self.type_.value

        role = self.role.value

        content = []
        for content_item_data in self.content:
            content_item: dict[str, Any]
            if isinstance(content_item_data, MessagesTextBlock):
                content_item = content_item_data.to_dict()
            elif isinstance(content_item_data, MessagesThinkingBlock):
                content_item = content_item_data.to_dict()
            else:
                content_item = content_item_data.to_dict()

            content.append(content_item)

        model = self.model

        stop_reason: None | str
        if isinstance(self.stop_reason, MessagesMessageStopReasonType1):
            stop_reason = self.stop_reason.value
        elif isinstance(self.stop_reason, MessagesMessageStopReasonType2Type1):
            stop_reason = self.stop_reason.value
        elif isinstance(self.stop_reason, MessagesMessageStopReasonType3Type1):
            stop_reason = self.stop_reason.value
        else:
            stop_reason = self.stop_reason

        stop_sequence: None | str
        stop_sequence = self.stop_sequence

        usage = self.usage.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "type": type_,
                "role": role,
                "content": content,
                "model": model,
                "stop_reason": stop_reason,
                "stop_sequence": stop_sequence,
                "usage": usage,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.messages_text_block import MessagesTextBlock  # noqa: PLC0415
        from ..models.messages_thinking_block import MessagesThinkingBlock  # noqa: PLC0415
        from ..models.messages_tool_use_block import MessagesToolUseBlock  # noqa: PLC0415
        from ..models.messages_usage import MessagesUsage  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        type_ = MessagesMessageType(d.pop("type"))

        role = MessagesMessageRole(d.pop("role"))

        content = []
        _content = d.pop("content")
        for content_item_data in _content:

            def _parse_content_item(data: object) -> MessagesTextBlock | MessagesThinkingBlock | MessagesToolUseBlock:
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

            content_item = _parse_content_item(content_item_data)

            content.append(content_item)

        model = d.pop("model")

        def _parse_stop_reason(
            data: object,
        ) -> (
            MessagesMessageStopReasonType1
            | MessagesMessageStopReasonType2Type1
            | MessagesMessageStopReasonType3Type1
            | None
        ):
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                stop_reason_type_1 = MessagesMessageStopReasonType1(data)

                return stop_reason_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, str):
                    raise TypeError()
                stop_reason_type_2_type_1 = MessagesMessageStopReasonType2Type1(data)

                return stop_reason_type_2_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, str):
                    raise TypeError()
                stop_reason_type_3_type_1 = MessagesMessageStopReasonType3Type1(data)

                return stop_reason_type_3_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(
                MessagesMessageStopReasonType1
                | MessagesMessageStopReasonType2Type1
                | MessagesMessageStopReasonType3Type1
                | None,
                data,
            )

        stop_reason = _parse_stop_reason(d.pop("stop_reason"))

        def _parse_stop_sequence(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        stop_sequence = _parse_stop_sequence(d.pop("stop_sequence"))

        usage = MessagesUsage.from_dict(d.pop("usage"))

        messages_message = cls(
            id=id,
            type_=type_,
            role=role,
            content=content,
            model=model,
            stop_reason=stop_reason,
            stop_sequence=stop_sequence,
            usage=usage,
        )

        messages_message.additional_properties = d
        return messages_message

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
