"""One Report for kernels launched back to back (:class:`~tilesight.plan.KernelSequence`).

The kernels of a sequence run one after another on one stream: each starts when the one before it ends, so
the program's latency is the sum of the kernels' latencies, each with its own launch overhead, and every
pipeline's busy time is the sum of theirs. Each kernel is predicted on its own (:func:`.evaluate.evaluate`,
memoised per plan); its cache model starts from an L2 that holds none of its inputs, so a tensor an earlier
kernel of the sequence wrote is read at the hit rate the kernel's own reuse gives it (the report says so).

The combined report keeps every kernel's phases in launch order (each reason names its kernel), its actions
named ``kernel/action``, the L2 and L1.5 hit rates weighted by the bytes each kernel's memory actions move,
the occupancy of the longest kernel, and a per-kernel summary in ``extras["kernels"]``.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..hardware import HardwareProfile
from ..plan import PIPELINES, KernelSequence
from ..report import PhaseCost, Report

_MEMORY_KINDS = ("load", "store")


def _memory_bytes(report: Report) -> float:
    return sum(a.bytes for a in report.actions if a.kind in _MEMORY_KINDS)


def _weighted(values: list[float | None], weights: list[float]) -> float | None:
    pairs = [(v, w) for v, w in zip(values, weights, strict=True) if v is not None]
    if not pairs:
        return None
    total = sum(w for _, w in pairs)
    if total <= 0:
        return sum(v for v, _ in pairs) / len(pairs)
    return sum(v * w for v, w in pairs) / total


def combine(seq: KernelSequence, reports: list[Report], hw: HardwareProfile) -> Report:
    """The Report of ``seq`` from its kernels' reports (``reports[i]`` predicts ``seq.plans[i]``)."""
    if len(reports) != len(seq.plans):
        raise ValueError(f"{len(reports)} reports for {len(seq.plans)} kernels")
    latency = sum(r.latency_s for r in reports)
    overhead = sum(r.launch_overhead_s for r in reports)
    busy = {p: sum(r.busy_s.get(p, 0.0) for r in reports) for p in PIPELINES}
    phases: list[PhaseCost] = []
    for r in reports:
        for ph in r.phases:
            reason = f"{r.kernel}: {ph.reason}" if ph.reason else ph.reason
            phases.append(dataclasses.replace(ph, reason=reason))
    bottleneck = max(phases, key=lambda ph: ph.time_s).bottleneck
    total_busy = sum(busy.values())
    overlap = min(max(1.0 - (latency - overhead) / total_busy, 0.0), 1.0) if total_busy > 0 else 0.0
    weights = [_memory_bytes(r) for r in reports]
    l2 = _weighted([r.l2_hit_rate for r in reports], weights)
    l15 = _weighted([r.l15_hit_rate for r in reports], weights)
    longest = max(reports, key=lambda r: r.latency_s)
    actions = tuple(dataclasses.replace(a, name=f"{r.kernel}/{a.name}") for r in reports for a in r.actions)
    notes = [
        *seq.notes,
        f"{len(reports)} kernels launched back to back, each after the one before it ends; each kernel's "
        "cache model starts without its inputs in L2 (data an earlier kernel wrote is read as a fresh input)",
        f"occupancy shown is the longest kernel's ({longest.kernel})",
    ]
    notes += [f"{r.kernel}: {n}" for r in reports for n in r.notes]
    kernels: list[dict[str, Any]] = [
        {
            "kernel": r.kernel,
            "latency_s": r.latency_s,
            "bottleneck": r.bottleneck.value,
            "bottleneck_reason": r.bottleneck_reason,
            "l2_hit_rate": r.l2_hit_rate,
            "dram_bytes": r.dram_bytes,
            "flops": r.flops,
            "occupancy": r.occupancy.to_dict(),
        }
        for r in reports
    ]
    return Report(
        kernel=seq.name,
        hw=hw.name,
        latency_s=latency,
        launch_overhead_s=overhead,
        busy_s=busy,
        utilization={p: (b / latency if latency > 0 else 0.0) for p, b in busy.items()},
        bottleneck=bottleneck,
        phases=tuple(phases),
        overlap_rate=overlap,
        l2_hit_rate=l2 if l2 is not None else 0.0,
        dram_bytes=sum(r.dram_bytes for r in reports),
        occupancy=longest.occupancy,
        actions=actions,
        l15_hit_rate=l15,
        flops=sum(r.flops for r in reports),
        notes=tuple(notes),
        extras={"kernels": kernels},
    )


__all__ = ["combine"]
