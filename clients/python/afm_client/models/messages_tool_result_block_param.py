from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.messages_tool_result_block_param_type import MessagesToolResultBlockParamType
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.messages_cache_control_type_0 import MessagesCacheControlType0
    from ..models.messages_text_block_param import MessagesTextBlockParam
    from ..models.messages_tool_reference_block_param import MessagesToolReferenceBlockParam
    from ..models.messages_unsupported_block_param import MessagesUnsupportedBlockParam


T = TypeVar("T", bound="MessagesToolResultBlockParam")


@_attrs_define
class MessagesToolResultBlockParam:
    """The result of a tool call, in a `user` turn.

    Attributes:
        type_ (MessagesToolResultBlockParamType):
        tool_use_id (str):
        content (list[MessagesTextBlockParam | MessagesToolReferenceBlockParam | MessagesUnsupportedBlockParam] | str |
            Unset): Text, or text blocks (other block types get 400 naming the type).
        is_error (bool | Unset): The tool failed; the result is rendered marked as an error.
        cache_control (MessagesCacheControlType0 | None | Unset): Prompt-caching breakpoint; accepted and ignored (the
            prefix cache needs no hints).
    """

    type_: MessagesToolResultBlockParamType
    tool_use_id: str
    content: (
        list[MessagesTextBlockParam | MessagesToolReferenceBlockParam | MessagesUnsupportedBlockParam] | str | Unset
    ) = UNSET
    is_error: bool | Unset = UNSET
    cache_control: MessagesCacheControlType0 | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.messages_cache_control_type_0 import MessagesCacheControlType0  # noqa: PLC0415
        from ..models.messages_text_block_param import MessagesTextBlockParam  # noqa: PLC0415
        from ..models.messages_tool_reference_block_param import MessagesToolReferenceBlockParam  # noqa: PLC0415

        type_ = self.type_.value

        tool_use_id = self.tool_use_id

        content: list[dict[str, Any]] | str | Unset
        if isinstance(self.content, Unset):
            content = UNSET
        elif isinstance(self.content, list):
            content = []
            for content_type_1_item_data in self.content:
                content_type_1_item: dict[str, Any]
                if isinstance(content_type_1_item_data, MessagesTextBlockParam):
                    content_type_1_item = content_type_1_item_data.to_dict()
                elif isinstance(content_type_1_item_data, MessagesToolReferenceBlockParam):
                    content_type_1_item = content_type_1_item_data.to_dict()
                else:
                    content_type_1_item = content_type_1_item_data.to_dict()

                content.append(content_type_1_item)

        else:
            content = self.content

        is_error = self.is_error

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
                "tool_use_id": tool_use_id,
            }
        )
        if content is not UNSET:
            field_dict["content"] = content
        if is_error is not UNSET:
            field_dict["is_error"] = is_error
        if cache_control is not UNSET:
            field_dict["cache_control"] = cache_control

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.messages_cache_control_type_0 import MessagesCacheControlType0  # noqa: PLC0415
        from ..models.messages_text_block_param import MessagesTextBlockParam  # noqa: PLC0415
        from ..models.messages_tool_reference_block_param import MessagesToolReferenceBlockParam  # noqa: PLC0415
        from ..models.messages_unsupported_block_param import MessagesUnsupportedBlockParam  # noqa: PLC0415

        d = dict(src_dict)
        type_ = MessagesToolResultBlockParamType(d.pop("type"))

        tool_use_id = d.pop("tool_use_id")

        def _parse_content(
            data: object,
        ) -> (
            list[MessagesTextBlockParam | MessagesToolReferenceBlockParam | MessagesUnsupportedBlockParam] | str | Unset
        ):
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                content_type_1 = []
                _content_type_1 = data
                for content_type_1_item_data in _content_type_1:

                    def _parse_content_type_1_item(
                        data: object,
                    ) -> MessagesTextBlockParam | MessagesToolReferenceBlockParam | MessagesUnsupportedBlockParam:
                        try:
                            if not isinstance(data, dict):
                                raise TypeError()
                            content_type_1_item_type_0 = MessagesTextBlockParam.from_dict(data)

                            return content_type_1_item_type_0
                        except (TypeError, ValueError, AttributeError, KeyError):
                            pass
                        try:
                            if not isinstance(data, dict):
                                raise TypeError()
                            content_type_1_item_type_1 = MessagesToolReferenceBlockParam.from_dict(data)

                            return content_type_1_item_type_1
                        except (TypeError, ValueError, AttributeError, KeyError):
                            pass
                        if not isinstance(data, dict):
                            raise TypeError()
                        content_type_1_item_type_2 = MessagesUnsupportedBlockParam.from_dict(data)

                        return content_type_1_item_type_2

                    content_type_1_item = _parse_content_type_1_item(content_type_1_item_data)

                    content_type_1.append(content_type_1_item)

                return content_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(
                list[MessagesTextBlockParam | MessagesToolReferenceBlockParam | MessagesUnsupportedBlockParam]
                | str
                | Unset,
                data,
            )

        content = _parse_content(d.pop("content", UNSET))

        is_error = d.pop("is_error", UNSET)

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

        messages_tool_result_block_param = cls(
            type_=type_,
            tool_use_id=tool_use_id,
            content=content,
            is_error=is_error,
            cache_control=cache_control,
        )

        messages_tool_result_block_param.additional_properties = d
        return messages_tool_result_block_param

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
