from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.response_function_call_output_input_item_type import ResponseFunctionCallOutputInputItemType
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.response_other_content_part import ResponseOtherContentPart
    from ..models.response_text_content_part import ResponseTextContentPart


T = TypeVar("T", bound="ResponseFunctionCallOutputInputItem")


@_attrs_define
class ResponseFunctionCallOutputInputItem:
    """The output of the function call `call_id`.

    Attributes:
        type_ (ResponseFunctionCallOutputInputItemType):
        call_id (str):
        id (None | str | Unset):
        status (None | str | Unset):
        output (list[ResponseOtherContentPart | ResponseTextContentPart] | str | Unset):
    """

    type_: ResponseFunctionCallOutputInputItemType
    call_id: str
    id: None | str | Unset = UNSET
    status: None | str | Unset = UNSET
    output: list[ResponseOtherContentPart | ResponseTextContentPart] | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.response_text_content_part import ResponseTextContentPart  # noqa: PLC0415

        type_ = self.type_.value

        call_id = self.call_id

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

        output: list[dict[str, Any]] | str | Unset
        if isinstance(self.output, Unset):
            output = UNSET
        elif isinstance(self.output, list):
            output = []
            for output_type_1_item_data in self.output:
                output_type_1_item: dict[str, Any]
                if isinstance(output_type_1_item_data, ResponseTextContentPart):
                    output_type_1_item = output_type_1_item_data.to_dict()
                else:
                    output_type_1_item = output_type_1_item_data.to_dict()

                output.append(output_type_1_item)

        else:
            output = self.output

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "type": type_,
                "call_id": call_id,
            }
        )
        if id is not UNSET:
            field_dict["id"] = id
        if status is not UNSET:
            field_dict["status"] = status
        if output is not UNSET:
            field_dict["output"] = output

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.response_other_content_part import ResponseOtherContentPart  # noqa: PLC0415
        from ..models.response_text_content_part import ResponseTextContentPart  # noqa: PLC0415

        d = dict(src_dict)
        type_ = ResponseFunctionCallOutputInputItemType(d.pop("type"))

        call_id = d.pop("call_id")

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

        def _parse_output(data: object) -> list[ResponseOtherContentPart | ResponseTextContentPart] | str | Unset:
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                output_type_1 = []
                _output_type_1 = data
                for output_type_1_item_data in _output_type_1:

                    def _parse_output_type_1_item(data: object) -> ResponseOtherContentPart | ResponseTextContentPart:
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

                    output_type_1_item = _parse_output_type_1_item(output_type_1_item_data)

                    output_type_1.append(output_type_1_item)

                return output_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[ResponseOtherContentPart | ResponseTextContentPart] | str | Unset, data)

        output = _parse_output(d.pop("output", UNSET))

        response_function_call_output_input_item = cls(
            type_=type_,
            call_id=call_id,
            id=id,
            status=status,
            output=output,
        )

        response_function_call_output_input_item.additional_properties = d
        return response_function_call_output_input_item

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
