from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.messages_output_config_type_0_effort_type_1 import MessagesOutputConfigType0EffortType1
from ..models.messages_output_config_type_0_effort_type_2_type_1 import MessagesOutputConfigType0EffortType2Type1
from ..models.messages_output_config_type_0_effort_type_3_type_1 import MessagesOutputConfigType0EffortType3Type1
from ..types import UNSET, Unset

T = TypeVar("T", bound="MessagesOutputConfigType0")


@_attrs_define
class MessagesOutputConfigType0:
    """Output settings; `effort` maps to the template's reasoning effort.

    Attributes:
        effort (MessagesOutputConfigType0EffortType1 | MessagesOutputConfigType0EffortType2Type1 |
            MessagesOutputConfigType0EffortType3Type1 | None | Unset):
    """

    effort: (
        MessagesOutputConfigType0EffortType1
        | MessagesOutputConfigType0EffortType2Type1
        | MessagesOutputConfigType0EffortType3Type1
        | None
        | Unset
    ) = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        effort: None | str | Unset
        if isinstance(self.effort, Unset):
            effort = UNSET
        elif isinstance(self.effort, MessagesOutputConfigType0EffortType1):
            effort = self.effort.value
        elif isinstance(self.effort, MessagesOutputConfigType0EffortType2Type1):
            effort = self.effort.value
        elif isinstance(self.effort, MessagesOutputConfigType0EffortType3Type1):
            effort = self.effort.value
        else:
            effort = self.effort

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if effort is not UNSET:
            field_dict["effort"] = effort

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_effort(
            data: object,
        ) -> (
            MessagesOutputConfigType0EffortType1
            | MessagesOutputConfigType0EffortType2Type1
            | MessagesOutputConfigType0EffortType3Type1
            | None
            | Unset
        ):
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                effort_type_1 = MessagesOutputConfigType0EffortType1(data)

                return effort_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, str):
                    raise TypeError()
                effort_type_2_type_1 = MessagesOutputConfigType0EffortType2Type1(data)

                return effort_type_2_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, str):
                    raise TypeError()
                effort_type_3_type_1 = MessagesOutputConfigType0EffortType3Type1(data)

                return effort_type_3_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(
                MessagesOutputConfigType0EffortType1
                | MessagesOutputConfigType0EffortType2Type1
                | MessagesOutputConfigType0EffortType3Type1
                | None
                | Unset,
                data,
            )

        effort = _parse_effort(d.pop("effort", UNSET))

        messages_output_config_type_0 = cls(
            effort=effort,
        )

        messages_output_config_type_0.additional_properties = d
        return messages_output_config_type_0

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
