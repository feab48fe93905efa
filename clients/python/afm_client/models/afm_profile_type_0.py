from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.afm_profile_type_0_object import AfmProfileType0Object
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.afm_profile_host import AfmProfileHost
    from ..models.afm_profile_sample import AfmProfileSample
    from ..models.cpu_weights_type_0 import CpuWeightsType0
    from ..models.sharding_type_0 import ShardingType0
    from ..models.speculative_profile_type_0 import SpeculativeProfileType0


T = TypeVar("T", bound="AfmProfileType0")


@_attrs_define
class AfmProfileType0:
    """Added with `X-AFM-Profile`. Fields that need Apple hardware are null elsewhere.

    Attributes:
        object_ (AfmProfileType0Object | Unset):
        weights_memory_gib (float | None | Unset):
        kv_cache_memory_gib (float | None | Unset):
        peak_memory_gib (float | None | Unset):
        prefill_tokens_per_second (float | None | Unset):
        decode_tokens_per_second (float | None | Unset):
        gpu_utilization (float | None | Unset):
        memory_bandwidth_gbps (float | None | Unset):
        host (AfmProfileHost | Unset): The host that ran the request.
        cpu_weights (CpuWeightsType0 | None | Unset): What the CPU weight policy (`--cpu-weights`) chose for the chat
            model at load; null while no chat model is loaded. On a CPU device MLX sends only float32 matmuls to BLAS, so
            quantized and half-precision checkpoints are converted to float32 when the copy fits the memory budget.
        sharding (None | ShardingType0 | Unset): The group of a sharded server (`afm serve` started by `mlx.launch`: one
            model split across `world_size` processes or hosts on MLX's distributed layer); null for a single-process server
            (world size 1).
        speculative (None | SpeculativeProfileType0 | Unset): Speculative decoding for this request (`--spec-ngram`,
            `--draft-model`); null when the server does not speculate. Speculation runs while the request decodes alone
            (c=1) and has no grammar constraint; the counts are zero otherwise.
        samples (list[AfmProfileSample] | None | Unset): Sampled series (`extended` only).
    """

    object_: AfmProfileType0Object | Unset = UNSET
    weights_memory_gib: float | None | Unset = UNSET
    kv_cache_memory_gib: float | None | Unset = UNSET
    peak_memory_gib: float | None | Unset = UNSET
    prefill_tokens_per_second: float | None | Unset = UNSET
    decode_tokens_per_second: float | None | Unset = UNSET
    gpu_utilization: float | None | Unset = UNSET
    memory_bandwidth_gbps: float | None | Unset = UNSET
    host: AfmProfileHost | Unset = UNSET
    cpu_weights: CpuWeightsType0 | None | Unset = UNSET
    sharding: None | ShardingType0 | Unset = UNSET
    speculative: None | SpeculativeProfileType0 | Unset = UNSET
    samples: list[AfmProfileSample] | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.cpu_weights_type_0 import CpuWeightsType0  # noqa: PLC0415
        from ..models.sharding_type_0 import ShardingType0  # noqa: PLC0415
        from ..models.speculative_profile_type_0 import SpeculativeProfileType0  # noqa: PLC0415

        object_: str | Unset = UNSET
        if not isinstance(self.object_, Unset):
            object_ = self.object_.value

        weights_memory_gib: float | None | Unset
        if isinstance(self.weights_memory_gib, Unset):
            weights_memory_gib = UNSET
        else:
            weights_memory_gib = self.weights_memory_gib

        kv_cache_memory_gib: float | None | Unset
        if isinstance(self.kv_cache_memory_gib, Unset):
            kv_cache_memory_gib = UNSET
        else:
            kv_cache_memory_gib = self.kv_cache_memory_gib

        peak_memory_gib: float | None | Unset
        if isinstance(self.peak_memory_gib, Unset):
            peak_memory_gib = UNSET
        else:
            peak_memory_gib = self.peak_memory_gib

        prefill_tokens_per_second: float | None | Unset
        if isinstance(self.prefill_tokens_per_second, Unset):
            prefill_tokens_per_second = UNSET
        else:
            prefill_tokens_per_second = self.prefill_tokens_per_second

        decode_tokens_per_second: float | None | Unset
        if isinstance(self.decode_tokens_per_second, Unset):
            decode_tokens_per_second = UNSET
        else:
            decode_tokens_per_second = self.decode_tokens_per_second

        gpu_utilization: float | None | Unset
        if isinstance(self.gpu_utilization, Unset):
            gpu_utilization = UNSET
        else:
            gpu_utilization = self.gpu_utilization

        memory_bandwidth_gbps: float | None | Unset
        if isinstance(self.memory_bandwidth_gbps, Unset):
            memory_bandwidth_gbps = UNSET
        else:
            memory_bandwidth_gbps = self.memory_bandwidth_gbps

        host: dict[str, Any] | Unset = UNSET
        if not isinstance(self.host, Unset):
            host = self.host.to_dict()

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

        speculative: dict[str, Any] | None | Unset
        if isinstance(self.speculative, Unset):
            speculative = UNSET
        elif isinstance(self.speculative, SpeculativeProfileType0):
            speculative = self.speculative.to_dict()
        else:
            speculative = self.speculative

        samples: list[dict[str, Any]] | None | Unset
        if isinstance(self.samples, Unset):
            samples = UNSET
        elif isinstance(self.samples, list):
            samples = []
            for samples_type_0_item_data in self.samples:
                samples_type_0_item = samples_type_0_item_data.to_dict()
                samples.append(samples_type_0_item)

        else:
            samples = self.samples

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if object_ is not UNSET:
            field_dict["object"] = object_
        if weights_memory_gib is not UNSET:
            field_dict["weights_memory_gib"] = weights_memory_gib
        if kv_cache_memory_gib is not UNSET:
            field_dict["kv_cache_memory_gib"] = kv_cache_memory_gib
        if peak_memory_gib is not UNSET:
            field_dict["peak_memory_gib"] = peak_memory_gib
        if prefill_tokens_per_second is not UNSET:
            field_dict["prefill_tokens_per_second"] = prefill_tokens_per_second
        if decode_tokens_per_second is not UNSET:
            field_dict["decode_tokens_per_second"] = decode_tokens_per_second
        if gpu_utilization is not UNSET:
            field_dict["gpu_utilization"] = gpu_utilization
        if memory_bandwidth_gbps is not UNSET:
            field_dict["memory_bandwidth_gbps"] = memory_bandwidth_gbps
        if host is not UNSET:
            field_dict["host"] = host
        if cpu_weights is not UNSET:
            field_dict["cpu_weights"] = cpu_weights
        if sharding is not UNSET:
            field_dict["sharding"] = sharding
        if speculative is not UNSET:
            field_dict["speculative"] = speculative
        if samples is not UNSET:
            field_dict["samples"] = samples

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.afm_profile_host import AfmProfileHost  # noqa: PLC0415
        from ..models.afm_profile_sample import AfmProfileSample  # noqa: PLC0415
        from ..models.cpu_weights_type_0 import CpuWeightsType0  # noqa: PLC0415
        from ..models.sharding_type_0 import ShardingType0  # noqa: PLC0415
        from ..models.speculative_profile_type_0 import SpeculativeProfileType0  # noqa: PLC0415

        d = dict(src_dict)
        _object_ = d.pop("object", UNSET)
        object_: AfmProfileType0Object | Unset
        if isinstance(_object_, Unset):
            object_ = UNSET
        else:
            object_ = AfmProfileType0Object(_object_)

        def _parse_weights_memory_gib(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        weights_memory_gib = _parse_weights_memory_gib(d.pop("weights_memory_gib", UNSET))

        def _parse_kv_cache_memory_gib(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        kv_cache_memory_gib = _parse_kv_cache_memory_gib(d.pop("kv_cache_memory_gib", UNSET))

        def _parse_peak_memory_gib(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        peak_memory_gib = _parse_peak_memory_gib(d.pop("peak_memory_gib", UNSET))

        def _parse_prefill_tokens_per_second(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        prefill_tokens_per_second = _parse_prefill_tokens_per_second(d.pop("prefill_tokens_per_second", UNSET))

        def _parse_decode_tokens_per_second(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        decode_tokens_per_second = _parse_decode_tokens_per_second(d.pop("decode_tokens_per_second", UNSET))

        def _parse_gpu_utilization(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        gpu_utilization = _parse_gpu_utilization(d.pop("gpu_utilization", UNSET))

        def _parse_memory_bandwidth_gbps(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        memory_bandwidth_gbps = _parse_memory_bandwidth_gbps(d.pop("memory_bandwidth_gbps", UNSET))

        _host = d.pop("host", UNSET)
        host: AfmProfileHost | Unset
        if isinstance(_host, Unset):
            host = UNSET
        else:
            host = AfmProfileHost.from_dict(_host)

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

        def _parse_speculative(data: object) -> None | SpeculativeProfileType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_speculative_profile_type_0 = SpeculativeProfileType0.from_dict(data)

                return componentsschemas_speculative_profile_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | SpeculativeProfileType0 | Unset, data)

        speculative = _parse_speculative(d.pop("speculative", UNSET))

        def _parse_samples(data: object) -> list[AfmProfileSample] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                samples_type_0 = []
                _samples_type_0 = data
                for samples_type_0_item_data in _samples_type_0:
                    samples_type_0_item = AfmProfileSample.from_dict(samples_type_0_item_data)

                    samples_type_0.append(samples_type_0_item)

                return samples_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[AfmProfileSample] | None | Unset, data)

        samples = _parse_samples(d.pop("samples", UNSET))

        afm_profile_type_0 = cls(
            object_=object_,
            weights_memory_gib=weights_memory_gib,
            kv_cache_memory_gib=kv_cache_memory_gib,
            peak_memory_gib=peak_memory_gib,
            prefill_tokens_per_second=prefill_tokens_per_second,
            decode_tokens_per_second=decode_tokens_per_second,
            gpu_utilization=gpu_utilization,
            memory_bandwidth_gbps=memory_bandwidth_gbps,
            host=host,
            cpu_weights=cpu_weights,
            sharding=sharding,
            speculative=speculative,
            samples=samples,
        )

        afm_profile_type_0.additional_properties = d
        return afm_profile_type_0

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
