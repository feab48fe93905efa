from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.user_message_role import UserMessageRole
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.audio_content_part import AudioContentPart
    from ..models.image_content_part import ImageContentPart
    from ..models.text_content_part import TextContentPart


T = TypeVar("T", bound="UserMessage")


@_attrs_define
class UserMessage:
    """A user message.

    Attributes:
        role (UserMessageRole):
        content (list[AudioContentPart | ImageContentPart | TextContentPart] | str): Text, or an array of content parts.
        name (None | str | Unset):
    """

    role: UserMessageRole
    content: list[AudioContentPart | ImageContentPart | TextContentPart] | str
    name: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.image_content_part import ImageContentPart  # noqa: PLC0415
        from ..models.text_content_part import TextContentPart  # noqa: PLC0415

        role = self.role.value

        content: list[dict[str, Any]] | str
        if isinstance(self.content, list):
            content = []
            for componentsschemas_message_content_type_1_item_data in self.content:
                componentsschemas_message_content_type_1_item: dict[str, Any]
                if isinstance(componentsschemas_message_content_type_1_item_data, TextContentPart):
                    componentsschemas_message_content_type_1_item = (
                        componentsschemas_message_content_type_1_item_data.to_dict()
                    )
                elif isinstance(componentsschemas_message_content_type_1_item_data, ImageContentPart):
                    componentsschemas_message_content_type_1_item = (
                        componentsschemas_message_content_type_1_item_data.to_dict()
                    )
                else:
                    componentsschemas_message_content_type_1_item = (
                        componentsschemas_message_content_type_1_item_data.to_dict()
                    )

                content.append(componentsschemas_message_content_type_1_item)

        else:
            content = self.content

        name: None | str | Unset
        if isinstance(self.name, Unset):
            name = UNSET
        else:
            name = self.name

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "role": role,
                "content": content,
            }
        )
        if name is not UNSET:
            field_dict["name"] = name

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.audio_content_part import AudioContentPart  # noqa: PLC0415
        from ..models.image_content_part import ImageContentPart  # noqa: PLC0415
        from ..models.text_content_part import TextContentPart  # noqa: PLC0415

        d = dict(src_dict)
        role = UserMessageRole(d.pop("role"))

        def _parse_content(data: object) -> list[AudioContentPart | ImageContentPart | TextContentPart] | str:
            try:
                if not isinstance(data, list):
                    raise TypeError()
                componentsschemas_message_content_type_1 = []
                _componentsschemas_message_content_type_1 = data
                for componentsschemas_message_content_type_1_item_data in _componentsschemas_message_content_type_1:

                    def _parse_componentsschemas_message_content_type_1_item(
                        data: object,
                    ) -> AudioContentPart | ImageContentPart | TextContentPart:
                        try:
                            if not isinstance(data, dict):
                                raise TypeError()
                            componentsschemas_content_part_type_0 = TextContentPart.from_dict(data)

                            return componentsschemas_content_part_type_0
                        except (TypeError, ValueError, AttributeError, KeyError):
                            pass
                        try:
                            if not isinstance(data, dict):
                                raise TypeError()
                            componentsschemas_content_part_type_1 = ImageContentPart.from_dict(data)

                            return componentsschemas_content_part_type_1
                        except (TypeError, ValueError, AttributeError, KeyError):
                            pass
                        if not isinstance(data, dict):
                            raise TypeError()
                        componentsschemas_content_part_type_2 = AudioContentPart.from_dict(data)

                        return componentsschemas_content_part_type_2

                    componentsschemas_message_content_type_1_item = (
                        _parse_componentsschemas_message_content_type_1_item(
                            componentsschemas_message_content_type_1_item_data
                        )
                    )

                    componentsschemas_message_content_type_1.append(componentsschemas_message_content_type_1_item)

                return componentsschemas_message_content_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[AudioContentPart | ImageContentPart | TextContentPart] | str, data)

        content = _parse_content(d.pop("content"))

        def _parse_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        name = _parse_name(d.pop("name", UNSET))

        user_message = cls(
            role=role,
            content=content,
            name=name,
        )

        user_message.additional_properties = d
        return user_message

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
