from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.health_status import HealthStatus
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.cpu_weights_type_0 import CpuWeightsType0
    from ..models.health_backend import HealthBackend
    from ..models.sharding_type_0 import ShardingType0


T = TypeVar("T", bound="Health")


@_attrs_define
class Health:
    """
    Attributes:
        status (HealthStatus): `healthy` while the server can serve; `draining` (with HTTP 503) while it finishes
            running requests before it stops (SIGTERM / Ctrl-C); `unavailable` (with HTTP 503) only on a sharded server
            whose group failed.
        timestamp (int): Unix seconds.
        version (str):
        model (None | str | Unset): The default chat model (the one requests without `model` get), when loaded.
        loaded_models (list[str] | Unset): Ids of the chat models resident now, least recently used first.
        backend (HealthBackend | Unset): The generation backend and whether it can serve on this host.
        cpu_weights (CpuWeightsType0 | None | Unset): What the CPU weight policy (`--cpu-weights`) chose for the chat
            model at load; null while no chat model is loaded. On a CPU device MLX sends only float32 matmuls to BLAS, so
            quantized and half-precision checkpoints are converted to float32 when the copy fits the memory budget.
        sharding (None | ShardingType0 | Unset): The group of a sharded server (`afm serve` started by `mlx.launch`: one
            model split across `world_size` processes or hosts on MLX's distributed layer); null for a single-process server
            (world size 1).
    """

    status: HealthStatus
    timestamp: int
    version: str
    model: None | str | Unset = UNSET
    loaded_models: list[str] | Unset = UNSET
    backend: HealthBackend | Unset = UNSET
    cpu_weights: CpuWeightsType0 | None | Unset = UNSET
    sharding: None | ShardingType0 | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.cpu_weights_type_0 import CpuWeightsType0  # noqa: PLC0415
        from ..models.sharding_type_0 import ShardingType0  # noqa: PLC0415

        status = self.status.value

        timestamp = self.timestamp

        version = self.version

        model: None | str | Unset
        if isinstance(self.model, Unset):
            model = UNSET
        else:
            model = self.model

        loaded_models: list[str] | Unset = UNSET
        if not isinstance(self.loaded_models, Unset):
            loaded_models = self.loaded_models

        backend: dict[str, Any] | Unset = UNSET
        if not isinstance(self.backend, Unset):
            backend = self.backend.to_dict()

        cpu_weights: dict[str, Any] | None | Unset
        if isinstance(self.cpu_weights, Unset):
            cpu_weights = UNSET
        elif isinstance(self.cpu_weights, CpuWeightsType0):
            cpu_weights = self.cpu_weights.to_dict()
        else:
            cpu_weights = self.cpu_weights

        sharding: dict[str, Any] | None | Unset
        if isinstance(self.sharding, Unset):
            sharding = UNSET
        elif isinstance(self.sharding, ShardingType0):
            sharding = self.sharding.to_dict()
        else:
            sharding = self.sharding

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "status": status,
                "timestamp": timestamp,
                "version": version,
            }
        )
        if model is not UNSET:
            field_dict["model"] = model
        if loaded_models is not UNSET:
            field_dict["loaded_models"] = loaded_models
        if backend is not UNSET:
            field_dict["backend"] = backend
        if cpu_weights is not UNSET:
            field_dict["cpu_weights"] = cpu_weights
        if sharding is not UNSET:
            field_dict["sharding"] = sharding

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.cpu_weights_type_0 import CpuWeightsType0  # noqa: PLC0415
        from ..models.health_backend import HealthBackend  # noqa: PLC0415
        from ..models.sharding_type_0 import ShardingType0  # noqa: PLC0415

        d = dict(src_dict)
        status = HealthStatus(d.pop("status"))

        timestamp = d.pop("timestamp")

        version = d.pop("version")

        def _parse_model(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        model = _parse_model(d.pop("model", UNSET))

        loaded_models = cast(list[str], d.pop("loaded_models", UNSET))

        _backend = d.pop("backend", UNSET)
        backend: HealthBackend | Unset
        if isinstance(_backend, Unset):
            backend = UNSET
        else:
            backend = HealthBackend.from_dict(_backend)

        def _parse_cpu_weights(data: object) -> CpuWeightsType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_cpu_weights_type_0 = CpuWeightsType0.from_dict(data)

                return componentsschemas_cpu_weights_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CpuWeightsType0 | None | Unset, data)

        cpu_weights = _parse_cpu_weights(d.pop("cpu_weights", UNSET))

        def _parse_sharding(data: object) -> None | ShardingType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_sharding_type_0 = ShardingType0.from_dict(data)

                return componentsschemas_sharding_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ShardingType0 | Unset, data)

        sharding = _parse_sharding(d.pop("sharding", UNSET))

        health = cls(
            status=status,
            timestamp=timestamp,
            version=version,
            model=model,
            loaded_models=loaded_models,
            backend=backend,
            cpu_weights=cpu_weights,
            sharding=sharding,
        )

        health.additional_properties = d
        return health

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
