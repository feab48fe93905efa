from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.cpu_weights_kind import CpuWeightsKind
from ..models.cpu_weights_mode import CpuWeightsMode
from ..types import UNSET, Unset

T = TypeVar("T", bound="CpuWeightsType0")


@_attrs_define
class CpuWeightsType0:
    """What the CPU weight policy (`--cpu-weights`) chose for the chat model at load; null while no chat model is loaded.
    On a CPU device MLX sends only float32 matmuls to BLAS, so quantized and half-precision checkpoints are converted to
    float32 when the copy fits the memory budget.

        Attributes:
            mode (CpuWeightsMode): The requested `--cpu-weights` mode.
            weights (CpuWeightsKind): What runs: float32 weights (converted or already so) or the checkpoint's own.
            source (str): The checkpoint's format: `float32`, `bfloat16`, `float16`, `4-bit`, `8-bit`...
            converted (bool): True when layers were dequantized or cast at load.
            reason (str): Why, in one sentence.
            native_bytes (int | Unset): Parameter bytes as loaded.
            float32_bytes (int | Unset): Parameter bytes as float32.
            budget_bytes (int | None | Unset): Bytes the float32 copy could add, when measured.
    """

    mode: CpuWeightsMode
    weights: CpuWeightsKind
    source: str
    converted: bool
    reason: str
    native_bytes: int | Unset = UNSET
    float32_bytes: int | Unset = UNSET
    budget_bytes: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        mode = self.mode.value

        weights = self.weights.value

        source = self.source

        converted = self.converted

        reason = self.reason

        native_bytes = self.native_bytes

        float32_bytes = self.float32_bytes

        budget_bytes: int | None | Unset
        if isinstance(self.budget_bytes, Unset):
            budget_bytes = UNSET
        else:
            budget_bytes = self.budget_bytes

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "mode": mode,
                "weights": weights,
                "source": source,
                "converted": converted,
                "reason": reason,
            }
        )
        if native_bytes is not UNSET:
            field_dict["native_bytes"] = native_bytes
        if float32_bytes is not UNSET:
            field_dict["float32_bytes"] = float32_bytes
        if budget_bytes is not UNSET:
            field_dict["budget_bytes"] = budget_bytes

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        mode = CpuWeightsMode(d.pop("mode"))

        weights = CpuWeightsKind(d.pop("weights"))

        source = d.pop("source")

        converted = d.pop("converted")

        reason = d.pop("reason")

        native_bytes = d.pop("native_bytes", UNSET)

        float32_bytes = d.pop("float32_bytes", UNSET)

        def _parse_budget_bytes(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        budget_bytes = _parse_budget_bytes(d.pop("budget_bytes", UNSET))

        cpu_weights_type_0 = cls(
            mode=mode,
            weights=weights,
            source=source,
            converted=converted,
            reason=reason,
            native_bytes=native_bytes,
            float32_bytes=float32_bytes,
            budget_bytes=budget_bytes,
        )

        cpu_weights_type_0.additional_properties = d
        return cpu_weights_type_0

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
