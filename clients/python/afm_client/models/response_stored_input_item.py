from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.response_stored_input_item_role import ResponseStoredInputItemRole
from ..models.response_stored_input_item_type import ResponseStoredInputItemType
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.response_other_content_part import ResponseOtherContentPart
    from ..models.response_text_content_part import ResponseTextContentPart


T = TypeVar("T", bound="ResponseStoredInputItem")


@_attrs_define
class ResponseStoredInputItem:
    """An input item as stored, with an id (`msg_...`, `fc_...`, `fco_...`, `rs_...`).

    Attributes:
        id (str):
        type_ (ResponseStoredInputItemType):
        status (None | str | Unset):
        role (ResponseStoredInputItemRole | Unset):
        content (list[ResponseOtherContentPart | ResponseTextContentPart] | Unset):
        call_id (str | Unset):
        name (str | Unset):
        namespace (None | str | Unset):
        arguments (str | Unset):
        output (str | Unset):
        summary (list[ResponseOtherContentPart | ResponseTextContentPart] | Unset):
    """

    id: str
    type_: ResponseStoredInputItemType
    status: None | str | Unset = UNSET
    role: ResponseStoredInputItemRole | Unset = UNSET
    content: list[ResponseOtherContentPart | ResponseTextContentPart] | Unset = UNSET
    call_id: str | Unset = UNSET
    name: str | Unset = UNSET
    namespace: None | str | Unset = UNSET
    arguments: str | Unset = UNSET
    output: str | Unset = UNSET
    summary: list[ResponseOtherContentPart | ResponseTextContentPart] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.response_text_content_part import ResponseTextContentPart  # noqa: PLC0415

        id = self.id

        type_ = self.type_.value

        status: None | str | Unset
        if isinstance(self.status, Unset):
            status = UNSET
        else:
            status = self.status

        role: str | Unset = UNSET
        if not isinstance(self.role, Unset):
            role = self.role.value

        content: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.content, Unset):
            content = []
            for content_item_data in self.content:
                content_item: dict[str, Any]
                if isinstance(content_item_data, ResponseTextContentPart):
                    content_item = content_item_data.to_dict()
                else:
                    content_item = content_item_data.to_dict()

                content.append(content_item)

        call_id = self.call_id

        name = self.name

        namespace: None | str | Unset
        if isinstance(self.namespace, Unset):
            namespace = UNSET
        else:
            namespace = self.namespace

        arguments = self.arguments

        output = self.output

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

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "type": type_,
            }
        )
        if status is not UNSET:
            field_dict["status"] = status
        if role is not UNSET:
            field_dict["role"] = role
        if content is not UNSET:
            field_dict["content"] = content
        if call_id is not UNSET:
            field_dict["call_id"] = call_id
        if name is not UNSET:
            field_dict["name"] = name
        if namespace is not UNSET:
            field_dict["namespace"] = namespace
        if arguments is not UNSET:
            field_dict["arguments"] = arguments
        if output is not UNSET:
            field_dict["output"] = output
        if summary is not UNSET:
            field_dict["summary"] = summary

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.response_other_content_part import ResponseOtherContentPart  # noqa: PLC0415
        from ..models.response_text_content_part import ResponseTextContentPart  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        type_ = ResponseStoredInputItemType(d.pop("type"))

        def _parse_status(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        status = _parse_status(d.pop("status", UNSET))

        _role = d.pop("role", UNSET)
        role: ResponseStoredInputItemRole | Unset
        if isinstance(_role, Unset):
            role = UNSET
        else:
            role = ResponseStoredInputItemRole(_role)

        _content = d.pop("content", UNSET)
        content: list[ResponseOtherContentPart | ResponseTextContentPart] | Unset = UNSET
        if _content is not UNSET:
            content = []
            for content_item_data in _content:

                def _parse_content_item(data: object) -> ResponseOtherContentPart | ResponseTextContentPart:
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

                content_item = _parse_content_item(content_item_data)

                content.append(content_item)

        call_id = d.pop("call_id", UNSET)

        name = d.pop("name", UNSET)

        def _parse_namespace(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        namespace = _parse_namespace(d.pop("namespace", UNSET))

        arguments = d.pop("arguments", UNSET)

        output = d.pop("output", UNSET)

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

        response_stored_input_item = cls(
            id=id,
            type_=type_,
            status=status,
            role=role,
            content=content,
            call_id=call_id,
            name=name,
            namespace=namespace,
            arguments=arguments,
            output=output,
            summary=summary,
        )

        response_stored_input_item.additional_properties = d
        return response_stored_input_item

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
