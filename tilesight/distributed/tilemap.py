"""DistributedTileMap: a plan's grid and tensors partitioned over GPUs, and the remote accesses it implies.

A tensor-, sequence- or data-parallel mapping splits either one grid dimension (each GPU runs a contiguous
block of tiles along it) or the reduction loop (each GPU runs the whole grid over a slice of K). Every
tensor then has two placements: where it is *held* before the kernel (``held``: what its producer left) and
where this kernel *needs* it (derived from the split). Their mismatch is a remote tensor access, inferred
from producer-consumer placement alone (paper section 3.6):

============  ===========  ================  ================================
held          needed       collective        bytes per rank
============  ===========  ================  ================================
shard(d)      replica      all-gather        tensor / g
shard(d)      shard(e!=d)  all-to-all        tensor / g
partial       shard(d)     reduce-scatter    tensor
partial       replica      all-reduce        tensor
replica       any          none (local)
============  ===========  ================  ================================

For a tensor the kernel writes, "held" is what the kernel produces (a shard along the split, or partial
sums when the reduction loop is split) and "needed" is what its consumer wants (``wanted``; default: as
produced).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from types import MappingProxyType

from ..errors import PlanError
from ..plan import AccessMode, Loop, TensorAccess, TileGrid, TilePlan
from .collectives import CollectiveCost, CollectiveOp, choose_collective
from .network import NetworkHierarchy


class Placement(StrEnum):
    SHARD = "shard"  # split along ``dim`` over the GPUs
    REPLICA = "replica"  # a whole copy on every GPU
    PARTIAL = "partial"  # every GPU holds partial sums of the whole tensor


@dataclass(frozen=True)
class TensorPlacement:
    placement: Placement
    dim: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "placement", Placement(self.placement))
        if (self.placement is Placement.SHARD) != (self.dim is not None):
            raise PlanError(
                "placement.dim",
                self.dim,
                "a shard placement needs a dim; replica and partial take none",
            )

    def __str__(self) -> str:
        return f"shard({self.dim})" if self.placement is Placement.SHARD else self.placement.value


SHARD0 = TensorPlacement(Placement.SHARD, 0)
REPLICA = TensorPlacement(Placement.REPLICA)
PARTIAL = TensorPlacement(Placement.PARTIAL)


@dataclass(frozen=True)
class RemoteAccess:
    """One inferred remote tensor access: the collective that turns ``held`` into ``needed``."""

    tensor: str
    op: CollectiveOp
    bytes_per_rank: float
    held: TensorPlacement
    needed: TensorPlacement
    before_kernel: bool  # True: the kernel's input must arrive first; False: its output goes out after


def transition(held: TensorPlacement, needed: TensorPlacement) -> CollectiveOp | None:
    """The collective that turns placement ``held`` into ``needed`` (None: nothing to move)."""
    h, n = held.placement, needed.placement
    if h is Placement.REPLICA or held == needed or n is Placement.PARTIAL and h is not Placement.SHARD:
        return None
    if h is Placement.SHARD:
        if n is Placement.REPLICA:
            return CollectiveOp.ALL_GATHER
        if n is Placement.SHARD:
            return CollectiveOp.ALL_TO_ALL
        raise PlanError("placement", f"{held} -> {needed}", "a shard cannot become partial sums")
    return CollectiveOp.REDUCE_SCATTER if n is Placement.SHARD else CollectiveOp.ALL_REDUCE


@dataclass(frozen=True)
class DistributedTileMap:
    """``plan`` (the whole problem) split over ``gpus`` GPUs along grid dimension ``grid_dim`` or, when
    ``grid_dim`` is None, along its reduction loop. ``split_dims`` names, for each tensor that varies along
    the split, which of its dimensions the split cuts (a GEMM split along ``m``: ``{"a": 0, "c": 0}``; split
    along K: ``{"a": 1, "b": 0}``). ``held`` is each input's placement before the kernel (default: as
    needed); ``wanted`` each output's placement after it (default: as produced)."""

    plan: TilePlan
    gpus: int
    grid_dim: str | None
    split_dims: Mapping[str, int]
    held: Mapping[str, TensorPlacement] = field(default_factory=dict)
    wanted: Mapping[str, TensorPlacement] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if isinstance(self.gpus, bool) or not isinstance(self.gpus, int) or self.gpus < 1:
            raise PlanError("tilemap.gpus", self.gpus, "must be an integer >= 1")
        if self.grid_dim is not None and self.grid_dim not in self.plan.grid.dims:
            raise PlanError("tilemap.grid_dim", self.grid_dim, f"not a grid dimension {self.plan.grid.dims}")
        names = {t.name for t in self.plan.tensors}
        for table in ("split_dims", "held", "wanted"):
            unknown = set(getattr(self, table)) - names
            if unknown:
                raise PlanError(
                    f"tilemap.{table}", sorted(unknown), f"not tensors of the plan {sorted(names)}"
                )
            object.__setattr__(self, table, MappingProxyType(dict(getattr(self, table))))
        for name, d in self.split_dims.items():
            if not 0 <= d < len(self.plan.tensor(name).shape):
                raise PlanError(f"tilemap.split_dims[{name}]", d, "not a dimension of the tensor")

    def _varies(self, t: TensorAccess) -> bool:
        if self.grid_dim is None:
            return t.name in self.split_dims
        return self.grid_dim not in t.reuse_dims

    def produced(self, name: str) -> TensorPlacement:
        """The placement this kernel leaves a tensor it writes in."""
        t = self.plan.tensor(name)
        if self.grid_dim is None:
            return (
                PARTIAL
                if t.name not in self.split_dims
                else TensorPlacement(Placement.SHARD, self.split_dims[name])
            )
        return self.needed(name)

    def needed(self, name: str) -> TensorPlacement:
        """The placement this kernel's tiles read a tensor in (or write it in, for outputs)."""
        t = self.plan.tensor(name)
        if not self._varies(t):
            return REPLICA
        if name not in self.split_dims:
            raise PlanError(
                f"tilemap.split_dims[{name}]", None, f"tensor {name} varies along the split; name its dim"
            )
        return TensorPlacement(Placement.SHARD, self.split_dims[name])

    def remote_accesses(self) -> tuple[RemoteAccess, ...]:
        """Every collective the placements imply, inputs (before the kernel) then outputs (after it)."""
        out = []
        for t in self.plan.tensors:
            if t.mode is AccessMode.READ:
                src, dst, before = self.held.get(t.name, self.needed(t.name)), self.needed(t.name), True
            else:
                produced = self.produced(t.name)
                src, dst, before = produced, self.wanted.get(t.name, produced), False
            op = transition(src, dst)
            if op is None:
                continue
            whole = t.tensor_bytes
            per_rank = whole / self.gpus if src.placement is Placement.SHARD else whole
            out.append(RemoteAccess(t.name, op, per_rank, src, dst, before))
        return tuple(out)

    def local_plan(self) -> TilePlan:
        """The plan one GPU runs: its block of the split grid dimension (or its slice of the reduction loop),
        with every tensor it needs sharded shrunk along its split dimension."""
        g = self.gpus
        grid = self.plan.grid
        if self.grid_dim is not None:
            i = grid.dims.index(self.grid_dim)
            shape = tuple(math.ceil(s / g) if j == i else s for j, s in enumerate(grid.shape))
            if grid.sequence is not None:
                raise PlanError(
                    "tilemap.plan.grid.order", "explicit", "split an explicit launch order by hand"
                )
            grid = TileGrid(shape, grid.dims, grid.order, grid.group_size, grid.programs)
            body = self.plan.body
        else:
            body = tuple(_split_reduction(n, g) for n in self.plan.body)
        tensors = []
        for t in self.plan.tensors:
            p = self.needed(t.name) if t.mode is AccessMode.READ else self.produced(t.name)
            if p.placement is Placement.SHARD:
                assert p.dim is not None
                shape = tuple(math.ceil(s / g) if j == p.dim else s for j, s in enumerate(t.shape))
                tile = tuple(min(x, s) if not t.masked else x for x, s in zip(t.tile, shape, strict=True))
                t = replace(t, shape=shape, tile=tile)
            tensors.append(t)
        return replace(
            self.plan, name=f"{self.plan.name}_of{g}", grid=grid, tensors=tuple(tensors), body=body
        )

    def comm(
        self, net: NetworkHierarchy, devices: tuple[int, ...] | None = None
    ) -> tuple[tuple[RemoteAccess, CollectiveCost], ...]:
        """Each remote access priced on ``net`` (GPUs ``devices``, default the first ``gpus``)."""
        devices = tuple(range(self.gpus)) if devices is None else tuple(devices)
        return tuple(
            (ra, choose_collective(ra.op, ra.bytes_per_rank, net, devices)) for ra in self.remote_accesses()
        )


def _split_reduction(node, g: int):
    if isinstance(node, Loop):
        body = tuple(_split_reduction(n, g) for n in node.body)
        if not node.reduction:
            return replace(node, body=body)
        mean = None if node.mean_trips is None else node.mean_trips / g
        seq = node.trips_by_program
        if seq is not None:
            seq = tuple(math.ceil(t / g) for t in seq)
        trips = math.ceil(node.trips / g)
        return replace(node, trips=trips, body=body, mean_trips=mean, trips_by_program=seq)
    return node
