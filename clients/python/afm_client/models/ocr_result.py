from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.ocr_result_lines_item import OcrResultLinesItem


T = TypeVar("T", bound="OcrResult")


@_attrs_define
class OcrResult:
    """
    Attributes:
        text (str):
        lines (list[OcrResultLinesItem] | Unset):
    """

    text: str
    lines: list[OcrResultLinesItem] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        text = self.text

        lines: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.lines, Unset):
            lines = []
            for lines_item_data in self.lines:
                lines_item = lines_item_data.to_dict()
                lines.append(lines_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "text": text,
            }
        )
        if lines is not UNSET:
            field_dict["lines"] = lines

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.ocr_result_lines_item import OcrResultLinesItem  # noqa: PLC0415

        d = dict(src_dict)
        text = d.pop("text")

        _lines = d.pop("lines", UNSET)
        lines: list[OcrResultLinesItem] | Unset = UNSET
        if _lines is not UNSET:
            lines = []
            for lines_item_data in _lines:
                lines_item = OcrResultLinesItem.from_dict(lines_item_data)

                lines.append(lines_item)

        ocr_result = cls(
            text=text,
            lines=lines,
        )

        ocr_result.additional_properties = d
        return ocr_result

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
