from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.finish_reason import FinishReason
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.assistant_message import AssistantMessage
    from ..models.choice_logprobs_type_0 import ChoiceLogprobsType0


T = TypeVar("T", bound="ChatChoice")


@_attrs_define
class ChatChoice:
    """
    Attributes:
        index (int):
        message (AssistantMessage):
        finish_reason (FinishReason):
        logprobs (ChoiceLogprobsType0 | None | Unset):
    """

    index: int
    message: AssistantMessage
    finish_reason: FinishReason
    logprobs: ChoiceLogprobsType0 | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.choice_logprobs_type_0 import ChoiceLogprobsType0  # noqa: PLC0415

        index = self.index

        message = self.message.to_dict()

        finish_reason = self.finish_reason.value

        logprobs: dict[str, Any] | None | Unset
        if isinstance(self.logprobs, Unset):
            logprobs = UNSET
        elif isinstance(self.logprobs, ChoiceLogprobsType0):
            logprobs = self.logprobs.to_dict()
        else:
            logprobs = self.logprobs

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "index": index,
                "message": message,
                "finish_reason": finish_reason,
            }
        )
        if logprobs is not UNSET:
            field_dict["logprobs"] = logprobs

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.assistant_message import AssistantMessage  # noqa: PLC0415
        from ..models.choice_logprobs_type_0 import ChoiceLogprobsType0  # noqa: PLC0415

        d = dict(src_dict)
        index = d.pop("index")

        message = AssistantMessage.from_dict(d.pop("message"))

        finish_reason = FinishReason(d.pop("finish_reason"))

        def _parse_logprobs(data: object) -> ChoiceLogprobsType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_choice_logprobs_type_0 = ChoiceLogprobsType0.from_dict(data)

                return componentsschemas_choice_logprobs_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ChoiceLogprobsType0 | None | Unset, data)

        logprobs = _parse_logprobs(d.pop("logprobs", UNSET))

        chat_choice = cls(
            index=index,
            message=message,
            finish_reason=finish_reason,
            logprobs=logprobs,
        )

        chat_choice.additional_properties = d
        return chat_choice

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
