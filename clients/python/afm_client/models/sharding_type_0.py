from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.sharding_mode import ShardingMode
from ..models.sharding_status import ShardingStatus
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.shard_rank import ShardRank


T = TypeVar("T", bound="ShardingType0")


@_attrs_define
class ShardingType0:
    """The group of a sharded server (`afm serve` started by `mlx.launch`: one model split across `world_size` processes or
    hosts on MLX's distributed layer); null for a single-process server (world size 1).

        Attributes:
            world_size (int): Ranks in the group.
            rank (int): The rank that answers (always 0: it alone serves HTTP).
            backend (str): MLX's distributed backend: `ring`, `jaccl`, `mpi` or `nccl`.
            mode (ShardingMode): `--shard-mode`: `tensor`, every rank holds a tensor-parallel shard of every layer
                (`model.shard()`); `pipeline`, every rank holds a run of whole layers (`pipeline()`).
            status (ShardingStatus): `failed` once a rank died or stopped answering; rank 0 then exits within seconds.
            ranks (list[ShardRank]): One entry per rank, by rank.
            reason (None | str | Unset): Why the group failed (one line); null while serving.
            plan_ops (int | Unset): Step operations rank 0 has sent to the other ranks since start.
            plan_collective_seconds (float | Unset): Seconds rank 0 spent in the plan channel's collectives since start
                (waiting for the other ranks included); the model's own all-sums inside each forward are step compute.
    """

    world_size: int
    rank: int
    backend: str
    mode: ShardingMode
    status: ShardingStatus
    ranks: list[ShardRank]
    reason: None | str | Unset = UNSET
    plan_ops: int | Unset = UNSET
    plan_collective_seconds: float | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        world_size = self.world_size

        rank = self.rank

        backend = self.backend

        mode = self.mode.value

        status = self.status.value

        ranks = []
        for ranks_item_data in self.ranks:
            ranks_item = ranks_item_data.to_dict()
            ranks.append(ranks_item)

        reason: None | str | Unset
        if isinstance(self.reason, Unset):
            reason = UNSET
        else:
            reason = self.reason

        plan_ops = self.plan_ops

        plan_collective_seconds = self.plan_collective_seconds

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "world_size": world_size,
                "rank": rank,
                "backend": backend,
                "mode": mode,
                "status": status,
                "ranks": ranks,
            }
        )
        if reason is not UNSET:
            field_dict["reason"] = reason
        if plan_ops is not UNSET:
            field_dict["plan_ops"] = plan_ops
        if plan_collective_seconds is not UNSET:
            field_dict["plan_collective_seconds"] = plan_collective_seconds

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.shard_rank import ShardRank  # noqa: PLC0415

        d = dict(src_dict)
        world_size = d.pop("world_size")

        rank = d.pop("rank")

        backend = d.pop("backend")

        mode = ShardingMode(d.pop("mode"))

        status = ShardingStatus(d.pop("status"))

        ranks = []
        _ranks = d.pop("ranks")
        for ranks_item_data in _ranks:
            ranks_item = ShardRank.from_dict(ranks_item_data)

            ranks.append(ranks_item)

        def _parse_reason(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        reason = _parse_reason(d.pop("reason", UNSET))

        plan_ops = d.pop("plan_ops", UNSET)

        plan_collective_seconds = d.pop("plan_collective_seconds", UNSET)

        sharding_type_0 = cls(
            world_size=world_size,
            rank=rank,
            backend=backend,
            mode=mode,
            status=status,
            ranks=ranks,
            reason=reason,
            plan_ops=plan_ops,
            plan_collective_seconds=plan_collective_seconds,
        )

        sharding_type_0.additional_properties = d
        return sharding_type_0

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
