"""Diagnosis: map a Report to the paper's recurring bottleneck classes and to tile-level changes (section 5).

Pure functions. :func:`find_issues` reads one Report (and, when given, its TilePlan and the config that
produced it) and returns the bottleneck classes it shows, each with the config changes worth trying.
:func:`diagnose` takes the what-if re-predictions of those changes, made by the caller (see
:mod:`tilesight.integrations.whatif`), and states each one's predicted effect, e.g.
"GROUP_M=8 raises predicted L2 hit from 41% to 78%: 1.30x faster". Nothing here predicts or guesses a number:
every effect is a ratio of two predictions.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType
from typing import Any

from .cache import compulsory_traffic
from .dtypes import dtype_bytes
from .errors import ProfileError
from .hardware import load_profile
from .plan import MEMORY_PIPELINES, ActionKind, KernelSequence, Pipeline, TilePlan
from .report import CHAIN_PHASE, MERGE_PHASE, ActionStats, Report

# Thresholds that decide whether a class applies. They are reading aids, not model parameters: a finding only
# suggests what to try; the what-if predictions decide whether it helps.
LOW_L2_HIT_RATE = 0.6  # below this, a DDR- or L2-bound kernel has poor L2 locality
# ... unless its DRAM bytes are within this share of its compulsory bytes (each touched byte once): a stream
# reads every byte once whatever the launch order, so no swizzle raises its hit rate
COMPULSORY_DRAM_EXCESS = 0.1
EXPOSED_TIME_FRACTION = 0.3  # the busiest pipeline idles more than this share of the kernel: overlap is poor
LOW_RESIDENT_BLOCKS = 2  # fewer resident blocks per SM than this leaves no block to switch to while one waits
OCCUPANCY_LIMITERS = frozenset({"smem", "registers", "warps", "threads"})  # resource limits (not grid/blocks)
TAIL_WAVE_EFFICIENCY = 0.8  # waves / ceil(waves) below this: the last partial wave wastes SMs
MAX_TAIL_WAVES = 4.0  # beyond this many waves a partial last one costs little
RECOMMENDED_GROUP_SIZE = 8  # the GROUP_M Triton's matmul tutorial uses; the what-if checks it
SWIZZLE_KEY = "use_swizzle"  # the reference TileLang GEMM's switch for its rasterised (swizzled) tile order
MIN_SPEEDUP_TO_RECOMMEND = 1.02  # effects below this are reported as "no gain"
REDUCTION_SMEM_SHARE = 0.5  # an SMEM-bound kernel whose reductions hold this share of that pipeline
ELEMENT_WIDE_SMEM_SHARE = 0.5  # ... whose element-wide loads and stores hold this share of it
ELEMENT_WIDE_MAX_BYTES = 4  # an access of at most this many bytes a thread and one element is element-wide
US_PER_S = 1e6  # display unit
_REUSE_BOUND = frozenset({Pipeline.L2, Pipeline.SMEM, Pipeline.L1_5})

_GROUP_KEY = re.compile(r"^GROUP(_SIZE)?_M$|^group_m$|^GROUP_SIZE$", re.IGNORECASE)
_BLOCK_KEY = re.compile(r"^(BLOCK|block)(_SIZE)?(_[A-Za-z]+)?$")
_STAGES_KEYS = ("num_stages",)
# a constexpr a kernel passes to a loop's own ``tl.range(..., num_stages=...)`` (the fused-softmax tutorial's
# row loop, ``ROW_STAGES``): that loop's depth, which the launch's num_stages does not change
_LOOP_STAGES_KEY = re.compile(r"^([A-Za-z0-9]+_)*STAGES$", re.IGNORECASE)
_WARPS_KEYS = ("num_warps",)


class BottleneckClass(StrEnum):
    INDIRECT_ADDRESSING = "indirect addressing"
    PIPELINE_OVERLAP = "insufficient pipeline overlap"
    L2_LOCALITY = "poor L2 locality"
    OCCUPANCY = "occupancy limit"
    SPILLS = "register spills"
    TAIL_WAVE = "tail wave"
    SMALL_GRID = "small grid"
    TILE_REUSE = "low tile reuse"  # bound by on-chip or L2 bandwidth with cache hits already high
    CROSS_WARP_REDUCTION = "cross-warp reductions"  # the load/store path busy with reductions' exchanges
    SPLIT_STORES = "split sub-word stores"  # the L2 merging partly written sectors (the merges phase)
    ATOMIC_CHAIN = "atomics on the same words"  # the L2 updating a word one atomic at a time (its phase)
    ELEMENT_WIDE = "element-wide accesses"  # the load/store path busy moving one element an instruction
    COMPULSORY_TRAFFIC = (
        "compulsory DRAM traffic"  # DRAM-bound moving each touched byte once: nothing to reuse
    )


# The tile-level change each class calls for (paper section 5, Table 5), in words.
ADVICE: dict[BottleneckClass, str] = {
    BottleneckClass.INDIRECT_ADDRESSING: (
        "unroll or precompute the addresses (load the indices once per tile); sort or group the "
        "indices so neighbouring tiles share cache lines"
    ),
    BottleneckClass.PIPELINE_OVERLAP: (
        "deepen the software pipeline (num_stages, or the stages a loop's own tl.range sets) or keep more "
        "blocks resident so memory and compute overlap"
    ),
    BottleneckClass.L2_LOCALITY: (
        "launch tiles that share operands together (GROUP_M swizzle, a persistent tile order) or "
        "shrink the footprint so concurrent tiles fit in L2"
    ),
    BottleneckClass.OCCUPANCY: (
        "free the limiting resource (fewer stages or a smaller tile for shared memory, fewer "
        "registers per thread) so another block can hide the first one's stalls"
    ),
    BottleneckClass.SPILLS: (
        "spread the tile over more warps or shrink it so its live values fit in registers"
    ),
    BottleneckClass.TAIL_WAVE: (
        "change the tile size so the block count fills whole waves, or make the kernel persistent"
    ),
    BottleneckClass.SMALL_GRID: ("use smaller tiles (or split the reduction) so every SM gets work"),
    BottleneckClass.TILE_REUSE: (
        "use larger output tiles (BLOCK_M/BLOCK_N) so every loaded byte feeds more work and fewer bytes per "
        "FLOP cross the bound pipeline"
    ),
    BottleneckClass.CROSS_WARP_REDUCTION: (
        "reduce each row on fewer warps (num_warps): every warp a row spans adds its shuffles, its partial's "
        "trip through shared memory and the barriers to each reduction, whatever the row's width"
    ),
    BottleneckClass.SPLIT_STORES: (
        "let the compiler prove the length divisible by 16 (pad the buffer and pass the padded length, or "
        "handle the ragged tail in a separate launch) so each thread stores whole 16-byte vectors"
    ),
    BottleneckClass.ATOMIC_CHAIN: (
        "combine within the block before the atomic (reduce the block's values, or keep private bins in "
        "registers or shared memory and add them once per block), or spread the target over more words "
        "(one partial per group of programs, summed by a second pass)"
    ),
    BottleneckClass.ELEMENT_WIDE: (
        "make the row lengths and strides the kernel takes multiples of 16 elements (pad the rows; Triton "
        "specialises an integer argument divisible by 16) and give each thread 16 bytes of a row (BLOCK at "
        "least 16 bytes x 32 x num_warps), so each memory instruction moves a vector, not one element"
    ),
    BottleneckClass.COMPULSORY_TRAFFIC: (
        "move fewer bytes: fuse the kernel with its producer or consumer so intermediates stay on chip, or "
        "store and load narrower types; no launch order or tile size lowers a stream's compulsory traffic"
    ),
}


@dataclass(frozen=True)
class Change:
    """A config change to try: ``delta`` overrides entries of the config."""

    delta: Mapping[str, Any]

    def __post_init__(self) -> None:
        object.__setattr__(self, "delta", MappingProxyType(dict(sorted(self.delta.items()))))

    def __hash__(self) -> int:
        return hash(tuple(self.delta.items()))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Change) and tuple(self.delta.items()) == tuple(other.delta.items())

    @property
    def label(self) -> str:
        return " ".join(f"{k}={v}" for k, v in self.delta.items())

    def apply(self, config: Mapping[str, Any]) -> dict[str, Any]:
        return {**config, **self.delta}


@dataclass(frozen=True)
class Issue:
    """One bottleneck class the report shows; ``share`` ranks issues (a fraction of the kernel's time)."""

    cls: BottleneckClass
    evidence: str
    advice: str
    share: float
    changes: tuple[Change, ...] = ()


@dataclass(frozen=True)
class Effect:
    """A change's predicted effect: the two predictions, or why the changed config cannot run."""

    change: Change
    metric: str
    before: float
    after: float | None
    speedup: float | None
    error: str | None = None

    def sentence(self) -> str:
        if self.error is not None:
            return f"{self.change.label}: not predicted ({self.error})"
        assert self.after is not None and self.speedup is not None
        verb = "raises" if self.after > self.before else "lowers" if self.after < self.before else "keeps"
        metric = f"{verb} predicted {self.metric} from {_fmt(self.metric, self.before)}"
        if verb != "keeps":
            metric += f" to {_fmt(self.metric, self.after)}"
        if self.speedup >= MIN_SPEEDUP_TO_RECOMMEND:
            gain = f"{self.speedup:.2f}x faster"
        elif self.speedup <= 1 / MIN_SPEEDUP_TO_RECOMMEND:
            gain = f"{1 / self.speedup:.2f}x slower"
        else:
            gain = "no gain"
        return f"{self.change.label} {metric}: {gain}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "change": dict(self.change.delta),
            "metric": self.metric,
            "before": self.before,
            "after": self.after,
            "speedup": self.speedup,
            "error": self.error,
            "sentence": self.sentence(),
        }


@dataclass(frozen=True)
class Finding:
    issue: Issue
    effects: tuple[Effect, ...] = ()

    @property
    def best(self) -> Effect | None:
        ok = [e for e in self.effects if e.speedup is not None]
        return max(ok, key=lambda e: e.speedup or 0.0) if ok else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "class": self.issue.cls.value,
            "evidence": self.issue.evidence,
            "advice": self.issue.advice,
            "share": self.issue.share,
            "effects": [e.to_dict() for e in self.effects],
        }


@dataclass(frozen=True)
class Diagnosis:
    kernel: str
    hw: str
    latency_s: float
    bottleneck: Pipeline
    reason: str
    findings: tuple[Finding, ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        return {
            "kernel": self.kernel,
            "hw": self.hw,
            "latency_s": self.latency_s,
            "bottleneck": self.bottleneck.value,
            "reason": self.reason,
            "findings": [f.to_dict() for f in self.findings],
        }


# -- metrics an effect is stated in ------------------------------------------------------------------------
def _bottleneck_util(r: Report) -> float:
    return max(r.utilization.values(), default=0.0)


METRICS: dict[BottleneckClass, tuple[str, Callable[[Report], float]]] = {
    BottleneckClass.L2_LOCALITY: ("L2 hit", lambda r: r.l2_hit_rate),
    BottleneckClass.PIPELINE_OVERLAP: ("busiest-pipeline utilisation", _bottleneck_util),
    BottleneckClass.OCCUPANCY: ("resident blocks per SM", lambda r: float(r.occupancy.resident_blocks)),
    BottleneckClass.TAIL_WAVE: ("waves", lambda r: r.occupancy.waves),
    BottleneckClass.SMALL_GRID: ("blocks", lambda r: float(r.occupancy.blocks)),
    BottleneckClass.SPILLS: ("latency (us)", lambda r: r.latency_us),
    BottleneckClass.INDIRECT_ADDRESSING: ("latency (us)", lambda r: r.latency_us),
    BottleneckClass.TILE_REUSE: (
        "busiest-pipeline busy time (us)",
        lambda r: max(r.busy_s.values()) * US_PER_S,
    ),
    BottleneckClass.CROSS_WARP_REDUCTION: ("latency (us)", lambda r: r.latency_us),
    BottleneckClass.SPLIT_STORES: ("latency (us)", lambda r: r.latency_us),
    BottleneckClass.ATOMIC_CHAIN: ("latency (us)", lambda r: r.latency_us),
    BottleneckClass.ELEMENT_WIDE: ("latency (us)", lambda r: r.latency_us),
    BottleneckClass.COMPULSORY_TRAFFIC: ("DRAM MB", lambda r: r.dram_bytes / 1e6),
}
_PERCENT_METRICS = frozenset({"L2 hit", "busiest-pipeline utilisation"})


def _fmt(metric: str, value: float) -> str:
    if metric in _PERCENT_METRICS:
        return f"{value:.0%}"
    return f"{value:.3g}"


# -- candidate changes ---------------------------------------------------------------------------------------
def _keys(config: Mapping[str, Any], pattern: re.Pattern[str]) -> list[str]:
    return [
        k for k, v in config.items() if pattern.match(k) and isinstance(v, int) and not isinstance(v, bool)
    ]


def _block_changes(config: Mapping[str, Any], factor: float) -> tuple[Change, ...]:
    out = []
    for key in _keys(config, _BLOCK_KEY):
        if key.upper().endswith("_K"):
            continue  # the reduction block does not change the grid
        value = int(config[key] * factor)
        if value >= 16 and value != config[key]:
            out.append(Change({key: value}))
    return tuple(out)


def _int_change(
    config: Mapping[str, Any], keys: tuple[str, ...], step: Callable[[int], int]
) -> tuple[Change, ...]:
    for key in keys:
        value = config.get(key)
        if (
            isinstance(value, int)
            and not isinstance(value, bool)
            and step(value) >= 1
            and step(value) != value
        ):
            return (Change({key: step(value)}),)
    return ()


def _stage_changes(config: Mapping[str, Any], step: Callable[[int], int]) -> tuple[Change, ...]:
    """The launch's ``num_stages`` and every loop-stage constexpr (:data:`_LOOP_STAGES_KEY`) stepped, each a
    change of its own."""
    keys = (*_STAGES_KEYS, *(k for k in config if k not in _STAGES_KEYS and _LOOP_STAGES_KEY.match(k)))
    return tuple(change for key in keys for change in _int_change(config, (key,), step))


# -- the rules -----------------------------------------------------------------------------------------------
def find_issues(
    report: Report, plan: TilePlan | KernelSequence | None = None, config: Mapping[str, Any] | None = None
) -> tuple[Issue, ...]:
    """The bottleneck classes ``report`` shows, largest share first, with changes to try on ``config``
    (for a kernel sequence: its kernels' tensors and spills, and the combined report)."""
    cfg = dict(config or {})
    occ = report.occupancy
    latency = max(report.latency_s, 1e-30)
    issues: list[Issue] = []
    # the L2's merges of split stores come after the schedule (a floor on the launch): the other classes read
    # the schedule's own bottleneck and utilisation
    merges = sum(p.time_s for p in report.phases if p.phase == MERGE_PHASE)
    # ... as do the atomics on one word, which wait for each other (the atomic chain phase)
    chain = sum(p.time_s for p in report.phases if p.phase == CHAIN_PHASE)
    bottleneck, exposed = _schedule(report, merges + chain)
    in_schedule = max(latency - merges - chain, 0.0) / latency  # the schedule's share of the kernel's time
    memory_bound = bottleneck in MEMORY_PIPELINES
    if merges > 0:
        issues.append(
            Issue(
                BottleneckClass.SPLIT_STORES,
                f"the L2 merges partly written sectors for {merges * US_PER_S:.3g} of "
                f"{latency * US_PER_S:.3g} us: stores narrower than a 4-byte word, lanes a mask left apart",
                ADVICE[BottleneckClass.SPLIT_STORES],
                merges / latency,
            )
        )
    if chain > 0:
        issues.append(
            Issue(
                BottleneckClass.ATOMIC_CHAIN,
                f"atomics on the same words wait for each other for {chain * US_PER_S:.3g} of "
                f"{latency * US_PER_S:.3g} us: the L2 updates a word one atomic at a time",
                ADVICE[BottleneckClass.ATOMIC_CHAIN],
                chain / latency,
            )
        )

    plans = plan.plans if isinstance(plan, KernelSequence) else () if plan is None else (plan,)
    if plans:
        indirect = list(dict.fromkeys(t.name for p in plans for t in p.tensors if t.indirect))
        if indirect and memory_bound:
            issues.append(
                Issue(
                    BottleneckClass.INDIRECT_ADDRESSING,
                    f"{', '.join(indirect)} read through an index tensor, {bottleneck.value}-bound",
                    ADVICE[BottleneckClass.INDIRECT_ADDRESSING],
                    (1.0 - exposed) * in_schedule,
                )
            )
        spill = max(p.resources.spill_bytes_per_thread for p in plans)
        if spill > 0:
            issues.append(
                Issue(
                    BottleneckClass.SPILLS,
                    f"{spill} bytes per thread spill to local memory",
                    ADVICE[BottleneckClass.SPILLS],
                    report.utilization.get(Pipeline.L2, 0.0),
                    (*_int_change(cfg, _WARPS_KEYS, lambda v: v * 2), *_block_changes(cfg, 0.5)),
                )
            )

    floor = _compulsory_dram_bytes(report, plans)
    compulsory = floor is not None and report.dram_bytes <= (1.0 + COMPULSORY_DRAM_EXCESS) * floor
    if bottleneck is Pipeline.DDR and compulsory:
        assert floor is not None
        issues.append(
            Issue(
                BottleneckClass.COMPULSORY_TRAFFIC,
                f"ddr-bound at {report.utilization.get(Pipeline.DDR, 0.0):.0%} of the DRAM's time, moving "
                f"{report.dram_bytes / 1e6:.4g} MB where its tensors touch {floor / 1e6:.4g} MB: each byte "
                "crosses DRAM once at most",
                ADVICE[BottleneckClass.COMPULSORY_TRAFFIC],
                (1.0 - exposed) * in_schedule,
            )
        )
    elif (
        bottleneck in (Pipeline.DDR, Pipeline.L2) and report.l2_hit_rate < LOW_L2_HIT_RATE and not compulsory
    ):
        groups = _keys(cfg, _GROUP_KEY)
        changes = tuple(
            Change({g: RECOMMENDED_GROUP_SIZE}) for g in groups if cfg[g] != RECOMMENDED_GROUP_SIZE
        )
        if cfg.get(SWIZZLE_KEY) is False:  # TileLang's T.use_swizzle(enable=...) factory argument
            changes += (Change({SWIZZLE_KEY: True}),)
        issues.append(
            Issue(
                BottleneckClass.L2_LOCALITY,
                f"{bottleneck.value}-bound with an L2 hit rate of {report.l2_hit_rate:.0%}",
                ADVICE[BottleneckClass.L2_LOCALITY],
                report.utilization.get(Pipeline.DDR, 0.0),
                changes,
            )
        )

    reducing = _reduction_share(report, plans, bottleneck)
    if reducing is not None:
        share, warps = reducing
        halve = _int_change(cfg, _WARPS_KEYS, lambda v: max(v // 2, 1))
        quarter = _int_change(cfg, _WARPS_KEYS, lambda v: max(v // 4, 1))
        issues.append(
            Issue(
                BottleneckClass.CROSS_WARP_REDUCTION,
                f"smem-bound: row reductions across {warps} warps hold {share:.0%} of the SM's load/store "
                "path (shuffles, partials through shared memory, barriers), not bytes",
                ADVICE[BottleneckClass.CROSS_WARP_REDUCTION],
                share * (1.0 - exposed) * in_schedule,
                tuple(dict.fromkeys((*halve, *quarter))),
            )
        )
    narrow = _element_wide_share(report, plans, bottleneck)
    if narrow is not None and reducing is None:
        share, names = narrow
        issues.append(
            Issue(
                BottleneckClass.ELEMENT_WIDE,
                f"smem-bound: {', '.join(names)} move one element a thread an instruction and hold "
                f"{share:.0%} of the SM's load/store path",
                ADVICE[BottleneckClass.ELEMENT_WIDE],
                share * (1.0 - exposed) * in_schedule,
            )
        )
    high_hit_ddr = bottleneck is Pipeline.DDR and report.l2_hit_rate >= LOW_L2_HIT_RATE and not compulsory
    reuse_bound = bottleneck in _REUSE_BOUND and reducing is None and narrow is None
    if (reuse_bound or high_hit_ddr) and exposed <= EXPOSED_TIME_FRACTION:
        issues.append(
            Issue(
                BottleneckClass.TILE_REUSE,
                f"{bottleneck.value}-bound at {1 - exposed:.0%} utilisation with an L2 hit rate of "
                f"{report.l2_hit_rate:.0%}: the traffic itself, not misses, bounds the kernel",
                ADVICE[BottleneckClass.TILE_REUSE],
                (1.0 - exposed) * in_schedule,
                _block_changes(cfg, 2.0),
            )
        )
    if exposed > EXPOSED_TIME_FRACTION:
        issues.append(
            Issue(
                BottleneckClass.PIPELINE_OVERLAP,
                f"the busiest pipeline ({bottleneck.value}) works {1 - exposed:.0%} of the "
                f"{'schedule' if merges else 'kernel'}; "
                f"overlap rate {report.overlap_rate:.0%}",
                ADVICE[BottleneckClass.PIPELINE_OVERLAP],
                exposed * in_schedule,
                _stage_changes(cfg, lambda v: v + 1),
            )
        )

    if (
        occ.resident_blocks < LOW_RESIDENT_BLOCKS
        and occ.limiter in OCCUPANCY_LIMITERS
        and occ.blocks > occ.sm_count
    ):
        changes: tuple[Change, ...] = ()
        if occ.limiter == "smem":
            changes = _stage_changes(cfg, lambda v: v - 1)
        elif occ.limiter in ("registers", "warps", "threads"):
            changes = _int_change(cfg, _WARPS_KEYS, lambda v: v // 2)
        issues.append(
            Issue(
                BottleneckClass.OCCUPANCY,
                f"{occ.resident_blocks} resident block(s) per SM, limited by {occ.limiter} "
                f"(limits: {', '.join(f'{k}={v}' for k, v in sorted(occ.limits.items()))})",
                ADVICE[BottleneckClass.OCCUPANCY],
                max(exposed, 0.0) * in_schedule,
                changes,
            )
        )

    if occ.blocks < occ.sm_count:
        issues.append(
            Issue(
                BottleneckClass.SMALL_GRID,
                f"{occ.blocks} blocks for {occ.sm_count} SMs: {occ.sm_count - occ.blocks} SMs idle",
                ADVICE[BottleneckClass.SMALL_GRID],
                1.0 - occ.blocks / occ.sm_count,
                _block_changes(cfg, 0.5),
            )
        )
    elif occ.tail_blocks > 0 and occ.waves <= MAX_TAIL_WAVES:
        full = occ.full_waves + 1
        efficiency = occ.waves / full
        if efficiency < TAIL_WAVE_EFFICIENCY:
            tail = sum(p.time_s for p in report.phases if p.phase == "tail")
            issues.append(
                Issue(
                    BottleneckClass.TAIL_WAVE,
                    f"{occ.waves:.2f} waves: the last wave runs {occ.tail_blocks} blocks on "
                    f"{occ.tail_active_sms} of {occ.sm_count} SMs ({efficiency:.0%} wave efficiency)",
                    ADVICE[BottleneckClass.TAIL_WAVE],
                    tail / latency if tail else 1.0 - efficiency,
                    (*_block_changes(cfg, 0.5), *_block_changes(cfg, 2.0)),
                )
            )

    return tuple(sorted(issues, key=lambda i: -i.share))


def _compulsory_dram_bytes(report: Report, plans: tuple[TilePlan, ...]) -> float | None:
    """The DRAM bytes the plans cannot avoid, each tensor's touched bytes once (reads an earlier kernel left
    in L2 aside): :func:`~tilesight.cache.compulsory_traffic` on the report's GPU. None without plans or
    where the report's GPU is not a known profile (a profile built in code): the caller then reads the hit
    rate alone."""
    if not plans:
        return None
    try:
        hw = load_profile(report.hw)
    except ProfileError:
        return None
    return sum(compulsory_traffic(p, hw).dram_bytes for p in plans)


def _schedule(report: Report, beyond: float) -> tuple[Pipeline, float]:
    """(bottleneck, exposed share) of the report's schedule: with no split-store merges or atomic chain the
    report's own bottleneck and ``1 -`` its busiest pipeline's utilisation; with them (``beyond`` seconds
    after the schedule), the bottleneck of the longest other phase and the utilisation over the schedule's
    time."""
    util = _bottleneck_util(report)
    others = [p for p in report.phases if p.phase not in (MERGE_PHASE, CHAIN_PHASE)]
    if beyond <= 0 or not others or report.latency_s <= beyond:
        return report.bottleneck, 1.0 - util
    scheduled = report.latency_s / (report.latency_s - beyond)
    return max(others, key=lambda p: p.time_s).bottleneck, 1.0 - min(util * scheduled, 1.0)


def _reduction_share(
    report: Report, plans: tuple[TilePlan, ...], bottleneck: Pipeline
) -> tuple[float, int] | None:
    """(share of the SMEM pipeline's busy time its reductions hold, the most warps one spans) for a report
    whose schedule is SMEM-bound (``bottleneck``, :func:`_schedule`'s) and whose plan reduces rows to one
    value across warps (what the engine charges there), its reductions holding at least REDUCTION_SMEM_SHARE
    of that pipeline; None otherwise."""
    if bottleneck is not Pipeline.SMEM or not plans or not report.actions:
        return None
    rows = (a for p in plans for a, _ in p.actions() if a.kind is ActionKind.REDUCE and a.outputs == 1)
    warps = max((a.warps or 1 for a in rows), default=1)
    share = _smem_share(report, lambda a: a.kind == ActionKind.REDUCE.value)
    if warps <= 1 or share < REDUCTION_SMEM_SHARE:
        return None
    return share, warps


def _smem_share(report: Report, held: Callable[[ActionStats], bool]) -> float:
    """The share of the SMEM pipeline's busy time (over the report's actions) the actions ``held`` picks
    hold; 0 where that pipeline is idle."""
    total = sum(a.busy_s.get(Pipeline.SMEM, 0.0) for a in report.actions)
    picked = sum(a.busy_s.get(Pipeline.SMEM, 0.0) for a in report.actions if held(a))
    return picked / total if total > 0 else 0.0


def _element_wide_share(
    report: Report, plans: tuple[TilePlan, ...], bottleneck: Pipeline
) -> tuple[float, list[str]] | None:
    """(share of the SMEM pipeline's busy time element-wide loads and stores hold, their names) for a report
    whose schedule is SMEM-bound (``bottleneck``) and whose plan moves global tensors one element a thread an
    instruction (``vector_bytes`` of one element, at most ELEMENT_WIDE_MAX_BYTES: an unaligned length or
    stride, or a block of one element a thread), those holding at least ELEMENT_WIDE_SMEM_SHARE of that
    pipeline; None otherwise."""
    if bottleneck is not Pipeline.SMEM or not plans or not report.actions:
        return None
    wide = []
    for p in plans:
        for a, _ in p.actions():
            if a.kind not in (ActionKind.LOAD, ActionKind.STORE) or a.tensor is None or not a.vector_bytes:
                continue
            size = dtype_bytes(p.tensor(a.tensor).dtype)
            if a.vector_bytes <= min(size, ELEMENT_WIDE_MAX_BYTES):
                wide.append(a.name)
    share = _smem_share(report, lambda a: a.name in wide)
    if not wide or share < ELEMENT_WIDE_SMEM_SHARE:
        return None
    return share, list(dict.fromkeys(wide))


def proposals(issues: tuple[Issue, ...]) -> tuple[Change, ...]:
    """Every distinct change the issues suggest, in issue order."""
    seen: dict[Change, None] = {}
    for issue in issues:
        for change in issue.changes:
            seen.setdefault(change, None)
    return tuple(seen)


def diagnose(
    report: Report,
    plan: TilePlan | KernelSequence | None = None,
    config: Mapping[str, Any] | None = None,
    whatifs: Mapping[Change, Report | str] | None = None,
) -> Diagnosis:
    """The findings for ``report`` with each suggested change's effect, read from ``whatifs`` (a
    re-prediction, or the reason the changed config cannot run). Changes not in ``whatifs`` are left out."""
    results = whatifs or {}
    findings = []
    for issue in find_issues(report, plan, config):
        name, metric = METRICS[issue.cls]
        effects = []
        for change in issue.changes:
            if change not in results:
                continue
            other = results[change]
            if isinstance(other, str):
                effects.append(Effect(change, name, metric(report), None, None, other))
            else:
                speedup = report.latency_s / other.latency_s if other.latency_s > 0 else None
                effects.append(Effect(change, name, metric(report), metric(other), speedup))
        effects.sort(key=lambda e: -(e.speedup or 0.0))
        findings.append(Finding(issue, tuple(effects)))
    return Diagnosis(
        report.kernel,
        report.hw,
        report.latency_s,
        report.bottleneck,
        report.bottleneck_reason,
        tuple(findings),
    )
