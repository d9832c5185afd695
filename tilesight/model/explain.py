"""Bottleneck and reason of one phase, in tile terms ("DDR-bound in steady state: 2.1 MB per tile ...").

A phase is *throughput-bound* by the pipeline with the most busy time in it when that busy time covers at
least ``1 - BOUND_TOLERANCE`` of the phase; otherwise it is *latency-bound* (too little work in flight to
keep any pipeline busy), and the reason says so with the depth that was available.
"""

from __future__ import annotations

from ..plan import PIPELINES, Pipeline
from ..report import PhaseCost

# A pipeline busy for at least 95% of a phase is said to bound it; below that the phase is latency-bound.
BOUND_TOLERANCE = 0.05

_PHASE_WORDS = {"prologue": "prologue", "steady": "steady state", "epilogue": "epilogue", "tail": "tail wave"}
_WHAT = {
    Pipeline.TC: ("GFLOP", 1e9, "on tensor cores", "TFLOP/s", 1e12),
    Pipeline.CUDA: ("GFLOP", 1e9, "on CUDA cores", "TFLOP/s", 1e12),
    Pipeline.SFU: ("Gop", 1e9, "on SFUs", "Top/s", 1e12),
    Pipeline.TMEM: ("MB", 1e6, "through tensor memory", "GB/s", 1e9),
    Pipeline.SMEM: ("MB", 1e6, "through the SM's load/store path (shared and local memory)", "GB/s", 1e9),
    Pipeline.L1_5: ("MB", 1e6, "through L1.5", "GB/s", 1e9),
    Pipeline.L2: ("MB", 1e6, "through L2", "GB/s", 1e9),
    Pipeline.DDR: ("MB", 1e6, "from DRAM", "GB/s", 1e9),
}


def amount_text(pipe: Pipeline, amount: float, busy_s: float) -> str:
    """``"2.10 MB per tile from DRAM at 32 GB/s per SM"`` for one tile's amount and busy time (for the SM's
    load/store path busy with no bytes, its time)."""
    if pipe is Pipeline.NET:
        return f"{busy_s * 1e6:.3g} us per tile on the network"
    if pipe is Pipeline.SMEM and amount <= 0.0:
        # busy with instructions rather than bytes: a cross-warp reduction's shuffles and exchange, the issue
        # of narrow loads and stores
        where = "of instructions on the SM's load/store path (shuffles, exchanges)"
        return f"{busy_s * 1e6:.3g} us per tile {where}"
    unit, scale, where, rate_unit, rate_scale = _WHAT[pipe]
    rate = amount / busy_s if busy_s > 0 else 0.0
    return f"{amount / scale:.3g} {unit} per tile {where} at {rate / rate_scale:.3g} {rate_unit} per SM"


def phase_cost(
    phase: str,
    time_s: float,
    busy: tuple[float, ...],
    per_tile_amount: tuple[float, ...],
    per_tile_busy: tuple[float, ...],
    latency_why: str,
    prefix: str = "",
) -> PhaseCost:
    """The PhaseCost of one phase: bottleneck = the busiest pipeline; reason throughput- or latency-bound."""
    r = busy.index(max(busy))  # the first busiest pipeline
    pipe = PIPELINES[r]
    words = _PHASE_WORDS[phase]
    if time_s <= 0.0:
        reason = f"{prefix}no {words}"
    elif busy[r] >= (1.0 - BOUND_TOLERANCE) * time_s:
        reason = f"{prefix}{pipe.name.replace('_', '.')}-bound in {words}: " + amount_text(
            pipe, per_tile_amount[r], per_tile_busy[r]
        )
    else:
        reason = f"{prefix}latency-bound in {words}: {latency_why}"
    return PhaseCost(
        phase=phase,
        time_s=time_s,
        bottleneck=pipe,
        busy_s=dict(zip(PIPELINES, busy, strict=True)),
        reason=reason,
    )
