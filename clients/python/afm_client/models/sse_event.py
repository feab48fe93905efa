from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="SSEEvent")


@_attrs_define
class SSEEvent:
    """One server-sent event. `data` holds a JSON chunk (`chat.completion.chunk`,
    `text_completion`, `batch.error`) or the literal `[DONE]` that ends the stream. OpenAPI
    3.0 cannot type the JSON inside a string, so each `text/event-stream` media type names
    the schema of its chunks in the `x-afm-event-data` extension (`ChatCompletionChunk`,
    `CompletionChunk`, `BatchCompletionError`); the contract tests validate every event
    against it.

        Attributes:
            data (str):
    """

    data: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        data = self.data

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "data": data,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        data = d.pop("data")

        sse_event = cls(
            data=data,
        )

        sse_event.additional_properties = d
        return sse_event

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
