from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.create_batch_request_completion_window import CreateBatchRequestCompletionWindow
from ..models.create_batch_request_endpoint import CreateBatchRequestEndpoint
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.create_batch_request_metadata_type_0 import CreateBatchRequestMetadataType0


T = TypeVar("T", bound="CreateBatchRequest")


@_attrs_define
class CreateBatchRequest:
    """
    Attributes:
        input_file_id (str):
        endpoint (CreateBatchRequestEndpoint):
        completion_window (CreateBatchRequestCompletionWindow):
        metadata (CreateBatchRequestMetadataType0 | None | Unset):
    """

    input_file_id: str
    endpoint: CreateBatchRequestEndpoint
    completion_window: CreateBatchRequestCompletionWindow
    metadata: CreateBatchRequestMetadataType0 | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.create_batch_request_metadata_type_0 import CreateBatchRequestMetadataType0  # noqa: PLC0415

        input_file_id = self.input_file_id

        endpoint = self.endpoint.value

        completion_window = self.completion_window.value

        metadata: dict[str, Any] | None | Unset
        if isinstance(self.metadata, Unset):
            metadata = UNSET
        elif isinstance(self.metadata, CreateBatchRequestMetadataType0):
            metadata = self.metadata.to_dict()
        else:
            metadata = self.metadata

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "input_file_id": input_file_id,
                "endpoint": endpoint,
                "completion_window": completion_window,
            }
        )
        if metadata is not UNSET:
            field_dict["metadata"] = metadata

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.create_batch_request_metadata_type_0 import CreateBatchRequestMetadataType0  # noqa: PLC0415

        d = dict(src_dict)
        input_file_id = d.pop("input_file_id")

        endpoint = CreateBatchRequestEndpoint(d.pop("endpoint"))

        completion_window = CreateBatchRequestCompletionWindow(d.pop("completion_window"))

        def _parse_metadata(data: object) -> CreateBatchRequestMetadataType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                metadata_type_0 = CreateBatchRequestMetadataType0.from_dict(data)

                return metadata_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CreateBatchRequestMetadataType0 | None | Unset, data)

        metadata = _parse_metadata(d.pop("metadata", UNSET))

        create_batch_request = cls(
            input_file_id=input_file_id,
            endpoint=endpoint,
            completion_window=completion_window,
            metadata=metadata,
        )

        create_batch_request.additional_properties = d
        return create_batch_request

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
