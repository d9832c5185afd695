"""What a cache model hands the engine: per-tensor L1.5/L2/DDR traffic over the whole kernel.

The engine turns these into the L1.5, L2 and DDR entries of each memory action's resource vector (paper
section 3.5.3: cache behaviour moves the envelope, not only a final number). Any cache model implements
:class:`CacheModel`; :func:`compulsory_traffic` is the simplest one (every tensor block comes from DRAM once,
every later access hits L2) and stays available as a named baseline.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol

from ..hardware import HardwareProfile
from ..plan import AccessMode, TilePlan


@dataclass(frozen=True)
class TensorTraffic:
    """One tensor's traffic over the kernel.

    ``requested_bytes`` is what the tiles ask for (accesses x tile bytes). ``l15_hit`` and ``l2_hit`` are the
    fractions of requested bytes served by the L1.5 tier and by L2 (so ``l15_hit + l2_hit <= 1``); the rest
    goes to DRAM, and ``ddr_bytes`` is that DRAM traffic (reads, or writes for stored tensors).
    ``l2_lookups``: L2 slice lookups per requested byte that reaches L2, the L2 pipeline's work: 1 for a
    model without request coalescing or partitions; less where the request coalescer answers concurrent
    requests for a line already in flight, more where a line homed in the other partition is looked up on
    both sides of the fabric (:mod:`tilesight.cache.model`). ``l2_merged``: the requests per requested byte
    the coalescer merged, already taken out of ``l2_lookups``. ``l2_resident_at_end``: for a written
    tensor, the share of its written lines still in L2 when the kernel ends (what a next kernel finds there).
    ``ddr_wait``: the share of its reads that wait for a DRAM fetch, their own miss or an identical request of
    the same wave still in flight from DRAM (the blocks of a wave asking for one tile in step all wait for the
    first one's fetch, though only that one misses); the miss share where a model does not tell them apart.
    """

    tensor: str
    accesses: int
    requested_bytes: float
    l15_hit: float
    l2_hit: float
    ddr_bytes: float
    write: bool = False
    l2_lookups: float = 1.0
    l2_merged: float = 0.0
    l2_resident_at_end: float = 0.0  # written tensors: share of the written lines still in L2 when it ends
    ddr_wait: float = -1.0  # reads waiting for a DRAM fetch (own miss or a same-wave one); -1: the miss share

    def __post_init__(self) -> None:
        for name in ("l15_hit", "l2_hit"):
            v = getattr(self, name)
            if not 0.0 <= v <= 1.0 + 1e-12:
                raise ValueError(f"TensorTraffic[{self.tensor}].{name}={v} outside [0, 1]")
        if self.l15_hit + self.l2_hit > 1.0 + 1e-9:
            raise ValueError(f"TensorTraffic[{self.tensor}]: l15_hit + l2_hit > 1")
        if self.ddr_wait < 0:
            object.__setattr__(self, "ddr_wait", self.ddr_share)
        if not 0.0 <= self.ddr_wait <= 1.0 + 1e-12:
            raise ValueError(f"TensorTraffic[{self.tensor}].ddr_wait={self.ddr_wait} outside [0, 1]")
        for name in ("l2_lookups", "l2_merged"):
            v = getattr(self, name)
            if not v >= 0.0:
                raise ValueError(f"TensorTraffic[{self.tensor}].{name}={v} must be >= 0")

    @property
    def ddr_share(self) -> float:
        """The share of the requested bytes DRAM serves: what neither the L1.5 nor the L2 hits."""
        return max(0.0, 1.0 - self.l15_hit - self.l2_hit)


@dataclass(frozen=True)
class CacheTraffic:
    """All tensors' traffic plus the NCU-comparable sector hit rates (reads and writes together).

    ``reads``: the traffic of single read actions (by action name, :class:`TensorTraffic` of that action's
    accesses alone) where a model tells a tensor's reads apart; a tensor read by several actions (a row's
    second pass, which finds in L2 what the first fetched from DRAM) has each action's own hit rates there,
    and :meth:`of` prefers them to the tensor's mean. Empty for a model that does not."""

    tensors: Mapping[str, TensorTraffic]
    l2_hit_rate: float
    l15_hit_rate: float | None
    dram_read_bytes: float
    dram_write_bytes: float
    model: str
    reads: Mapping[str, TensorTraffic] = field(default_factory=dict)

    @property
    def dram_bytes(self) -> float:
        return self.dram_read_bytes + self.dram_write_bytes

    @property
    def dram_read_share(self) -> float:
        """The share of the requested read bytes that come from DRAM (0 without reads)."""
        requested = sum(t.requested_bytes for t in self.tensors.values() if not t.write)
        return self.dram_read_bytes / requested if requested > 0 else 0.0

    def of(self, action: str, tensor: str) -> TensorTraffic | None:
        """The traffic that applies to one access of ``tensor`` by ``action``: the action's own where
        :attr:`reads` has it, else the tensor's; None where the model gave the tensor none."""
        return self.reads.get(action) or self.tensors.get(tensor)


class CacheModel(Protocol):
    """A cache model: from a plan and a GPU to per-tensor traffic. Pure and deterministic."""

    name: str

    def traffic(self, plan: TilePlan, hw: HardwareProfile) -> CacheTraffic: ...


def compulsory_traffic(plan: TilePlan, hw: HardwareProfile) -> CacheTraffic:
    """Compulsory-miss traffic: each tensor's touched bytes cross DRAM once; every other access hits L2.

    Writes count as L2 hits in the hit rate (write-back L2 absorbs them) and their bytes go to DRAM once; the
    last L2-capacity's worth of them is still in L2 at the end. Reads of a tensor an earlier kernel left in L2
    (``plan.l2_warm``) skip DRAM for that share.
    """
    tensors: dict[str, TensorTraffic] = {}
    hits = total = 0.0
    rd = wr = 0.0
    warm = dict(plan.l2_warm)
    for t in plan.tensors:
        accesses = plan.access_count(t.name) * plan.grid.tiles
        requested = accesses * t.tile_bytes
        if requested == 0:
            continue
        write = t.mode in (AccessMode.WRITE, AccessMode.ATOMIC)
        touched = min(t.tensor_bytes, requested)
        if not write:  # a share of the first touches finds lines an earlier kernel left in L2
            touched *= 1.0 - warm.get(t.name, 0.0)
        l2_hit = 1.0 - touched / requested if not write else 1.0
        resident = min(1.0, hw.l2_effective_bytes / touched) if write and touched else 0.0
        tensors[t.name] = TensorTraffic(
            t.name, accesses, requested, 0.0, l2_hit, touched, write, l2_resident_at_end=resident
        )
        hits += l2_hit * requested
        total += requested
        if write:
            wr += touched
        else:
            rd += touched
    rate = hits / total if total else 0.0
    return CacheTraffic(tensors, rate, None, rd, wr, model="compulsory")


class CompulsoryCacheModel:
    name = "compulsory"

    def traffic(self, plan: TilePlan, hw: HardwareProfile) -> CacheTraffic:
        return compulsory_traffic(plan, hw)
