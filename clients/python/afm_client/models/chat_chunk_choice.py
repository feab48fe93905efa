from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.chat_chunk_choice_finish_reason_type_1 import ChatChunkChoiceFinishReasonType1
from ..models.chat_chunk_choice_finish_reason_type_2_type_1 import ChatChunkChoiceFinishReasonType2Type1
from ..models.chat_chunk_choice_finish_reason_type_3_type_1 import ChatChunkChoiceFinishReasonType3Type1
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.chat_delta import ChatDelta
    from ..models.choice_logprobs_type_0 import ChoiceLogprobsType0


T = TypeVar("T", bound="ChatChunkChoice")


@_attrs_define
class ChatChunkChoice:
    """
    Attributes:
        index (int):
        delta (ChatDelta): The new part of the assistant message.
        finish_reason (ChatChunkChoiceFinishReasonType1 | ChatChunkChoiceFinishReasonType2Type1 |
            ChatChunkChoiceFinishReasonType3Type1 | None): Null until the finish chunk.
        logprobs (ChoiceLogprobsType0 | None | Unset):
    """

    index: int
    delta: ChatDelta
    finish_reason: (
        ChatChunkChoiceFinishReasonType1
        | ChatChunkChoiceFinishReasonType2Type1
        | ChatChunkChoiceFinishReasonType3Type1
        | None
    )
    logprobs: ChoiceLogprobsType0 | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.choice_logprobs_type_0 import ChoiceLogprobsType0  # noqa: PLC0415

        index = self.index

        delta = self.delta.to_dict()

        finish_reason: None | str
        if isinstance(self.finish_reason, ChatChunkChoiceFinishReasonType1):
            finish_reason = self.finish_reason.value
        elif isinstance(self.finish_reason, ChatChunkChoiceFinishReasonType2Type1):
            finish_reason = self.finish_reason.value
        elif isinstance(self.finish_reason, ChatChunkChoiceFinishReasonType3Type1):
            finish_reason = self.finish_reason.value
        else:
            finish_reason = self.finish_reason

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
                "delta": delta,
                "finish_reason": finish_reason,
            }
        )
        if logprobs is not UNSET:
            field_dict["logprobs"] = logprobs

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.chat_delta import ChatDelta  # noqa: PLC0415
        from ..models.choice_logprobs_type_0 import ChoiceLogprobsType0  # noqa: PLC0415

        d = dict(src_dict)
        index = d.pop("index")

        delta = ChatDelta.from_dict(d.pop("delta"))

        def _parse_finish_reason(
            data: object,
        ) -> (
            ChatChunkChoiceFinishReasonType1
            | ChatChunkChoiceFinishReasonType2Type1
            | ChatChunkChoiceFinishReasonType3Type1
            | None
        ):
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                finish_reason_type_1 = ChatChunkChoiceFinishReasonType1(data)

                return finish_reason_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, str):
                    raise TypeError()
                finish_reason_type_2_type_1 = ChatChunkChoiceFinishReasonType2Type1(data)

                return finish_reason_type_2_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, str):
                    raise TypeError()
                finish_reason_type_3_type_1 = ChatChunkChoiceFinishReasonType3Type1(data)

                return finish_reason_type_3_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(
                ChatChunkChoiceFinishReasonType1
                | ChatChunkChoiceFinishReasonType2Type1
                | ChatChunkChoiceFinishReasonType3Type1
                | None,
                data,
            )

        finish_reason = _parse_finish_reason(d.pop("finish_reason"))

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

        chat_chunk_choice = cls(
            index=index,
            delta=delta,
            finish_reason=finish_reason,
            logprobs=logprobs,
        )

        chat_chunk_choice.additional_properties = d
        return chat_chunk_choice

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
