"""The Report: what one prediction says, as a frozen value with ``to_dict()`` and a terminal rendering."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .plan import PIPELINES, Pipeline

# The phase of the time the L2's merges of partly written sectors add beyond the schedule (split stores)
MERGE_PHASE = "merges"
# ... and of the time the atomics on one word add, the L2 updating a word one atomic at a time
CHAIN_PHASE = "atomic chain"
PHASES = ("prologue", "steady", "epilogue", "tail", "lock", MERGE_PHASE, CHAIN_PHASE)


@dataclass(frozen=True)
class PhaseCost:
    """One phase of the envelope: its time, the pipeline that bounds it, and each pipeline's busy time."""

    phase: str  # one of PHASES
    time_s: float
    bottleneck: Pipeline
    busy_s: dict[Pipeline, float]
    reason: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "phase": self.phase,
            "time_s": self.time_s,
            "bottleneck": self.bottleneck.value,
            "busy_s": {p.value: v for p, v in self.busy_s.items()},
            "reason": self.reason,
        }


@dataclass(frozen=True)
class ActionStats:
    """Per-action statistics over the whole kernel (all tiles, all iterations)."""

    name: str
    kind: str
    count: int  # occurrences over the kernel
    busy_s: dict[Pipeline, float]  # per-SM busy time summed over the occurrences one SM runs
    bytes: float = 0.0  # bytes moved over the kernel (memory actions)
    flops: float = 0.0  # operations over the kernel (compute actions)
    l2_hit_rate: float | None = None  # memory actions reading through L2
    bottleneck: Pipeline | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "kind": self.kind,
            "count": self.count,
            "busy_s": {p.value: v for p, v in self.busy_s.items()},
            "bytes": self.bytes,
            "flops": self.flops,
            "l2_hit_rate": self.l2_hit_rate,
            "bottleneck": self.bottleneck.value if self.bottleneck else None,
        }


@dataclass(frozen=True)
class Occupancy:
    """Resident blocks per SM, what limits them, and the wave decomposition."""

    resident_blocks: int
    limiter: str  # "smem" | "registers" | "warps" | "threads" | "blocks" | "grid"
    limits: dict[str, int]  # blocks per SM allowed by each resource
    blocks: int  # blocks launched
    full_waves: int
    tail_blocks: int  # blocks in the partial last wave (0 if none)
    tail_active_sms: int
    sm_count: int

    @property
    def waves(self) -> float:
        """Blocks launched over blocks resident at once on the whole GPU (1.5 = one full wave and a half)."""
        return self.blocks / (max(1, self.resident_blocks) * self.sm_count)

    def to_dict(self) -> dict[str, Any]:
        return {
            "resident_blocks": self.resident_blocks,
            "limiter": self.limiter,
            "limits": dict(self.limits),
            "blocks": self.blocks,
            "full_waves": self.full_waves,
            "tail_blocks": self.tail_blocks,
            "tail_active_sms": self.tail_active_sms,
            "waves": self.waves,
        }


@dataclass(frozen=True)
class Report:
    """A prediction for one kernel launch on one GPU.

    ``busy_s`` is each pipeline's busy time on the busiest SM over the kernel (for DDR/L2/Net: that SM's share
    of the chip-wide resource); ``utilization`` divides it by the kernel time. ``bottleneck`` is the pipeline
    that bounds the longest phase. ``overlap_rate`` is the fraction of the summed pipeline busy time hidden by
    overlap: 1 - T / sum_r(busy_r), clipped to [0, 1].
    """

    kernel: str
    hw: str
    latency_s: float
    launch_overhead_s: float
    busy_s: dict[Pipeline, float]
    utilization: dict[Pipeline, float]
    bottleneck: Pipeline
    phases: tuple[PhaseCost, ...]
    overlap_rate: float
    l2_hit_rate: float
    dram_bytes: float
    occupancy: Occupancy
    actions: tuple[ActionStats, ...] = ()
    l15_hit_rate: float | None = None
    flops: float = 0.0
    notes: tuple[str, ...] = ()
    extras: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def latency_us(self) -> float:
        return self.latency_s * 1e6

    @property
    def bottleneck_reason(self) -> str:
        longest = max(self.phases, key=lambda p: p.time_s) if self.phases else None
        return longest.reason if longest else ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "kernel": self.kernel,
            "hw": self.hw,
            "latency_s": self.latency_s,
            "latency_us": self.latency_us,
            "launch_overhead_s": self.launch_overhead_s,
            "bottleneck": self.bottleneck.value,
            "bottleneck_reason": self.bottleneck_reason,
            "busy_s": {p.value: self.busy_s.get(p, 0.0) for p in PIPELINES},
            "utilization": {p.value: self.utilization.get(p, 0.0) for p in PIPELINES},
            "phases": [p.to_dict() for p in self.phases],
            "overlap_rate": self.overlap_rate,
            "l2_hit_rate": self.l2_hit_rate,
            "l15_hit_rate": self.l15_hit_rate,
            "dram_bytes": self.dram_bytes,
            "flops": self.flops,
            "occupancy": self.occupancy.to_dict(),
            "actions": [a.to_dict() for a in self.actions],
            "notes": list(self.notes),
            "extras": dict(self.extras),
        }

    def __rich__(self) -> Any:
        from .render import render_report

        return render_report(self)

    def __str__(self) -> str:
        from .render import report_text

        return report_text(self)
