from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.messages_content_block_delta_event_type import MessagesContentBlockDeltaEventType

if TYPE_CHECKING:
    from ..models.messages_input_json_delta import MessagesInputJsonDelta
    from ..models.messages_signature_delta import MessagesSignatureDelta
    from ..models.messages_text_delta import MessagesTextDelta
    from ..models.messages_thinking_delta import MessagesThinkingDelta


T = TypeVar("T", bound="MessagesContentBlockDeltaEvent")


@_attrs_define
class MessagesContentBlockDeltaEvent:
    """
    Attributes:
        type_ (MessagesContentBlockDeltaEventType):
        index (int):
        delta (MessagesInputJsonDelta | MessagesSignatureDelta | MessagesTextDelta | MessagesThinkingDelta):
    """

    type_: MessagesContentBlockDeltaEventType
    index: int
    delta: MessagesInputJsonDelta | MessagesSignatureDelta | MessagesTextDelta | MessagesThinkingDelta
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.messages_input_json_delta import MessagesInputJsonDelta  # noqa: PLC0415
        from ..models.messages_text_delta import MessagesTextDelta  # noqa: PLC0415
        from ..models.messages_thinking_delta import MessagesThinkingDelta  # noqa: PLC0415

        type_ = self.type_.value

        index = self.index

        delta: dict[str, Any]
        if isinstance(self.delta, MessagesTextDelta):
            delta = self.delta.to_dict()
        elif isinstance(self.delta, MessagesInputJsonDelta):
            delta = self.delta.to_dict()
        elif isinstance(self.delta, MessagesThinkingDelta):
            delta = self.delta.to_dict()
        else:
            delta = self.delta.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "type": type_,
                "index": index,
                "delta": delta,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.messages_input_json_delta import MessagesInputJsonDelta  # noqa: PLC0415
        from ..models.messages_signature_delta import MessagesSignatureDelta  # noqa: PLC0415
        from ..models.messages_text_delta import MessagesTextDelta  # noqa: PLC0415
        from ..models.messages_thinking_delta import MessagesThinkingDelta  # noqa: PLC0415

        d = dict(src_dict)
        type_ = MessagesContentBlockDeltaEventType(d.pop("type"))

        index = d.pop("index")

        def _parse_delta(
            data: object,
        ) -> MessagesInputJsonDelta | MessagesSignatureDelta | MessagesTextDelta | MessagesThinkingDelta:
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_messages_block_delta_type_0 = MessagesTextDelta.from_dict(data)

                return componentsschemas_messages_block_delta_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_messages_block_delta_type_1 = MessagesInputJsonDelta.from_dict(data)

                return componentsschemas_messages_block_delta_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_messages_block_delta_type_2 = MessagesThinkingDelta.from_dict(data)

                return componentsschemas_messages_block_delta_type_2
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            componentsschemas_messages_block_delta_type_3 = MessagesSignatureDelta.from_dict(data)

            return componentsschemas_messages_block_delta_type_3

        delta = _parse_delta(d.pop("delta"))

        messages_content_block_delta_event = cls(
            type_=type_,
            index=index,
            delta=delta,
        )

        messages_content_block_delta_event.additional_properties = d
        return messages_content_block_delta_event

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
