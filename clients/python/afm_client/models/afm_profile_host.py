from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="AfmProfileHost")


@_attrs_define
class AfmProfileHost:
    """The host that ran the request.

    Attributes:
        platform (str | Unset):
        machine (str | Unset):
        processor (None | str | Unset):
        cpu_count (int | None | Unset):
        memory_gib (float | None | Unset):
        mlx_device (None | str | Unset):
        blas (None | str | Unset):
    """

    platform: str | Unset = UNSET
    machine: str | Unset = UNSET
    processor: None | str | Unset = UNSET
    cpu_count: int | None | Unset = UNSET
    memory_gib: float | None | Unset = UNSET
    mlx_device: None | str | Unset = UNSET
    blas: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        platform = self.platform

        machine = self.machine

        processor: None | str | Unset
        if isinstance(self.processor, Unset):
            processor = UNSET
        else:
            processor = self.processor

        cpu_count: int | None | Unset
        if isinstance(self.cpu_count, Unset):
            cpu_count = UNSET
        else:
            cpu_count = self.cpu_count

        memory_gib: float | None | Unset
        if isinstance(self.memory_gib, Unset):
            memory_gib = UNSET
        else:
            memory_gib = self.memory_gib

        mlx_device: None | str | Unset
        if isinstance(self.mlx_device, Unset):
            mlx_device = UNSET
        else:
            mlx_device = self.mlx_device

        blas: None | str | Unset
        if isinstance(self.blas, Unset):
            blas = UNSET
        else:
            blas = self.blas

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if platform is not UNSET:
            field_dict["platform"] = platform
        if machine is not UNSET:
            field_dict["machine"] = machine
        if processor is not UNSET:
            field_dict["processor"] = processor
        if cpu_count is not UNSET:
            field_dict["cpu_count"] = cpu_count
        if memory_gib is not UNSET:
            field_dict["memory_gib"] = memory_gib
        if mlx_device is not UNSET:
            field_dict["mlx_device"] = mlx_device
        if blas is not UNSET:
            field_dict["blas"] = blas

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        platform = d.pop("platform", UNSET)

        machine = d.pop("machine", UNSET)

        def _parse_processor(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        processor = _parse_processor(d.pop("processor", UNSET))

        def _parse_cpu_count(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        cpu_count = _parse_cpu_count(d.pop("cpu_count", UNSET))

        def _parse_memory_gib(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        memory_gib = _parse_memory_gib(d.pop("memory_gib", UNSET))

        def _parse_mlx_device(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        mlx_device = _parse_mlx_device(d.pop("mlx_device", UNSET))

        def _parse_blas(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        blas = _parse_blas(d.pop("blas", UNSET))

        afm_profile_host = cls(
            platform=platform,
            machine=machine,
            processor=processor,
            cpu_count=cpu_count,
            memory_gib=memory_gib,
            mlx_device=mlx_device,
            blas=blas,
        )

        afm_profile_host.additional_properties = d
        return afm_profile_host

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
