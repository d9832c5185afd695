"""Logical exchanges, ordered stages and the routed stage time of Eq. 11 (paper section 3.6).

A stage is a set of logical exchanges ``(s, d, b)``: device ``s`` sends ``b`` bytes to device ``d``. After
routing
each exchange over the :class:`~tilesight.distributed.network.NetworkHierarchy`, the stage takes

    T_k = max_{(s,d,b) in E_k} sum_{l in P_sd} alpha_l  +  max_{l in L} beta_l * B_{l,k}

(routed hop latency plus bottleneck-link serialisation), where ``B_{l,k}`` sums the bytes of every exchange of
the stage routed through link ``l``. A sequence costs the ordered sum of its stages; a stage repeated
``repeat``
times (the identical steps of a ring) is evaluated once and multiplied.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass

from ..errors import PlanError
from .network import NetworkHierarchy


@dataclass(frozen=True)
class Exchange:
    """Device ``src`` sends ``bytes`` bytes to device ``dst`` (global GPU indices of the network)."""

    src: int
    dst: int
    bytes: float

    def __post_init__(self) -> None:
        for name in ("src", "dst"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise PlanError(f"exchange.{name}", v, "must be a GPU index >= 0")
        if not (isinstance(self.bytes, int | float) and math.isfinite(self.bytes) and self.bytes >= 0):
            raise PlanError("exchange.bytes", self.bytes, "must be a finite number >= 0")


@dataclass(frozen=True)
class Stage:
    """Exchanges that run concurrently, ``repeat`` times in a row (identical steps)."""

    label: str
    exchanges: tuple[Exchange, ...]
    repeat: int = 1

    def __post_init__(self) -> None:
        object.__setattr__(self, "exchanges", tuple(self.exchanges))
        if isinstance(self.repeat, bool) or not isinstance(self.repeat, int) or self.repeat < 1:
            raise PlanError(f"stage[{self.label}].repeat", self.repeat, "must be an integer >= 1")

    @property
    def bytes(self) -> float:
        """Bytes crossing the network in one occurrence (local exchanges excluded)."""
        return sum(e.bytes for e in self.exchanges if e.src != e.dst)


@dataclass(frozen=True)
class StageCost:
    """Eq. 11 for one stage: ``latency_s`` (routed hop latency) + ``serialization_s`` (bottleneck link)."""

    label: str
    repeat: int
    latency_s: float
    serialization_s: float
    bottleneck_link: str
    bottleneck_bytes: float
    exchanges: int

    @property
    def time_s(self) -> float:
        """One occurrence of the stage."""
        return self.latency_s + self.serialization_s

    @property
    def total_s(self) -> float:
        """All ``repeat`` occurrences."""
        return self.time_s * self.repeat

    def to_dict(self) -> dict[str, object]:
        return {
            "label": self.label,
            "repeat": self.repeat,
            "latency_s": self.latency_s,
            "serialization_s": self.serialization_s,
            "time_s": self.time_s,
            "total_s": self.total_s,
            "bottleneck_link": self.bottleneck_link,
            "bottleneck_bytes": self.bottleneck_bytes,
            "exchanges": self.exchanges,
        }


def stage_cost(stage: Stage, net: NetworkHierarchy, protocol: str) -> StageCost:
    """Eq. 11 for one occurrence of ``stage`` on ``net`` under runtime ``protocol``."""
    link_bytes: dict[str, float] = defaultdict(float)
    beta: dict[str, float] = {}
    latency = 0.0
    moved = 0
    for ex in stage.exchanges:
        if ex.src == ex.dst or ex.bytes == 0:
            continue
        route = net.route(ex.src, ex.dst)
        moved += 1
        latency = max(latency, sum(link.alpha(protocol) for link in route))
        for link in route:
            link_bytes[link.name] += ex.bytes
            beta[link.name] = link.beta(protocol)
    if not link_bytes:
        return StageCost(stage.label, stage.repeat, 0.0, 0.0, "", 0.0, 0)
    # the bottleneck: largest beta_l * B_l; ties go to the first link in name order (deterministic)
    worst = max(sorted(link_bytes), key=lambda name: beta[name] * link_bytes[name])
    return StageCost(
        label=stage.label,
        repeat=stage.repeat,
        latency_s=latency,
        serialization_s=beta[worst] * link_bytes[worst],
        bottleneck_link=worst,
        bottleneck_bytes=link_bytes[worst],
        exchanges=moved,
    )


@dataclass(frozen=True)
class SequenceCost:
    """An ordered stage sequence: per-stage costs and their ordered sum."""

    stages: tuple[StageCost, ...]

    @property
    def time_s(self) -> float:
        return sum(s.total_s for s in self.stages)

    @property
    def steps(self) -> int:
        """Stage occurrences (a ring all-reduce on n GPUs has 2(n-1))."""
        return sum(s.repeat for s in self.stages)


def sequence_cost(stages: tuple[Stage, ...], net: NetworkHierarchy, protocol: str) -> SequenceCost:
    """The cost of an ordered stage sequence: the sum of its stages (each evaluated once, times
    ``repeat``)."""
    return SequenceCost(tuple(stage_cost(s, net, protocol) for s in stages))
