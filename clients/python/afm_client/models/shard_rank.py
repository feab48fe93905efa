from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.shard_rank_role import ShardRankRole
from ..models.shard_rank_status import ShardRankStatus
from ..types import UNSET, Unset

T = TypeVar("T", bound="ShardRank")


@_attrs_define
class ShardRank:
    """
    Attributes:
        rank (int):
        role (ShardRankRole): `http`: rank 0 (HTTP, storage, batches, sampling); `worker`: replays rank 0's steps on its
            shard.
        status (ShardRankStatus): `ok` while the group serves; after a failure rank 0 is `stopping` and the other ranks
            `unreachable` (rank 0 cannot tell which of them broke the ring).
        host (None | str | Unset): The rank's address from the launcher's ring hostfile; without one, rank 0's host name
            and null for the others.
    """

    rank: int
    role: ShardRankRole
    status: ShardRankStatus
    host: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        rank = self.rank

        role = self.role.value

        status = self.status.value

        host: None | str | Unset
        if isinstance(self.host, Unset):
            host = UNSET
        else:
            host = self.host

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "rank": rank,
                "role": role,
                "status": status,
            }
        )
        if host is not UNSET:
            field_dict["host"] = host

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        rank = d.pop("rank")

        role = ShardRankRole(d.pop("role"))

        status = ShardRankStatus(d.pop("status"))

        def _parse_host(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        host = _parse_host(d.pop("host", UNSET))

        shard_rank = cls(
            rank=rank,
            role=role,
            status=status,
            host=host,
        )

        shard_rank.additional_properties = d
        return shard_rank

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
