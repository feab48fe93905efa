from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.response_reasoning_input_item_type import ResponseReasoningInputItemType
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.response_other_content_part import ResponseOtherContentPart
    from ..models.response_text_content_part import ResponseTextContentPart


T = TypeVar("T", bound="ResponseReasoningInputItem")


@_attrs_define
class ResponseReasoningInputItem:
    """Earlier reasoning, as text or as `encrypted_content` this server sealed.

    Attributes:
        type_ (ResponseReasoningInputItemType):
        id (None | str | Unset):
        status (None | str | Unset):
        content (list[ResponseOtherContentPart | ResponseTextContentPart] | str | Unset):
        summary (list[ResponseOtherContentPart | ResponseTextContentPart] | Unset):
        encrypted_content (None | str | Unset):
    """

    type_: ResponseReasoningInputItemType
    id: None | str | Unset = UNSET
    status: None | str | Unset = UNSET
    content: list[ResponseOtherContentPart | ResponseTextContentPart] | str | Unset = UNSET
    summary: list[ResponseOtherContentPart | ResponseTextContentPart] | Unset = UNSET
    encrypted_content: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.response_text_content_part import ResponseTextContentPart  # noqa: PLC0415

        type_ = self.type_.value

        id: None | str | Unset
        if isinstance(self.id, Unset):
            id = UNSET
        else:
            id = self.id

        status: None | str | Unset
        if isinstance(self.status, Unset):
            status = UNSET
        else:
            status = self.status

        content: list[dict[str, Any]] | str | Unset
        if isinstance(self.content, Unset):
            content = UNSET
        elif isinstance(self.content, list):
            content = []
            for content_type_1_item_data in self.content:
                content_type_1_item: dict[str, Any]
                if isinstance(content_type_1_item_data, ResponseTextContentPart):
                    content_type_1_item = content_type_1_item_data.to_dict()
                else:
                    content_type_1_item = content_type_1_item_data.to_dict()

                content.append(content_type_1_item)

        else:
            content = self.content

        summary: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.summary, Unset):
            summary = []
            for summary_item_data in self.summary:
                summary_item: dict[str, Any]
                if isinstance(summary_item_data, ResponseTextContentPart):
                    summary_item = summary_item_data.to_dict()
                else:
                    summary_item = summary_item_data.to_dict()

                summary.append(summary_item)

        encrypted_content: None | str | Unset
        if isinstance(self.encrypted_content, Unset):
            encrypted_content = UNSET
        else:
            encrypted_content = self.encrypted_content

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "type": type_,
            }
        )
        if id is not UNSET:
            field_dict["id"] = id
        if status is not UNSET:
            field_dict["status"] = status
        if content is not UNSET:
            field_dict["content"] = content
        if summary is not UNSET:
            field_dict["summary"] = summary
        if encrypted_content is not UNSET:
            field_dict["encrypted_content"] = encrypted_content

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.response_other_content_part import ResponseOtherContentPart  # noqa: PLC0415
        from ..models.response_text_content_part import ResponseTextContentPart  # noqa: PLC0415

        d = dict(src_dict)
        type_ = ResponseReasoningInputItemType(d.pop("type"))

        def _parse_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        id = _parse_id(d.pop("id", UNSET))

        def _parse_status(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        status = _parse_status(d.pop("status", UNSET))

        def _parse_content(data: object) -> list[ResponseOtherContentPart | ResponseTextContentPart] | str | Unset:
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                content_type_1 = []
                _content_type_1 = data
                for content_type_1_item_data in _content_type_1:

                    def _parse_content_type_1_item(data: object) -> ResponseOtherContentPart | ResponseTextContentPart:
                        try:
                            if not isinstance(data, dict):
                                raise TypeError()
                            componentsschemas_response_content_part_type_0 = ResponseTextContentPart.from_dict(data)

                            return componentsschemas_response_content_part_type_0
                        except (TypeError, ValueError, AttributeError, KeyError):
                            pass
                        if not isinstance(data, dict):
                            raise TypeError()
                        componentsschemas_response_content_part_type_1 = ResponseOtherContentPart.from_dict(data)

                        return componentsschemas_response_content_part_type_1

                    content_type_1_item = _parse_content_type_1_item(content_type_1_item_data)

                    content_type_1.append(content_type_1_item)

                return content_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[ResponseOtherContentPart | ResponseTextContentPart] | str | Unset, data)

        content = _parse_content(d.pop("content", UNSET))

        _summary = d.pop("summary", UNSET)
        summary: list[ResponseOtherContentPart | ResponseTextContentPart] | Unset = UNSET
        if _summary is not UNSET:
            summary = []
            for summary_item_data in _summary:

                def _parse_summary_item(data: object) -> ResponseOtherContentPart | ResponseTextContentPart:
                    try:
                        if not isinstance(data, dict):
                            raise TypeError()
                        componentsschemas_response_content_part_type_0 = ResponseTextContentPart.from_dict(data)

                        return componentsschemas_response_content_part_type_0
                    except (TypeError, ValueError, AttributeError, KeyError):
                        pass
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_response_content_part_type_1 = ResponseOtherContentPart.from_dict(data)

                    return componentsschemas_response_content_part_type_1

                summary_item = _parse_summary_item(summary_item_data)

                summary.append(summary_item)

        def _parse_encrypted_content(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        encrypted_content = _parse_encrypted_content(d.pop("encrypted_content", UNSET))

        response_reasoning_input_item = cls(
            type_=type_,
            id=id,
            status=status,
            content=content,
            summary=summary,
            encrypted_content=encrypted_content,
        )

        response_reasoning_input_item.additional_properties = d
        return response_reasoning_input_item

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
