from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.completion_choice_finish_reason_type_1 import CompletionChoiceFinishReasonType1
from ..models.completion_choice_finish_reason_type_2_type_1 import CompletionChoiceFinishReasonType2Type1
from ..models.completion_choice_finish_reason_type_3_type_1 import CompletionChoiceFinishReasonType3Type1
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.completion_logprobs_type_0 import CompletionLogprobsType0


T = TypeVar("T", bound="CompletionChoice")


@_attrs_define
class CompletionChoice:
    """
    Attributes:
        index (int):
        text (str):
        finish_reason (CompletionChoiceFinishReasonType1 | CompletionChoiceFinishReasonType2Type1 |
            CompletionChoiceFinishReasonType3Type1 | None):
        logprobs (CompletionLogprobsType0 | None | Unset):
    """

    index: int
    text: str
    finish_reason: (
        CompletionChoiceFinishReasonType1
        | CompletionChoiceFinishReasonType2Type1
        | CompletionChoiceFinishReasonType3Type1
        | None
    )
    logprobs: CompletionLogprobsType0 | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.completion_logprobs_type_0 import CompletionLogprobsType0  # noqa: PLC0415

        index = self.index

        text = self.text

        finish_reason: None | str
        if isinstance(self.finish_reason, CompletionChoiceFinishReasonType1):
            finish_reason = self.finish_reason.value
        elif isinstance(self.finish_reason, CompletionChoiceFinishReasonType2Type1):
            finish_reason = self.finish_reason.value
        elif isinstance(self.finish_reason, CompletionChoiceFinishReasonType3Type1):
            finish_reason = self.finish_reason.value
        else:
            finish_reason = self.finish_reason

        logprobs: dict[str, Any] | None | Unset
        if isinstance(self.logprobs, Unset):
            logprobs = UNSET
        elif isinstance(self.logprobs, CompletionLogprobsType0):
            logprobs = self.logprobs.to_dict()
        else:
            logprobs = self.logprobs

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "index": index,
                "text": text,
                "finish_reason": finish_reason,
            }
        )
        if logprobs is not UNSET:
            field_dict["logprobs"] = logprobs

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.completion_logprobs_type_0 import CompletionLogprobsType0  # noqa: PLC0415

        d = dict(src_dict)
        index = d.pop("index")

        text = d.pop("text")

        def _parse_finish_reason(
            data: object,
        ) -> (
            CompletionChoiceFinishReasonType1
            | CompletionChoiceFinishReasonType2Type1
            | CompletionChoiceFinishReasonType3Type1
            | None
        ):
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                finish_reason_type_1 = CompletionChoiceFinishReasonType1(data)

                return finish_reason_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, str):
                    raise TypeError()
                finish_reason_type_2_type_1 = CompletionChoiceFinishReasonType2Type1(data)

                return finish_reason_type_2_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, str):
                    raise TypeError()
                finish_reason_type_3_type_1 = CompletionChoiceFinishReasonType3Type1(data)

                return finish_reason_type_3_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(
                CompletionChoiceFinishReasonType1
                | CompletionChoiceFinishReasonType2Type1
                | CompletionChoiceFinishReasonType3Type1
                | None,
                data,
            )

        finish_reason = _parse_finish_reason(d.pop("finish_reason"))

        def _parse_logprobs(data: object) -> CompletionLogprobsType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_completion_logprobs_type_0 = CompletionLogprobsType0.from_dict(data)

                return componentsschemas_completion_logprobs_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CompletionLogprobsType0 | None | Unset, data)

        logprobs = _parse_logprobs(d.pop("logprobs", UNSET))

        completion_choice = cls(
            index=index,
            text=text,
            finish_reason=finish_reason,
            logprobs=logprobs,
        )

        completion_choice.additional_properties = d
        return completion_choice

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
