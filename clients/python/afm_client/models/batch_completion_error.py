from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.batch_completion_error_object import BatchCompletionErrorObject

if TYPE_CHECKING:
    from ..models.error_detail import ErrorDetail


T = TypeVar("T", bound="BatchCompletionError")


@_attrs_define
class BatchCompletionError:
    """`/v1/batch/completions`: the event of one request that failed; the others go on.

    Attributes:
        custom_id (str):
        object_ (BatchCompletionErrorObject):
        status_code (int): The HTTP status the request alone would have had.
        error (ErrorDetail):
    """

    custom_id: str
    object_: BatchCompletionErrorObject
    status_code: int
    error: ErrorDetail
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        custom_id = self.custom_id

        object_ = self.object_.value

        status_code = self.status_code

        error = self.error.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "custom_id": custom_id,
                "object": object_,
                "status_code": status_code,
                "error": error,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.error_detail import ErrorDetail  # noqa: PLC0415

        d = dict(src_dict)
        custom_id = d.pop("custom_id")

        object_ = BatchCompletionErrorObject(d.pop("object"))

        status_code = d.pop("status_code")

        error = ErrorDetail.from_dict(d.pop("error"))

        batch_completion_error = cls(
            custom_id=custom_id,
            object_=object_,
            status_code=status_code,
            error=error,
        )

        batch_completion_error.additional_properties = d
        return batch_completion_error

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
