"""One Report for kernels launched back to back (:class:`~tilesight.plan.KernelSequence`).

The kernels of a sequence run one after another on one stream: each starts when the one before it ends, so
the program's latency is the sum of the kernels' latencies, each with its own launch overhead, and every
pipeline's busy time is the sum of theirs. Each kernel is predicted on its own (:func:`.evaluate.evaluate`,
memoised per plan), with the L2 the kernels before it leave (:func:`warmed_plans`): a tensor an earlier kernel
wrote is read from L2 for the share of its lines still there (a split kernel's partial results, read by the
kernel that combines them).

The combined report keeps every kernel's phases in launch order (each reason names its kernel), its actions
named ``kernel/action``, the L2 and L1.5 hit rates weighted by the bytes each kernel's memory actions move,
the occupancy of the longest kernel, and a per-kernel summary in ``extras["kernels"]``.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..cache.base import CacheModel
from ..hardware import HardwareProfile
from ..plan import PIPELINES, AccessMode, KernelSequence, TilePlan
from ..report import PhaseCost, Report
from ..timeline import PHASE_STARTS_EXTRA, TIMELINE_EXTRA, build_timeline

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


def warmed_plans(
    seq: KernelSequence, hw: HardwareProfile, cache_model: CacheModel | None = None
) -> list[TilePlan]:
    """The sequence's plans, each with the L2 its predecessors leave (``TilePlan.l2_warm``).

    After a kernel, each tensor it wrote keeps the share of its lines the cache model finds still in L2 at
    the kernel's end (``TensorTraffic.l2_resident_at_end``). Every later kernel brings lines into L2 (what it
    reads from DRAM and what it writes) and evicts the oldest first, so a share carried past a kernel that
    brings ``B`` bytes keeps ``1 - B / C`` of itself (``C``: the profile's effective L2 capacity). A kernel
    reading a carried tensor starts with that share of its lines in L2.
    """
    from .evaluate import _model_and_key, cached_traffic

    model, key = _model_and_key(cache_model)
    capacity = hw.l2_effective_bytes
    carried: dict[str, float] = {}
    out: list[TilePlan] = []
    for plan in seq.plans:
        reads = {t.name for t in plan.tensors if t.mode in (AccessMode.READ, AccessMode.READ_WRITE)}
        warm = tuple((n, round(w, 6)) for n, w in carried.items() if n in reads and w > 0.0)
        plan = dataclasses.replace(plan, l2_warm=warm) if warm else plan
        out.append(plan)
        traffic = cached_traffic(plan, hw, model, model_key=key)
        # lines this kernel brings into L2: what it reads from DRAM and every line it writes
        brought = traffic.dram_read_bytes + sum(
            t.requested_bytes for t in traffic.tensors.values() if t.write
        )
        keep = max(0.0, 1.0 - brought / capacity) if capacity > 0 else 0.0
        carried = {n: w * keep for n, w in carried.items()}
        for name, t in traffic.tensors.items():
            if t.write:
                carried[name] = t.l2_resident_at_end
    return out


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
        f"{len(reports)} kernels launched back to back, each after the one before it ends; a tensor an "
        "earlier kernel wrote is read from L2 for the share of its lines the cache model leaves there",
        f"occupancy shown is the longest kernel's ({longest.kernel})",
    ]
    notes += [f"{r.kernel}: {n}" for r in reports for n in r.notes]
    # the timeline: each kernel's phases and pipeline intervals after the kernels before it (its launch gap
    # last, as a single kernel's timeline leaves it)
    starts: list[float] = []
    segments: list[tuple[str, float, float, str]] = []
    offset = 0.0
    for r in reports:
        t = offset
        for ph in r.phases:
            starts.append(t)
            t += ph.time_s
        for lane in build_timeline(r).lanes:
            for seg in lane.segments:
                label = f"{r.kernel}: {seg.label}"
                segments.append((seg.pipeline.value, offset + seg.start_s, offset + seg.end_s, label))
        offset += r.latency_s
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
        extras={"kernels": kernels, PHASE_STARTS_EXTRA: starts, TIMELINE_EXTRA: segments},
    )


__all__ = ["combine", "warmed_plans"]
