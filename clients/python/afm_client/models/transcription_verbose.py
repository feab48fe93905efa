from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.transcription_verbose_task import TranscriptionVerboseTask
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.transcription_segment import TranscriptionSegment
    from ..models.transcription_usage import TranscriptionUsage
    from ..models.transcription_word import TranscriptionWord


T = TypeVar("T", bound="TranscriptionVerbose")


@_attrs_define
class TranscriptionVerbose:
    """
    Attributes:
        task (TranscriptionVerboseTask):
        language (str):
        duration (float): Seconds of input audio.
        text (str):
        segments (list[TranscriptionSegment]):
        words (list[TranscriptionWord] | Unset):
        usage (TranscriptionUsage | Unset):
    """

    task: TranscriptionVerboseTask
    language: str
    duration: float
    text: str
    segments: list[TranscriptionSegment]
    words: list[TranscriptionWord] | Unset = UNSET
    usage: TranscriptionUsage | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        task = self.task.value

        language = self.language

        duration = self.duration

        text = self.text

        segments = []
        for segments_item_data in self.segments:
            segments_item = segments_item_data.to_dict()
            segments.append(segments_item)

        words: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.words, Unset):
            words = []
            for words_item_data in self.words:
                words_item = words_item_data.to_dict()
                words.append(words_item)

        usage: dict[str, Any] | Unset = UNSET
        if not isinstance(self.usage, Unset):
            usage = self.usage.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "task": task,
                "language": language,
                "duration": duration,
                "text": text,
                "segments": segments,
            }
        )
        if words is not UNSET:
            field_dict["words"] = words
        if usage is not UNSET:
            field_dict["usage"] = usage

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.transcription_segment import TranscriptionSegment  # noqa: PLC0415
        from ..models.transcription_usage import TranscriptionUsage  # noqa: PLC0415
        from ..models.transcription_word import TranscriptionWord  # noqa: PLC0415

        d = dict(src_dict)
        task = TranscriptionVerboseTask(d.pop("task"))

        language = d.pop("language")

        duration = d.pop("duration")

        text = d.pop("text")

        segments = []
        _segments = d.pop("segments")
        for segments_item_data in _segments:
            segments_item = TranscriptionSegment.from_dict(segments_item_data)

            segments.append(segments_item)

        _words = d.pop("words", UNSET)
        words: list[TranscriptionWord] | Unset = UNSET
        if _words is not UNSET:
            words = []
            for words_item_data in _words:
                words_item = TranscriptionWord.from_dict(words_item_data)

                words.append(words_item)

        _usage = d.pop("usage", UNSET)
        usage: TranscriptionUsage | Unset
        if isinstance(_usage, Unset):
            usage = UNSET
        else:
            usage = TranscriptionUsage.from_dict(_usage)

        transcription_verbose = cls(
            task=task,
            language=language,
            duration=duration,
            text=text,
            segments=segments,
            words=words,
            usage=usage,
        )

        transcription_verbose.additional_properties = d
        return transcription_verbose

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
