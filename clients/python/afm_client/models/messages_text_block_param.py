from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.messages_text_block_param_type import MessagesTextBlockParamType
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.messages_cache_control_type_0 import MessagesCacheControlType0


T = TypeVar("T", bound="MessagesTextBlockParam")


@_attrs_define
class MessagesTextBlockParam:
    """
    Attributes:
        type_ (MessagesTextBlockParamType):
        text (str):
        cache_control (MessagesCacheControlType0 | None | Unset): Prompt-caching breakpoint; accepted and ignored (the
            prefix cache needs no hints).
    """

    type_: MessagesTextBlockParamType
    text: str
    cache_control: MessagesCacheControlType0 | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.messages_cache_control_type_0 import MessagesCacheControlType0  # noqa: PLC0415

        type_ = self.type_.value

        text = self.text

        cache_control: dict[str, Any] | None | Unset
        if isinstance(self.cache_control, Unset):
            cache_control = UNSET
        elif isinstance(self.cache_control, MessagesCacheControlType0):
            cache_control = self.cache_control.to_dict()
        else:
            cache_control = self.cache_control

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "type": type_,
                "text": text,
            }
        )
        if cache_control is not UNSET:
            field_dict["cache_control"] = cache_control

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.messages_cache_control_type_0 import MessagesCacheControlType0  # noqa: PLC0415

        d = dict(src_dict)
        type_ = MessagesTextBlockParamType(d.pop("type"))

        text = d.pop("text")

        def _parse_cache_control(data: object) -> MessagesCacheControlType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_messages_cache_control_type_0 = MessagesCacheControlType0.from_dict(data)

                return componentsschemas_messages_cache_control_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(MessagesCacheControlType0 | None | Unset, data)

        cache_control = _parse_cache_control(d.pop("cache_control", UNSET))

        messages_text_block_param = cls(
            type_=type_,
            text=text,
            cache_control=cache_control,
        )

        messages_text_block_param.additional_properties = d
        return messages_text_block_param

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
