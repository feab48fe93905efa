from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.embedding_request_encoding_format import EmbeddingRequestEncodingFormat
from ..types import UNSET, Unset

T = TypeVar("T", bound="EmbeddingRequest")


@_attrs_define
class EmbeddingRequest:
    """
    Attributes:
        input_ (list[int] | list[list[int]] | list[str] | str): A string, a list of strings, a list of token ids, or a
            list of token-id lists. Empty
            or blank inputs are invalid; token ids outside the model's vocabulary get 400.
        model (str | Unset): An embedding model id from /v1/models; unknown -> 404. Defaults to the built-in model.
        encoding_format (EmbeddingRequestEncodingFormat | Unset):  Default: EmbeddingRequestEncodingFormat.FLOAT.
        dimensions (int | Unset): Truncate to this many dimensions, then L2-normalise.
        user (str | Unset):
    """

    input_: list[int] | list[list[int]] | list[str] | str
    model: str | Unset = UNSET
    encoding_format: EmbeddingRequestEncodingFormat | Unset = EmbeddingRequestEncodingFormat.FLOAT
    dimensions: int | Unset = UNSET
    user: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        input_: list[int] | list[list[int]] | list[str] | str
        if isinstance(self.input_, list):
            input_ = self.input_

        elif isinstance(self.input_, list):
            input_ = self.input_

        elif isinstance(self.input_, list):
            input_ = []
            for input_type_3_item_data in self.input_:
                input_type_3_item = input_type_3_item_data

                input_.append(input_type_3_item)

        else:
            input_ = self.input_

        model = self.model

        encoding_format: str | Unset = UNSET
        if not isinstance(self.encoding_format, Unset):
            encoding_format = self.encoding_format.value

        dimensions = self.dimensions

        user = self.user

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "input": input_,
            }
        )
        if model is not UNSET:
            field_dict["model"] = model
        if encoding_format is not UNSET:
            field_dict["encoding_format"] = encoding_format
        if dimensions is not UNSET:
            field_dict["dimensions"] = dimensions
        if user is not UNSET:
            field_dict["user"] = user

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_input_(data: object) -> list[int] | list[list[int]] | list[str] | str:
            try:
                if not isinstance(data, list):
                    raise TypeError()
                input_type_1 = cast(list[str], data)

                return input_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, list):
                    raise TypeError()
                input_type_2 = cast(list[int], data)

                return input_type_2
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, list):
                    raise TypeError()
                input_type_3 = []
                _input_type_3 = data
                for input_type_3_item_data in _input_type_3:
                    input_type_3_item = cast(list[int], input_type_3_item_data)

                    input_type_3.append(input_type_3_item)

                return input_type_3
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[int] | list[list[int]] | list[str] | str, data)

        input_ = _parse_input_(d.pop("input"))

        model = d.pop("model", UNSET)

        _encoding_format = d.pop("encoding_format", UNSET)
        encoding_format: EmbeddingRequestEncodingFormat | Unset
        if isinstance(_encoding_format, Unset):
            encoding_format = UNSET
        else:
            encoding_format = EmbeddingRequestEncodingFormat(_encoding_format)

        dimensions = d.pop("dimensions", UNSET)

        user = d.pop("user", UNSET)

        embedding_request = cls(
            input_=input_,
            model=model,
            encoding_format=encoding_format,
            dimensions=dimensions,
            user=user,
        )

        embedding_request.additional_properties = d
        return embedding_request

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
