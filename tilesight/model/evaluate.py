"""The core evaluation: (TilePlan, HardwareProfile) -> Report (paper Algorithms 1 and 2).

1. Cache traffic from the cache model (memoised per plan, profile and model), then one resource vector per
   action (:mod:`.resources`).
2. Resident blocks ``p`` per SM and the wave decomposition (:mod:`.occupancy`).
3. The per-SM tile stream ("over tile-block waves"). The unit is one tile's whole program, evaluated
   recursively (:mod:`.tile`) with every inner loop at depth ``stages - 1`` and each of the ``p`` resident
   blocks getting ``1/p`` of its SM's share (they run concurrently), giving ``L_tile`` and ``L_fill``; its
   usage ``U_tile`` is per tile at the SM's full share.

   * Full region: every SM busy; each runs ``n = full_waves x p x k`` units (``k`` tiles per program for a
     persistent kernel, 1 otherwise) at depth ``p - 1`` with bandwidth split over all SMs:
     ``T_full = envelope(unit, n, p - 1)``, the ``p`` resident blocks queueing for the SM's busiest pipeline
     where their latency sets the pace (the envelope's ``queued``: mean value analysis of ``p`` blocks).
   * Tail: ``r`` leftover blocks on ``a = min(SMs, r)`` SMs, ``ceil(r / SMs)`` on the busiest, each of those
     SMs getting ``1/a`` of the chip's DDR/L2 bandwidth (the larger share):
     ``T_tail = envelope(unit_tail, ceil(r / SMs) k, min(p, ceil(r / SMs)) - 1)`` minus the overlap with the
     end of the full region (:func:`tail_overlap`: its epilogue, or ``(p - 1) T_steady`` when a resident slot
     frees earlier), not below 0; after a launch's only full wave, whose blocks started together, no sooner
     than its first block exits (:func:`first_wave_exit_s`), and then the tail's blocks of an SM start
     together as well (its envelope less :func:`started_together_s`). Without a full region the partial wave
     is the only wave and is reported as prologue / steady / epilogue, with no tail.

4. ``T = T_full + T_tail + launch_overhead_s``. Phases for the report: the prologue is the first tile's
   fill, the epilogue the last tile's drain, the steady state everything between (interleaved tiles and the
   inner loops' steady states), and the tail as above.
"""

from __future__ import annotations

import functools
import heapq
import math
from collections import OrderedDict
from collections.abc import Hashable, Mapping
from typing import Any

import numpy as np

from .. import cache as cache_pkg
from ..cache import CacheModel, CacheTraffic, default_cache_model
from ..dtypes import canonical_dtype, dtype_bytes
from ..hardware import HardwareProfile
from ..plan import (
    PIPELINES,
    SYNC_LOAD,
    ActionKind,
    GroupSplit,
    KernelSequence,
    Loop,
    Pipeline,
    TensorAccess,
    TileAction,
    TilePlan,
)
from ..report import CHAIN_PHASE, MERGE_PHASE, ActionStats, Occupancy, PhaseCost, Report
from .envelope import Envelope, envelope
from .explain import phase_cost
from .occupancy import Waves, residency, waves
from .resources import (
    CUDA,
    DDR,
    DDR_QUEUE_MAX_UTILISATION,
    FULL_VECTOR_BYTES,
    L2,
    NPIPES,
    SFU,
    TC,
    ZERO,
    ActionDemand,
    action_demand,
    ddr_queue_s,
    flat_tile,
    full_share_rates,
    lone_load_burst,
    pipelined_load_latency,
    pipelined_refill_latency,
    producer_load_demand,
    region_scale,
    reload_latency_s,
    row_program,
    waited_load_latency,
)
from .tile import (
    BodyCost,
    eval_body,
    loop_busy_s,
    meets_at_stage_barrier,
    on_chip_loop,
    reload_chain_s,
    waits_on_dot,
    waits_on_own_loads,
)

# Cache traffic results kept per (plan, profile, cache model); a small LRU, as plans are re-evaluated with
# the same shapes while a frontend sweeps configurations.
TRAFFIC_CACHE_SIZE = 256
_TRAFFIC: OrderedDict[_Key, tuple[HardwareProfile, CacheTraffic]] = OrderedDict()


def _model_key(model: CacheModel) -> Hashable | None:
    """A cache model's identity for memoisation: its type and its settings; None (do not memoise) when the
    settings are not hashable."""
    state = getattr(model, "__dict__", None)
    key = (type(model), tuple(sorted(state.items())) if state is not None else getattr(model, "name", None))
    try:
        hash(key)
    except TypeError:
        return None
    return key


_DEFAULT_MODELS: dict[str, tuple[CacheModel, Hashable | None]] = {}


def _default_model() -> tuple[CacheModel, Hashable | None]:
    """The default cache model and its memo key, built once per default name (both are pure settings)."""
    name = cache_pkg.DEFAULT_CACHE_MODEL
    hit = _DEFAULT_MODELS.get(name)
    if hit is None:
        model = default_cache_model()
        hit = _DEFAULT_MODELS[name] = (model, _model_key(model))
    return hit


def _model_and_key(cache_model: CacheModel | None) -> tuple[CacheModel, Hashable | None]:
    return _default_model() if cache_model is None else (cache_model, _model_key(cache_model))


class _Key:
    """A memo key ``(plan hash, plan, *rest)`` that hashes once, from the plan's precomputed hash (a plan's
    dataclass hash walks the whole plan every time); equality still compares the plan itself."""

    __slots__ = ("parts", "_hash")

    def __init__(self, plan_hash: int, plan: TilePlan, *rest: Hashable) -> None:
        self.parts = (plan_hash, plan, *rest)
        self._hash = hash((plan_hash, *rest))

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Key) and self._hash == other._hash and self.parts == other.parts


def cached_traffic(
    plan: TilePlan,
    hw: HardwareProfile,
    model: CacheModel,
    *,
    plan_hash: int | None = None,
    model_key: Hashable | None = None,
) -> CacheTraffic:
    """``model.traffic(plan, hw)``, memoised per (plan, profile object, model settings); ``model_key`` is
    :func:`_model_key` of ``model`` when the caller has it."""
    if model_key is None:
        model_key = _model_key(model)
    if model_key is None:
        return model.traffic(plan, hw)
    key = _Key(plan_hash if plan_hash is not None else hash(plan), plan, id(hw), model_key)
    hit = _TRAFFIC.get(key)
    if hit is not None and hit[0] is hw:
        _TRAFFIC.move_to_end(key)
        return hit[1]
    result = model.traffic(plan, hw)
    _TRAFFIC[key] = (hw, result)
    if len(_TRAFFIC) > TRAFFIC_CACHE_SIZE:
        _TRAFFIC.popitem(last=False)
    return result


# Per-profile numbers the evaluation reuses (region scales by active SMs, full-share rates), kept per profile
# object; profiles are frozen, and each entry holds its profile so that its id cannot be reused meanwhile.
PROFILE_CACHE_SIZE = 64
_PROFILE_NUMBERS: dict[tuple[int, int | None], tuple[HardwareProfile, tuple[float, ...]]] = {}


def _per_profile(hw: HardwareProfile, active: int | None) -> tuple[float, ...]:
    key = (id(hw), active)
    hit = _PROFILE_NUMBERS.get(key)
    if hit is not None and hit[0] is hw:
        return hit[1]
    value = full_share_rates(hw) if active is None else region_scale(hw, active, 1)
    if len(_PROFILE_NUMBERS) >= PROFILE_CACHE_SIZE:
        _PROFILE_NUMBERS.clear()
    _PROFILE_NUMBERS[key] = (hw, value)
    return value


def _region_scale(hw: HardwareProfile, active: int) -> tuple[float, ...]:
    """:func:`~.resources.region_scale` of one resident block on ``active`` SMs, per profile object."""
    return _per_profile(hw, active)


def _full_share_rates(hw: HardwareProfile) -> tuple[float, ...]:
    """:func:`~.resources.full_share_rates`, per profile object."""
    return _per_profile(hw, None)


def few_warps_factor(plan: TilePlan, hw: HardwareProfile, resident: int) -> float:
    """How much slower an SM's issue-fed pipelines (CUDA cores, SFU, warp-level tensor cores) run when its
    resident blocks hold fewer warps than it has warp schedulers: each warp issues from one scheduler, so
    ``w`` warps reach ``w / schedulers_per_sm`` of the SM (a 2-warp block alone on an SM uses half of it).
    1 when the warps fill the schedulers or the profile gives no scheduler count. A warpgroup MMA
    (``wgmma``) always spans the four schedulers, so the tensor cores are not scaled for it."""
    if not hw.schedulers_per_sm:
        return 1.0
    warps = resident * math.ceil(plan.resources.threads / hw.warp_size)
    return max(1.0, hw.schedulers_per_sm / warps)


def _has_wgmma(plan: TilePlan) -> bool:
    return any(a.variant == "wgmma" for a, _ in plan.actions())


def _stream_exposure(plan: TilePlan, hw: HardwareProfile) -> float:
    """The share of a tile's L2 time its SM's tensor-core work leaves exposed across the blocks resident on
    the SM (the profile's ``l2_exposed_under_tc``) when the block's own warps issue its loads and wait for a
    dot's result before going on (:func:`~.tile.waits_on_dot`: attention's softmax of ``S``), and its dots run
    at a rate measured without that exposure.

    0 where a producer warpgroup issues the loads (they hide under the consumers' dots, as inside the loop:
    :func:`~.tile.eval_body`); for warp-level ``mma`` dots and for dtypes in the profile's
    ``tc_own_loads``, whose rates were measured on Triton GEMMs whose warps load their own tiles at several
    blocks per SM (the exposure is in the rate); and where no body waits for a dot (a GEMM's dots feed only
    the next dot): the overlap probe's GEMM loop, read at the profile's tensor-core rate (cuBLAS's, which
    the engine charges), runs with its loads in the time of its dots alone (see
    :func:`~.tile.loop_busy_s`). Else the warpgroup-MMA rate comes from cuBLAS, a warp-specialised kernel
    whose loads do not slow its dots, and the exposure is added."""
    if not hw.l2_exposed_under_tc:
        return 0.0
    dots = [a for a, _ in plan.actions() if a.kind is ActionKind.DOT]
    if not dots or any(
        a.variant != "wgmma" or canonical_dtype(a.dtype or "") in hw.tc_own_loads for a in dots
    ):
        return 0.0
    loops = tuple(plan.loops())
    if any(loop.producer_loads for loop in loops):
        return 0.0
    if not any(waits_on_dot(body) for body in (plan.body, *(loop.body for loop in loops))):
        return 0.0
    return hw.l2_exposed_under_tc


def cuda_ddr_norm_s(busy: tuple[float, ...], p: float) -> float:
    """A dot-free tile's pace where its arithmetic and its DRAM traffic are close: the p-norm of the larger
    of its CUDA-core and SFU busy times and its DRAM busy time, ``(t_c^p + t_d^p)^(1/p)`` (the profile's
    ``cuda_ddr_norm_p``). A block loads, computes, then stores: where the two times are far apart the
    smaller hides under the larger; where they are equal a stream of such blocks runs neither flat out (the
    stream_fma probe: 64M bf16 elements with 0-128 FMAs each, p 5.0-7.5 over its four series, 13% over the
    larger time at the balance for p = 5.6). Measured on loop-free tiles; a row loop's passes (the chunked
    LayerNorm) take it too, which the pooled sets follow (its 54 launches 10.5 -> 9.6%)."""
    compute, ddr = max(busy[CUDA], busy[SFU]), busy[DDR]
    if compute <= 0.0 or ddr <= 0.0:
        return max(compute, ddr)
    top = max(compute, ddr)
    return top * ((compute / top) ** p + (ddr / top) ** p) ** (1.0 / p)


def tail_overlap(full_env: Envelope, resident: int) -> float:
    """How much of the tail runs before the full region ends.

    A tail block needs a free resident slot, and a slot frees only when its block exits (its shared memory
    and registers are released at exit). With ``p`` resident blocks the last ``p`` tiles of an SM finish one
    steady interval apart, so the first slot frees ``(p - 1) T_steady`` before the region ends; with one
    resident block the tail cannot start before the region ends. Never more than the full region itself.
    """
    return min((resident - 1) * full_env.steady_s, full_env.total_s)


def first_wave_exit_s(full: _Region) -> float:
    """When the first block of a launch's only full wave exits, from the launch's start, where its blocks
    share their SMs loop iteration by loop iteration: ``units x T_steady``, the tile stream's completion
    intervals for every tile an SM runs in the wave, and no later than the region's end.

    :func:`tail_overlap` has the tail start ``(p - 1) T_steady`` before the full region ends, as in a stream
    of tiles whose blocks started one completion interval apart. A launch dispatches its first wave at once:
    the ``p`` blocks of an SM start together, and where the tile's main loop runs two or more iterations
    they take turns on the SM's pipelines iteration by iteration, so all of them are near their ends when the
    first exits, and the tail's blocks cannot start sooner. A tile without such a loop runs its work through
    each pipeline in one piece, the first block ahead of the next, and exits first as the stagger has it
    (``tests/model/test_evaluate.py``). Only the first wave: later waves start as slots free, one after
    another, which the stagger describes. 0 where the rule does not apply (the stagger's start stands).

    Effect over the pooled launches (docs/tilelang.md, stop 65): GEMM 8.28% either way (the random
    samples' 248 10.01 -> 9.95%), the spilling GEMMs 19.35 -> 19.02%, memory 7.51 -> 7.48%, attention
    6.03 -> 6.01% (the random samples' 142 7.73 -> 7.11%). Applied to every wave, GEMM 8.28 -> 8.65%.

    Where the rule holds, the blocks of the wave end together, so the tail's blocks of an SM start together
    too: the tail region ends :func:`started_together_s` sooner than its staggered envelope (stop 89). Over
    the pooled launches GEMM 8.185 -> 8.162% (59 moved, 32 closer), attention 5.137 -> 5.136% (10, 8),
    memory 6.899 -> 6.869% (16, 12), the spilling GEMMs 18.91 -> 18.99%; vLLM's block-scaled fp8 GEMM (one
    wave of two blocks an SM and a tail of 248, latency-bound) 569 -> 490 us on the h100 profile, measured
    257 on an H100.
    """
    main_env = full.cost.main_env
    if main_env is None or main_env.iterations < 2:
        return 0.0
    return min(full.units * full.env.steady_s, full.env.total_s)


def tail_sharing_sms(wv: Waves) -> float:
    """How many SMs' worth the chip's L2 and DRAM bandwidth is split into for the busiest SM of a tail (or of
    a grid of one partial wave): ``tail_blocks / tail_per_sm``, the busiest SM's share of the tail's blocks.

    Where the tail's blocks spread unevenly (192 blocks on 132 SMs: 60 SMs hold two, 72 hold one) the SMs
    ask for bandwidth in proportion to the blocks they run, so the busiest draws ``tail_per_sm /
    tail_blocks`` of it (two of 192: a 96th), not a 132nd. Where every active SM holds as many blocks,
    this is the active SM count, as before.

    Effect over the pooled launches (docs/accuracy-triton.md, stop 37): GEMM 9.22 -> 8.94% over 1,152,
    attention 6.57 -> 6.51%, memory 8.47% unchanged; blind on validation 39, 13.0 -> 8.6%. The main set's
    decode-shaped GEMMs (7.7 -> 11.4%) and its row kernels with tails (memory 6.58 -> 6.83%) come out faster
    than measured; they were already fast. Called for a tail only (``tail_blocks`` > 0, so
    ``tail_per_sm`` >= 1)."""
    return wv.tail_blocks / wv.tail_per_sm


def started_together_s(region: _Region) -> float:
    """How much sooner a region ends because the blocks an SM starts with start together.

    The region's envelope (``L + (n - 1) T_steady`` over its ``n`` tiles an SM) staggers every tile one
    steady interval after the last, the first ``k = min(n, resident)`` too; but a launch dispatches its first
    wave at once, so those ``k`` blocks start together and the region ends ``(k - 1) T_steady`` sooner. What
    they share still bounds it: no sooner than ``L + (n - 1) U`` (``L`` the tile's latency, ``U`` what paces
    the stream of tiles: its busiest pipeline with the exposed L2 share, or the block dispatch). A grid with
    full waves and a tail already has this: the tail starts :func:`tail_overlap` ``= (p - 1) T_steady``
    before the full waves end, the same stagger given back; so this applies where the region is the
    launch's only one (whole waves, or a single partial wave). docs/accuracy-triton.md, stop 37, has what it
    does to the measured launches.
    """
    k = min(region.units, region.resident)
    if k <= 1:
        return 0.0
    env = region.env
    floor = env.latency_s + (region.units - 1) * region.pace_s
    return max(min((k - 1) * env.steady_s, env.total_s - floor), 0.0)


def _scaled(v: tuple[float, ...], k: float) -> tuple[float, ...]:
    return tuple([x * k for x in v])


def _sub(a: tuple[float, ...], b: tuple[float, ...]) -> tuple[float, ...]:
    return tuple([max(x - y, 0.0) for x, y in zip(a, b, strict=True)])


class _Region:
    """One region of the tile stream (full waves or tail): its unit cost and envelope."""

    __slots__ = (
        "active", "resident", "units", "scale", "cost", "unit_busy", "pace_s", "serial_s", "env", "reload",
        "barrier_s",
    )  # fmt: skip

    def __init__(
        self,
        plan: TilePlan,
        demands,
        hw: HardwareProfile,
        active: int,
        resident: int,
        units: int,
        same_as: _Region | None = None,
        tiles_per_block: int = 1,
        sharing: float | None = None,
    ):
        self.active = active
        self.resident = resident
        self.units = units
        # One tile as it runs alone on its SM, with the SM's share of the chip (``active`` SMs split L2/DDR,
        # or ``sharing`` SMs' worth where the SMs hold unequal numbers of blocks: tail_sharing_sms): its
        # latency feeds Little's law over the ``resident`` tiles in flight, its busy time the throughput
        # bound. (Giving each resident block 1/p of every pipeline for its whole life would serialise the
        # phases of the p blocks, which in fact interleave.)
        self.scale = _region_scale(hw, sharing if sharing is not None else active)
        few = few_warps_factor(plan, hw, resident)
        if few > 1.0:
            # fewer resident warps than warp schedulers: the SM's issue-fed pipelines run partly idle
            sc = list(self.scale)
            for r in (CUDA, SFU) if _has_wgmma(plan) else (TC, CUDA, SFU):
                sc[r] *= few
            self.scale = tuple(sc)
        alone = resident == 1  # a block alone on its SM waits for its own loads (tilesight.model.tile)
        block_warps = math.ceil(plan.resources.threads / hw.warp_size)  # ... and meets them at its barrier
        # (what that meeting adds to a lone one-group loop's chain that waits for its own loads and dots)
        one_group = plan.resources.compute_groups == 1
        self.barrier_s = hw.reduction_latency(block_warps) if alone and one_group else 0.0
        reload = self.reload = reload_latency_s(plan, hw, resident)
        if (
            same_as is not None
            and same_as.scale == self.scale
            and (same_as.resident == 1) == alone
            and same_as.reload == reload
        ):
            self.cost: BodyCost = same_as.cost  # e.g. a tail that still fills every SM
        else:
            self.cost = eval_body(
                plan.body,
                demands,
                self.scale,
                plan.resources.compute_groups,
                exposed=hw.l2_exposed_under_tc,
                alone=alone,
                step_latency=hw.waited_step_latency_s,
                port=(hw.l2_latency_s, hw.l2_bw_per_sm_bytes_per_s) if hw.l2_bw_per_sm_bytes_per_s else None,
                softmax_serial=bool(hw.sfu_tc_serialised),
                groups_own_rows=plan.resources.group_split is GroupSplit.ROWS,
                reload_latency=reload,
                barrier_s=self.barrier_s,
                meeting_s=hw.reduction_latency(block_warps),
            )
        self.unit_busy = self.cost.busy_s
        # An SM takes in one new block per block_dispatch_s at best: a stream of short tiles is bounded by
        # that too (a persistent program pays it once for all its tiles).
        dispatch = hw.block_dispatch_s / tiles_per_block
        # A persistent program (several tiles per block) runs a tile's fill, drain and stores under its
        # neighbours' main loops: it pays them once (persistent_overlap_s)
        persistent = tiles_per_block > 1
        overlap = persistent_overlap_s(self.cost) if persistent else 0.0
        latency = self.cost.latency_s - overlap
        # each resident program keeps tiles_in_flight of its tiles going (a pipelined row loop's rows)
        in_flight = resident * (plan.grid.tiles_in_flight if persistent else 1)
        fill = self.cost.fill_s
        flat = flat_tile(plan)  # a tile with no loop inside: a row
        if persistent and row_program(plan):
            # row programs that do not load their next row while they compute this one
            fill, latency = unpipelined_row_latency_s(plan, hw, self.cost, demands, latency, resident)
        # what paces the stream of tiles: the busiest pipeline (with its exposed L2 share) or the dispatch
        self.pace_s = max(loop_busy_s(self.unit_busy, _stream_exposure(plan, hw)), dispatch)
        if hw.cuda_ddr_norm_p and not plan.has_dots:
            # a dot-free tile whose arithmetic and DRAM times are close takes more than either
            # (cuda_ddr_norm_p)
            self.pace_s = max(self.pace_s, cuda_ddr_norm_s(self.unit_busy, hw.cuda_ddr_norm_p))
        # ... but each computes its tiles one after another: the stream runs no faster than the resident
        # programs each taking a tile's serial time
        rows = in_flight > resident and flat
        self.serial_s = row_serial_s(plan, hw, self.cost) if rows else 0.0
        env = envelope(
            latency,
            min(fill, latency),
            self.pace_s,
            units,
            in_flight - 1,
            serial_s=self.serial_s / resident,
            queued=True,
        )
        if overlap > 0.0:
            env = env._replace(
                latency_s=self.cost.latency_s,
                fill_s=self.cost.fill_s,
                prologue_s=env.prologue_s + overlap,
                total_s=env.total_s + overlap,
            )
        self.env: Envelope = env


# Elements a thread of a pipelined row loop's reduction holds that cost its row's serial time nothing beyond
# the chain: the row_ring probe's softmax rows of 2-8 elements a thread took -7 to 74 ns a row more than the
# rest of the serial row time, those of 16-128 about 24 ns more for every element beyond 8
# (``python benchmarks/probe_report.py row_ring``).
ROW_ELEMENTS_HIDDEN = 8


def row_serial_s(plan: TilePlan, hw: HardwareProfile, cost: BodyCost) -> float:
    """What one tile of a software-pipelined persistent row loop (``TileGrid.tiles_in_flight`` > 1, a tile
    body with no loop inside) takes its program however many tiles' loads run ahead: the tile's compute
    chain (``cost.compute_chain_s``), each reduction's whole shuffle tree (``warp_reduction_latency_s``: a
    REDUCE action's latency is only its cross-warp exchange, the tree being hidden by other warps where
    programs do not wait on their own rows) and the loop's step (``row_loop_step_s``: the wait for the row's
    copies, the barrier, the next row's copy issue). The ``row_ring`` probe
    (``benchmarks/data/calibration_row_ring.json``, ``python benchmarks/probe_report.py row_ring``): at one
    program an SM a 1024-wide float16 softmax row took 518-634 ns at 4-5 rows in flight on 4-16 warps, no
    less than at 2, where the chain alone is 234-383 ns. Rows whose reductions hold more than
    :data:`ROW_ELEMENTS_HIDDEN` elements a thread add ``row_element_step_s`` for each element beyond (the
    ``row_ring_wide`` probe: 16-128 elements a thread, a row's time above the rest a median 24 ns an element
    beyond 8, on 4-16 warps): the chain prices a row's element work at the SM's throughput, but a thread
    runs its own elements one stream of instructions after another."""
    reduces = [act for act, _ in plan.actions() if act.kind is ActionKind.REDUCE]
    trees = sum(1 for act in reduces if act.warps) * hw.warp_reduction_latency_s
    per_thread = max((act.flops / plan.resources.threads for act in reduces), default=0.0)
    elements = hw.row_element_step_s * max(per_thread - ROW_ELEMENTS_HIDDEN, 0.0)
    return cost.compute_chain_s + trees + hw.row_loop_step_s + elements


def unpipelined_row_latency_s(
    plan: TilePlan,
    hw: HardwareProfile,
    cost: BodyCost,
    demands: Mapping[str, ActionDemand],
    latency: float,
    resident: int,
) -> tuple[float, float]:
    """(fill, latency) of one tile of a persistent program whose tile loop has no loop inside and keeps one
    tile in flight (``TileGrid.tiles_in_flight`` 1: ``num_stages`` 1 or 2, where Triton issues the next row's
    copies after this row's compute and stores), ``resident`` such programs an SM: each row waits for its own
    loads, then computes.

    * Its loads wait the idle DRAM round trip (``ddr_idle_latency_s``, the calibration suite's pointer chase)
      plus the other programs' rows ahead of them on the SM (``resident - 1`` rows' DRAM bytes at
      ``ddr_stream_per_sm_bytes_per_s``), at most the loaded ``ddr_latency_s`` (Little's law on a streaming
      copy, its tiles in flight over the rate one block streams them at), for the share DRAM serves. The
      ``row_ring`` probe's programs copying 2 KB rows at one or two stages take 465-627 ns a row alone on
      their SM and 558-732 two an SM (``python benchmarks/probe_report.py row_ring``): the loaded figure
      gave them 1.05 and 1.09 us, this 580 and 670 ns.
    * Its compute is at least the row's serial time (:func:`row_serial_s`: the chain, the reductions'
      trees, the loop's step and a thread's elements one after another), as the pipelined row loop's: the
      pooled Triton softmax rows at two stages on 4 warps with 64-128 elements a thread ran a median 1.23x
      their prediction without it.

    ``latency``: the tile's latency as the body's schedule gives it (persistent overlap taken off). The fill
    is the body's (``cost.fill_s``, when its first compute starts) less the loaded figure's excess for the
    loads' DRAM share; the body's own where the profile gives no idle figure (or, at more than one program
    an SM, no stream rate)."""
    loads = [
        demands[act.name]
        for act in plan.body
        if isinstance(act, TileAction) and act.kind is ActionKind.LOAD and act.name in demands
    ]
    misses = [1.0 - min(max(d.l2_hit or 0.0, 0.0), 1.0) for d in loads]
    wait = hw.ddr_latency_s
    if hw.ddr_idle_latency_s and (resident == 1 or hw.ddr_stream_per_sm_bytes_per_s):
        ahead = (resident - 1) * sum(d.bytes * m for d, m in zip(loads, misses, strict=True))
        wait = hw.ddr_idle_latency_s + (ahead / hw.ddr_stream_per_sm_bytes_per_s if ahead else 0.0)
    gap = max(hw.ddr_latency_s - wait, 0.0)
    fill = max(cost.fill_s - gap * max(misses, default=0.0), 0.0)
    return fill, fill + max(latency - cost.fill_s, row_serial_s(plan, hw, cost))


def persistent_overlap_s(cost: BodyCost) -> float:
    """What of one tile's time a persistent program runs under its other tiles, where its own warps issue its
    main loop's loads (a software-pipelined loop, as Triton's): all of the tile but that loop's iterations at
    their steady rate (the loop's fill, the work before it, its drain and the convert and stores after it).
    The ``persistent_tiles`` probe (``benchmarks/data/persistent_tiles/``: Triton GEMMs, 132 programs of 1-8
    tiles each at two K, pointer and descriptor loads) measures a tile's time as its K loop's iterations at
    the steady rate, the rest -1.3 to 0.7 us a tile, where the whole tile charged gave 2-4 us more a tile (a
    128x256 tile's 64 KB store alone, at its share of DRAM). A loop whose loads a producer warpgroup issues
    keeps them (0): TileLang's persistent GEMMs, whose producers feed one tile's ring at a time, ran 5-15%
    slower than the tiles charged whole (``benchmarks/data/tilelang_persistent``). 0 without a main loop."""
    env, loop = cost.main_env, cost.main_loop
    if env is None or loop is None or loop.producer_loads or env.iterations < 1:
        return 0.0
    return max(cost.latency_s - env.iterations * env.steady_s, 0.0)


# Reports kept per (plan, profile, cache model, network times): re-evaluating an unchanged launch (a decorated
# kernel called in a loop) returns the same immutable Report.
REPORT_CACHE_SIZE = 256
_REPORTS: OrderedDict[_Key, tuple[HardwareProfile, Report]] = OrderedDict()


def evaluate(
    plan: TilePlan | KernelSequence,
    profile: HardwareProfile,
    *,
    cache_model: CacheModel | None = None,
    net_time_s: Mapping[str, float] | None = None,
) -> Report:
    """Predict one launch of ``plan`` on ``profile`` (module docstring), or of every kernel of a
    :class:`~tilesight.plan.KernelSequence` back to back (:mod:`.sequence`). Raises LaunchError or
    PlanError."""
    if isinstance(plan, KernelSequence):
        from .sequence import combine, warmed_plans

        plans = warmed_plans(plan, profile, cache_model)
        reports = [evaluate(p, profile, cache_model=cache_model, net_time_s=net_time_s) for p in plans]
        return combine(plan, reports, profile)
    model, model_key = _model_and_key(cache_model)
    plan_hash = hash(plan)
    if model_key is None:
        return _evaluate(plan, profile, model, net_time_s, plan_hash, None)
    key = _Key(plan_hash, plan, id(profile), model_key, _net_key(net_time_s))
    hit = _REPORTS.get(key)
    if hit is not None and hit[0] is profile:
        _REPORTS.move_to_end(key)
        return hit[1]
    report = _evaluate(plan, profile, model, net_time_s, plan_hash, model_key)
    _REPORTS[key] = (profile, report)
    if len(_REPORTS) > REPORT_CACHE_SIZE:
        _REPORTS.popitem(last=False)
    return report


def clear_caches() -> None:
    """Forget memoised reports and cache traffic (benchmarks measuring cold evaluations use it)."""
    _REPORTS.clear()
    _TRAFFIC.clear()


def _beyond_schedule(phase: str, seconds: float, what: str) -> PhaseCost:
    """A phase of ``seconds`` the L2 adds after the schedule (a lock's holds, split stores' merges, the atomic
    chain on one word), no pipeline busy in it, its reason ``what`` and the time."""
    reason = f"{what}: {seconds * 1e6:.3g} us beyond the schedule"
    return PhaseCost(phase, seconds, Pipeline.L2, {pp: 0.0 for pp in PIPELINES}, reason)


class _Core:
    """Everything the latency needs; the Report adds phases, statistics and notes on top."""

    __slots__ = (
        "occ", "wv", "per_program", "traffic", "demands", "occurrences", "full", "tail", "main", "t_tail",
        "latency", "lock_hold_s", "lock_s", "together", "merge_s", "chain_s",
    )  # fmt: skip


# A tile program with dots whose reads come from DRAM in at least this share (a decode-shaped GEMM streaming
# its weights) meets a loaded DRAM: its pipelined loads wait the loaded_latency probe's queueing on top of the
# unloaded latency (resources.ddr_queue_s), solved with the launch's time (:func:`_core`). Below it the tiles'
# lines mostly hit L2 and a DRAM fetch meets a DRAM far from saturation (resources.pipelined_load_latency).
DRAM_STREAM_SHARE = 0.5
# Bisection steps of that fixed point on the DRAM utilisation (the interval halves each step: 1/256 of it).
DDR_QUEUE_BISECTIONS = 8


def _core(
    plan: TilePlan,
    hw: HardwareProfile,
    model: CacheModel,
    net_time_s: Mapping[str, float] | None,
    plan_hash: int,
    model_key: Hashable | None = None,
) -> _Core:
    """The launch's :class:`_Core`. A tile program with dots that streams its reads from DRAM
    (:data:`DRAM_STREAM_SHARE`) on a profile with a DRAM queue takes its pipelined loads' DRAM latency at
    the load it puts on DRAM itself: the fixed point ``U = reads / (T(U) - launch overhead) / B`` of the
    utilisation ``U`` (``B`` the profile's ``ddr_queue_bw_bytes_per_s``; ``T`` grows with ``U`` through
    :func:`~.resources.ddr_queue_s`, so the right side falls as ``U`` rises and one root lies between 0
    and the utilisation without queueing), by bisection."""
    c0 = _core_at(plan, hw, model, net_time_s, plan_hash, model_key)
    if not hw.ddr_queue_latency_s or not plan.has_dots or c0.traffic.dram_read_share < DRAM_STREAM_SHARE:
        return c0
    reads = c0.traffic.dram_read_bytes

    def utilisation(c: _Core) -> float:
        busy = max(c.latency - hw.launch_overhead_s, 1e-12)
        return min(reads / busy / hw.ddr_queue_bw_bytes_per_s, DDR_QUEUE_MAX_UTILISATION)

    def at(u: float) -> _Core:
        queue = ddr_queue_s(hw, u * hw.ddr_queue_bw_bytes_per_s)
        return _core_at(plan, hw, model, net_time_s, plan_hash, model_key, queue, c0.traffic)

    lo, hi = 0.0, utilisation(c0)
    best = at(hi)
    if utilisation(best) >= hi:  # the queue at the unqueued load changes nothing that matters
        return best
    for _ in range(DDR_QUEUE_BISECTIONS):
        mid = 0.5 * (lo + hi)
        best = at(mid)
        if utilisation(best) > mid:
            lo = mid
        else:
            hi = mid
    return best


def _core_at(
    plan: TilePlan,
    hw: HardwareProfile,
    model: CacheModel,
    net_time_s: Mapping[str, float] | None,
    plan_hash: int,
    model_key: Hashable | None = None,
    queue_s: float = 0.0,
    traffic: CacheTraffic | None = None,
) -> _Core:
    """The launch's :class:`_Core` with ``queue_s`` of DRAM queueing on its pipelined loads' DRAM latency
    (``traffic``: the plan's cache traffic where the caller has it)."""
    c = _Core()
    grid = plan.grid
    blocks = grid.blocks
    c.per_program = per_program = math.ceil(grid.tiles / blocks)
    c.occ = occ = residency(plan.resources, hw, blocks)
    p = occ.resident_blocks
    c.wv = wv = waves(blocks, hw.sm_count, p)
    if traffic is None:
        traffic = cached_traffic(plan, hw, model, plan_hash=plan_hash, model_key=model_key)
    c.traffic = traffic

    demands: dict[str, ActionDemand] = {}
    occurrences: dict[str, int] = {}
    tensors = {t.name: t for t in plan.tensors}
    rates = _full_share_rates(hw)
    for act, loops in plan.actions():
        # a dot its own-loads loop waits for (attention's; a producer warpgroup's consumers keep the profile's
        # rates, which the fa_steps set's step latency was read against), or one of a loop that loads
        # nothing, its operands on chip: the dot-chain probes' own case (the profile's GEMM rate is a GEMM's
        # whose loads share its time and power; the chains run at the chain rate, 1.25x it)
        waited = (
            act.kind is ActionKind.DOT
            and bool(loops)
            and (waits_on_own_loads(loops[-1]) or on_chip_loop(loops[-1]))
        )
        # consumer warpgroups that a producer feeds run one's SFU work beside another's dots
        side_by_side = bool(loops) and loops[-1].producer_loads and plan.resources.compute_groups > 1
        demand = action_demand(
            act, plan, hw, traffic, net_time_s, tensors=tensors, rates=rates, resident=p, waited=waited,
            sfu_holds_tc=not side_by_side,
        )  # fmt: skip
        tt = traffic.of(act.name, act.tensor or "") if act.kind is ActionKind.LOAD else None
        if (
            act.variant == SYNC_LOAD
            and (act.vector_bytes or FULL_VECTOR_BYTES) >= FULL_VECTOR_BYTES
            and act.tensor is not None
            and loops
            and loops[-1].stages <= 1
            and not loops[-1].producer_loads
        ):  # nothing runs ahead of a synchronous load in an unpipelined loop: it waits for its last line
            latency = waited_load_latency(hw, demand, tensors[act.tensor].tile_bytes)
            demand = demand._replace(latency_s=latency)
        elif act.kind is ActionKind.LOAD and p == 1 and loops and loops[-1].producer_loads:
            demand = producer_load_demand(hw, demand, tt, act, queue_s)
        elif act.kind is ActionKind.LOAD and loops and loops[-1].stages >= 2 and not loops[-1].producer_loads:
            demand = demand._replace(
                latency_s=pipelined_load_latency(hw, demand, tt, act, queue_s),
                refill_latency_s=pipelined_refill_latency(hw, tt),
            )
        if act.variant == SYNC_LOAD and p == 1 and loops and loops[-1].waits_sync_loads:
            demand = demand._replace(latency_s=demand.latency_s + sync_issue_s(plan, tensors[act.tensor], hw))
        burst = lone_load_burst(act, loops, plan, hw, p, tt.ddr_share if tt is not None else 1.0)
        if burst:
            demand = demand._replace(burst_bytes_per_s=burst)
        demands[act.name] = demand
        occurrences[act.name] = math.prod(lp.work_trips for lp in loops)
    c.demands, c.occurrences = demands, occurrences

    full = (
        _Region(
            plan, demands, hw, hw.sm_count, p, wv.full_waves * p * per_program, tiles_per_block=per_program
        )
        if wv.full_waves
        else None
    )
    tail = None
    if wv.tail_blocks:
        p_tail = min(p, wv.tail_per_sm)
        tail = _Region(
            plan, demands, hw, wv.tail_active_sms, p_tail, wv.tail_per_sm * per_program, full, per_program,
            sharing=tail_sharing_sms(wv),
        )  # fmt: skip
    main = full if full is not None else tail
    assert main is not None  # blocks >= 1
    t_tail = 0.0
    if tail is not None and full is not None:
        start = full.env.total_s - tail_overlap(full.env, full.resident)
        tail_s = tail.env.total_s
        if wv.full_waves == 1:
            exit_s = first_wave_exit_s(full)
            start = max(start, exit_s)
            if exit_s > 0.0:
                # the first wave's blocks of an SM end together, so the tail's blocks there start together
                tail_s -= started_together_s(tail)
        t_tail = max(start + tail_s - full.env.total_s, 0.0)
        # The overlap cannot push a pipeline past 100%: the busiest SM's full and tail work on its most
        # loaded pipeline bounds the two regions together.
        busiest = max(
            a * full.units + b * tail.units for a, b in zip(full.unit_busy, tail.unit_busy, strict=True)
        )
        t_tail = max(t_tail, busiest - full.env.total_s)
    c.full, c.tail, c.main, c.t_tail = full, tail, main, t_tail
    # the launch's only region: the blocks an SM starts with start together (with a tail, tail_overlap has it)
    c.together = started_together_s(main) if full is None or tail is None else 0.0
    unequal = unequal_blocks_s(plan, main, hw.sm_count)
    c.latency = main.env.total_s - c.together + t_tail + hw.launch_overhead_s + unequal
    # a lock's programs hold it one after another: the kernel lasts at least ``holders`` holds (other locks'
    # programs run meanwhile, and the work outside the section overlaps); lock_s is the time this adds
    resident = min(blocks, hw.sm_count * p)
    c.lock_hold_s = lock_hold_s(plan, hw, demands, occurrences, resident)
    floor = plan.lock.holders * c.lock_hold_s + hw.launch_overhead_s if plan.lock is not None else 0.0
    c.lock_s = max(floor - c.latency, 0.0)
    c.latency += c.lock_s
    # stores narrower than a word with their lanes apart: the L2 merges every sector they touch at its own
    # rate, beside the pipelines (resources.partial_write_sectors); merge_s is the time this adds
    sectors = sum(d.merge_sectors * occurrences[name] for name, d in demands.items()) * grid.tiles
    c.merge_s = 0.0
    if sectors and hw.l2_partial_write_sectors_per_s:
        paced = _split_store_burst(plan, demands) <= SPLIT_STORE_PACED_BURST
        busy = _busiest_busy(full, tail)
        floor = split_store_floor_s(hw, sectors, busy[CUDA] + busy[SFU] if paced else 0.0)
        c.merge_s = max(floor - c.latency, 0.0)
        c.latency += c.merge_s
    # atomics on one word: the L2 takes them one at a time, so the launch lasts at least the longest word's
    # chain and the atomics' own transactions (resources.same_word_seconds); chain_s is the time this adds
    chain = sum(d.same_word_s * occurrences[name] for name, d in demands.items()) * grid.tiles
    c.chain_s = 0.0
    if chain:
        atomics = [(name, d) for name, d in demands.items() if d.same_word_s]
        own = sum(d.busy_s[L2] * occurrences[name] for name, d in atomics) * grid.tiles / hw.sm_count
        c.chain_s = max(chain + own + hw.launch_overhead_s - c.latency, 0.0)
        c.latency += c.chain_s
    return c


# The most split stores a thread issues back to back (one tile's) that the arithmetic in front of them paces
# (split_store_floor_s). The split_mix probe (python benchmarks/probe_report.py split_mix; times over the
# bare merges): with 64 fused multiply-adds an element a copy of 8 and 16 elements a thread runs 0.62-0.80,
# the GELUs 0.52-0.81; at 64 elements a thread the same kernels run 1.22-1.48 (the merges add to the
# arithmetic rather than hide under it); at 32 the element-wise kernels fall between (0.54-0.97) and the
# pooled row kernels that store 32 (softmax and int8 quantisation over padded rows) keep the whole merges.
SPLIT_STORE_PACED_BURST = 16


def _split_store_burst(plan: TilePlan, demands: Mapping[str, ActionDemand]) -> float:
    """The most split stores (stores whose sectors the L2 merges: ``ActionDemand.merge_sectors``) a thread of
    ``plan`` issues for one occurrence of one store action: its tile's bytes over the instruction's
    ``vector_bytes`` and the block's threads."""
    threads = plan.resources.threads
    return max(
        (
            d.bytes / (act.vector_bytes * threads)
            for act, _ in plan.actions()
            if (d := demands.get(act.name)) is not None and d.merge_sectors
        ),
        default=0.0,
    )


def sync_issue_s(plan: TilePlan, tensor: TensorAccess, hw: HardwareProfile) -> float:
    """What a block alone on its SM adds to each iteration's chain for a synchronous loop load of ``tensor``'s
    tile: its warps issue ``sync_load_issue_per_element`` instructions per element a thread (the address,
    the mask, the element-wide load and the store that stages it in shared memory) between the loads' return
    and the dot, with no other block's work to fill the schedulers, each scheduler taking its warps' one
    after another at one instruction a cycle. The sync_operands probe (``python
    benchmarks/ncu_diag/sync_operands.py --report benchmarks/data/ncu_sync_operands``): 7.1 instructions an
    element (3.9-9.3 over 20 launches) beyond the aligned loop's; the 128 x 128 x 64 tile on 8 warps, 32
    elements a thread, takes 1.51-1.76 us an iteration with one operand synchronous where the chain without
    this had 1.25."""
    if not hw.sync_load_issue_per_element:
        return 0.0
    threads = plan.resources.threads
    elements = tensor.tile_bytes / dtype_bytes(tensor.dtype) / threads
    warps_per_scheduler = max(1.0, threads / hw.warp_size / max(hw.schedulers_per_sm, 1))
    return hw.sync_load_issue_per_element * elements * warps_per_scheduler / hw.sm_clock_hz


def _busiest_busy(full: _Region | None, tail: _Region | None) -> tuple[float, ...]:
    """The busiest SM's busy time per pipeline over the launch: each region's per-unit busy time times its
    units, the full waves' and the tail's together."""
    busy = [0.0] * NPIPES
    for region in (full, tail):
        if region is not None:
            for r, b in enumerate(region.unit_busy):
                busy[r] += b * region.units
    return tuple(busy)


def split_store_floor_s(hw: HardwareProfile, sectors: float, compute_s: float) -> float:
    """The least a launch takes whose stores write part of ``sectors`` 32-byte sectors (stores narrower than a
    word, their lanes apart: :func:`tilesight.model.resources.partial_write_sectors`): the L2 merges them at
    ``l2_partial_write_sectors_per_s``, less what the arithmetic in front of the stores (``compute_s``, the
    busiest SM's CUDA-core and SFU issue time) takes off by pacing them: ``split_store_pacing_relief`` of its
    part beyond ``split_store_pacing_free`` of the merge time (the split_mix probe: a split copy of 8 or 16
    elements a thread with 32 and 64 fused multiply-adds an element before the store runs 0.84-0.90 and
    0.62-0.80 of the bare merge time); plus the launch overhead. The evaluator passes no ``compute_s`` where a
    thread stores more than :data:`SPLIT_STORE_PACED_BURST` split elements a tile."""
    merge = sectors / hw.l2_partial_write_sectors_per_s
    paced = max(compute_s - hw.split_store_pacing_free * merge, 0.0)
    return max(merge - hw.split_store_pacing_relief * paced, 0.0) + hw.launch_overhead_s


def lock_handoff_s(hw: HardwareProfile, resident: int) -> float:
    """A spin lock's pass from one holder to the next, beyond its section, with ``resident`` programs on the
    GPU spinning on their locks meanwhile: the profile's calibrated ``lock_handoff_s`` plus
    ``lock_handoff_per_resident_s`` per resident program (``benchmarks/calibrate/lock_handoff.py``); without
    them, the acquiring compare-and-swap's round trip to L2 and the release's way there, two
    ``l2_latency_s``."""
    if hw.lock_handoff_s > 0:
        return hw.lock_handoff_s + hw.lock_handoff_per_resident_s * resident
    return 2.0 * hw.l2_latency_s


def lock_hold_s(
    plan: TilePlan,
    hw: HardwareProfile,
    demands: Mapping[str, ActionDemand],
    occurrences: Mapping[str, float],
    resident: int,
) -> float:
    """One program's hold of the plan's lock (:class:`~tilesight.plan.LockSection`): the handoff
    (:func:`lock_handoff_s` at ``resident`` programs on the GPU), then the section's actions one after another
    in program order (the loads feed the stores, and the release waits for them at the block barrier), each
    its busiest pipeline's time plus its latency, times its occurrences per program (a guarded branch's
    share). A store's DRAM time is left out: L2 takes the written lines and drains them to DRAM after the
    release. 0 without a lock."""
    lock = plan.lock
    if lock is None:
        return 0.0
    inside = set(lock.section)
    hold = lock_handoff_s(hw, resident)
    for act, loops in plan.actions():
        top = loops[0].name if loops else act.name
        if top in inside:
            d = demands[act.name]
            busy = d.busy_s
            if act.kind is ActionKind.STORE:
                busy = tuple(0.0 if r == DDR else b for r, b in enumerate(busy))
            hold += occurrences[act.name] * (max(max(busy), d.floor_s) + d.latency_s)
    return hold


def unequal_blocks_s(plan: TilePlan, region: _Region, sm_count: int) -> float:
    """How much later a grid of unequal blocks ends than one of mean-length blocks (0 when all are equal).

    Loops at the top of the tile program whose trip count differs by program (``Loop.trips_by_program``:
    causal attention, where the blocks launched last are the longest) make block ``i`` last
    ``D (1 - s + s t_i / t_mean)``: ``D`` = a mean block's time in its slot (``resident`` blocks share an
    SM, so a slot turns a block over every ``resident x T_steady``), ``s`` the loop's share of the tile's
    latency. The blocks are dispatched in launch order to the first free of the ``sm_count x resident``
    slots (greedy list scheduling, as the hardware block scheduler does); the result is that makespan minus
    the makespan of the same number of mean-length blocks. Where an SM has run out of blocks to start, the
    ones it still holds no longer share it and run faster (:func:`_shared_makespan`): the long blocks a
    causal grid ends with finish at their own latency, not at the shared pace. The unequal blocks' makespan is
    the mean over schedules whose blocks carry a small seeded jitter (:data:`BLOCK_JITTER`), which breaks the
    ties among blocks of one length as the GPU's own jitter does, so that the result moves smoothly with its
    inputs.
    """
    loops = [n for n in plan.body if isinstance(n, Loop) and n.trips_by_program is not None]
    if not loops or region.cost.latency_s <= 0:
        return 0.0
    n_blocks = len(loops[0].trips_by_program or ())
    if any(len(lp.trips_by_program or ()) != n_blocks for lp in loops) or n_blocks > MAX_SCHEDULED_BLOCKS:
        return 0.0
    shares = {name: env.total_s / region.cost.latency_s for name, _, env in region.cost.loops}
    rel = np.ones(n_blocks)
    for lp in loops:
        s = min(shares.get(lp.name, 0.0), 1.0)
        t = np.asarray(lp.trips_by_program, dtype=np.float64)
        mean = t.mean()
        if mean > 0:
            rel += s * (t / mean - 1.0)
    sms = min(sm_count, n_blocks)
    return unequal_gap_s(rel, sms, region.resident, region.env.steady_s, region.cost.latency_s)


def unequal_gap_s(work: np.ndarray, sms: int, per_sm: int, pace_s: float, alone_s: float) -> float:
    """How much later blocks of ``work`` mean blocks each (launch order) end on ``sms`` SMs of ``per_sm``
    slots than as many mean-length blocks (:func:`_shared_makespan`'s schedule; the unequal one the mean
    over :func:`_block_jitters`' runs), at least 0."""
    jitters = _block_jitters(len(work))
    runs = [_shared_makespan(work * jitter, sms, per_sm, pace_s, alone_s) for jitter in jitters]
    reference = _shared_makespan(np.full(len(work), work.mean()), sms, per_sm, pace_s, alone_s)
    return max(float(np.mean(runs)) - reference, 0.0)


# Grids larger than this skip the block-by-block schedule of unequal blocks (its cost grows with the grid).
MAX_SCHEDULED_BLOCKS = 1 << 18
# A causal grid's blocks come in a few lengths, many of each, so its list schedule is full of ties, and which
# SM is left holding the last long blocks turns on rounding: a 0.04% change in a tile's latency moved one
# causal attention's makespan (2,048 blocks, four an SM) by half a block, 15 of 300 us. On the GPU such ties
# break by the blocks' own jitter from run to run, and a timing's median is that of the makespans. The
# unequal schedule is therefore the mean of JITTER_RUNS seeded schedules whose blocks' work is scaled by
# factors drawn uniformly within BLOCK_JITTER of 1 (small enough to leave the order of blocks of different
# lengths alone: it only breaks near-ties), fewer where JITTER_BLOCK_BUDGET scheduled blocks would be
# exceeded (at least one). The reference schedule of mean-length blocks keeps its exact ties: its waves end
# on every SM at once and the waiting blocks go out one an SM in turn, as the envelope's tail region times.
BLOCK_JITTER = 0.0025
JITTER_RUNS = 16
JITTER_BLOCK_BUDGET = 1 << 16


def _block_jitters(n_blocks: int) -> tuple[np.ndarray, ...]:
    """The work factors of the runs of :func:`unequal_blocks_s`' unequal schedule (:data:`BLOCK_JITTER`):
    seeded, so the same for every call with ``n_blocks``; read-only, and kept for grids within
    :data:`JITTER_BLOCK_BUDGET` blocks (a ranking evaluates many configs of one grid)."""
    if n_blocks <= JITTER_BLOCK_BUDGET:
        return _kept_block_jitters(n_blocks)
    return _seeded_block_jitters(n_blocks)


def _seeded_block_jitters(n_blocks: int) -> tuple[np.ndarray, ...]:
    runs = max(1, min(JITTER_RUNS, JITTER_BLOCK_BUDGET // max(n_blocks, 1)))
    factors = []
    for seed in range(runs):
        f = 1.0 + BLOCK_JITTER * np.random.default_rng(seed).uniform(-1.0, 1.0, n_blocks)
        f.flags.writeable = False
        factors.append(f)
    return tuple(factors)


# at most JITTER_BLOCK_BUDGET factors an entry (512 KB): 16 entries, 8 MB
_kept_block_jitters = functools.lru_cache(maxsize=16)(_seeded_block_jitters)


def _shared_makespan(work: np.ndarray, sms: int, per_sm: int, pace_s: float, alone_s: float) -> float:
    """End of the last block when blocks of ``work`` mean blocks each start in launch order on ``sms`` SMs of
    ``per_sm`` slots (every SM filled before a second block is stacked on one, then the first SM to free a
    slot takes the next block; SMs that free slots at the same moment take the waiting blocks one an SM in
    turn, as in the first wave), and an SM running ``k`` blocks advances each by one mean block every
    ``max(k x pace_s, min(alone_s, per_sm x pace_s))`` seconds: at full residency a slot turns a mean block
    over every ``per_sm x pace_s``, and a block with fewer beside it runs faster, down to its latency alone.
    One slot an SM is the greedy list schedule of :func:`_makespan`.

    The turn matters for the reference schedule of mean-length blocks in :func:`unequal_blocks_s`: its waves
    end on every SM at once, and a last part-wave handed whole to the first SMs (five blocks on each of 48
    SMs, the other 84 idle) would end a full block time later than the same blocks spread two an SM, which
    the envelope's tail region times; the difference then hid the unequal blocks' own cost (a causal staged
    attention over 2,880 blocks of 0-38 trips at five an SM: 0 instead of 11.7 us)."""
    if per_sm <= 1:
        return _makespan(work * max(pace_s, 0.0), sms)
    lone = min(alone_s, per_sm * pace_s)

    def seconds_per_block(k: int) -> float:
        return max(k * pace_s, lone)

    n = len(work)
    left: list[list[float]] = [[] for _ in range(sms)]
    nxt = 0
    for _ in range(per_sm):  # the first wave: one block on every SM, then a second, ...
        for sm in range(sms):
            if nxt < n:
                left[sm].append(float(work[nxt]))
                nxt += 1
    since = [0.0] * sms
    version = [0] * sms
    events = [(min(left[sm]) * seconds_per_block(len(left[sm])), sm, 0) for sm in range(sms) if left[sm]]
    heapq.heapify(events)
    end = 0.0
    while events:
        t, sm, v = heapq.heappop(events)
        if v != version[sm]:
            continue
        # every SM that frees a slot at this moment (equal blocks started together end together)
        freed = [sm]
        while events and events[0][0] <= t * (1.0 + _SAME_TIME) + _SAME_TIME:
            _, other, v2 = heapq.heappop(events)
            if v2 == version[other]:
                freed.append(other)
        for s in freed:
            done = (t - since[s]) / seconds_per_block(len(left[s]))
            left[s] = [w - done for w in left[s] if w - done > 1e-12]
            since[s] = t
        end = t
        # the waiting blocks go out one an SM in turn, as in the first wave, not all to the first SM
        freed.sort()
        while nxt < n:
            open_sms = [s for s in freed if len(left[s]) < per_sm]
            if not open_sms:
                break
            for s in open_sms[: n - nxt]:
                left[s].append(float(work[nxt]))
                nxt += 1
        for s in freed:
            version[s] += 1
            if left[s]:
                heapq.heappush(events, (t + min(left[s]) * seconds_per_block(len(left[s])), s, version[s]))
    return end


# Relative tolerance under which two SMs' slot events count as the same moment (_shared_makespan).
_SAME_TIME = 1e-12


def _makespan(durations: np.ndarray, slots: int) -> float:
    """End of the last block when blocks start in order on the first free of ``slots`` slots."""
    # the first ``slots`` blocks start at 0; then each block takes the earliest free slot
    heap = durations[:slots].tolist()
    heapq.heapify(heap)
    for d in durations[slots:].tolist():
        heapq.heapreplace(heap, heap[0] + d)
    return max(heap) if heap else 0.0


def latency_s(
    plan: TilePlan | KernelSequence,
    profile: HardwareProfile,
    *,
    cache_model: CacheModel | None = None,
    net_time_s: Mapping[str, float] | None = None,
) -> float:
    """The predicted kernel time alone (what a config pruner ranks by): the same model as :func:`evaluate`
    without building the Report's phases, statistics and notes (a kernel sequence: the sum of its
    kernels')."""
    if isinstance(plan, KernelSequence):
        from .sequence import warmed_plans

        plans = warmed_plans(plan, profile, cache_model)
        return sum(latency_s(p, profile, cache_model=cache_model, net_time_s=net_time_s) for p in plans)
    model, model_key = _model_and_key(cache_model)
    plan_hash = hash(plan)
    if model_key is not None:
        hit = _REPORTS.get(_Key(plan_hash, plan, id(profile), model_key, _net_key(net_time_s)))
        if hit is not None and hit[0] is profile:
            return hit[1].latency_s
    return _core(plan, profile, model, net_time_s, plan_hash, model_key).latency


def _net_key(net_time_s: Mapping[str, float] | None) -> tuple:
    return tuple(sorted((net_time_s or {}).items()))


def _evaluate(
    plan: TilePlan,
    hw: HardwareProfile,
    model: CacheModel,
    net_time_s: Mapping[str, float] | None,
    plan_hash: int,
    model_key: Hashable | None = None,
) -> Report:
    c = _core(plan, hw, model, net_time_s, plan_hash, model_key)
    grid = plan.grid
    occ, wv, traffic, demands, occurrences = c.occ, c.wv, c.traffic, c.demands, c.occurrences
    full, tail, main, t_tail, latency = c.full, c.tail, c.main, c.t_tail, c.latency
    p = occ.resident_blocks
    blocks = grid.blocks
    per_program = c.per_program

    busy = _busiest_busy(full, tail)

    per_tile_amount = [0.0] * NPIPES
    for name, d in demands.items():
        k = occurrences[name]
        for r in range(NPIPES):
            per_tile_amount[r] += d.amounts[r] * k
    amounts = tuple(per_tile_amount)

    phases = _phases(main, tail if full is not None else None, t_tail, amounts, wv, c.together)
    if c.lock_s > 0 and plan.lock is not None:
        # the handoffs are L2 atomics: the next holder's compare-and-swap sees the release there
        what = (
            f"{plan.lock.holders:.4g} programs take each lock in turn, {c.lock_hold_s * 1e6:.3g} us per hold "
            f"({plan.lock.acquire} to {plan.lock.release})"
        )
        phases = (*phases, _beyond_schedule("lock", c.lock_s, what))
    if c.merge_s > 0:
        stores = [n for n, d in demands.items() if d.merge_sectors]
        what = (
            f"{', '.join(stores)}: stores narrower than a 4-byte word with their lanes apart; the L2 merges "
            "every sector they write part of"
        )
        phases = (*phases, _beyond_schedule(MERGE_PHASE, c.merge_s, what))
    if c.chain_s > 0:
        atomics = [n for n, d in demands.items() if d.same_word_s]
        what = f"{', '.join(atomics)}: atomics on the same words, which the L2 updates one atomic at a time"
        phases = (*phases, _beyond_schedule(CHAIN_PHASE, c.chain_s, what))
    bottleneck = max(phases, key=lambda ph: ph.time_s).bottleneck
    total_busy = sum(busy)
    overlap = (
        min(max(1.0 - (latency - hw.launch_overhead_s) / total_busy, 0.0), 1.0) if total_busy > 0 else 0.0
    )

    stats = _action_stats(plan, demands, occurrences, hw, full, tail, grid.tiles)
    notes = _notes(plan, traffic, demands, occ.limits, main, tail, c.merge_s)
    extras: dict[str, Any] = {
        "tile_latency_s": main.cost.latency_s,
        "tile_fill_s": main.cost.fill_s,
        "units_per_sm": main.units,
        "tiles_per_program": per_program,
        "full_region_s": full.env.total_s if full is not None else 0.0,
        "tail_region_s": t_tail,
        "started_together_s": c.together,
        "steady_per_unit_s": main.env.steady_s,
        "tile_serial_s": main.serial_s,  # a pipelined row loop's per-tile serial time (row_serial_s), else 0
        "best_orders": main.cost.orders(),
        "order_search_exact": main.cost.exact(),
        "cache_model": traffic.model,
    }
    return Report(
        kernel=plan.name,
        hw=hw.name,
        latency_s=latency,
        launch_overhead_s=hw.launch_overhead_s,
        busy_s={pp: busy[i] for i, pp in enumerate(PIPELINES)},
        utilization={pp: busy[i] / latency for i, pp in enumerate(PIPELINES)},
        bottleneck=bottleneck,
        phases=phases,
        overlap_rate=overlap,
        l2_hit_rate=traffic.l2_hit_rate,
        dram_bytes=traffic.dram_bytes,
        occupancy=Occupancy(
            resident_blocks=p,
            limiter=occ.limiter,
            limits=dict(occ.limits),
            blocks=blocks,
            full_waves=wv.full_waves,
            tail_blocks=wv.tail_blocks,
            tail_active_sms=wv.tail_active_sms,
            sm_count=hw.sm_count,
        ),
        actions=stats,
        l15_hit_rate=traffic.l15_hit_rate,
        flops=sum(s.flops for s in stats),
        notes=notes,
        extras=extras,
    )


def _unrolled(loop: Loop) -> str:
    return f", unrolled x{loop.unroll}" if loop.unroll > 1 else ""


def _latency_why(region: _Region) -> str:
    cost = region.cost
    env = cost.main_env
    if cost.main_loop is not None and env is not None and env.latency_bound:
        lp = cost.main_loop
        if env.bound == "chain" and reload_chain_s(lp, region.reload) >= env.steady_s * (1.0 - 1e-9):
            waits = lp.reload_waits + lp.stored_reload_waits
            return (
                f"each iteration's warps wait for their register-spill reloads one after another ({lp.name}: "
                f"{waits} waits, {env.steady_s * 1e9:.0f} ns an iteration; fewer spilled registers, from a "
                "smaller tile or more warps, shorten it)"
            )
        if env.bound == "chain":
            barrier = ""
            if region.barrier_s and meets_at_stage_barrier(lp):
                barrier = (
                    f"; {region.barrier_s * 1e9:.0f} ns of it the block's warps meeting at the stage barrier "
                    "with no other block on the SM to run meanwhile: a config that fits two blocks an SM, "
                    "fewer stages or a smaller tile, hides it"
                )
            return (
                f"each iteration's compute runs one step after another ({lp.name}: "
                f"{env.steady_s * 1e9:.0f} ns an iteration, its dots, CUDA-core work and waits in program "
                f"order; more stages do not shorten it{barrier})"
            )
        if env.bound == "loads":
            alone = "a block alone on its SM" if region.resident == 1 else "each block"
            after = ", issued after the iteration's compute" if lp.refill_after_compute else ""
            return (
                f"{alone} waits for its own loads ({lp.name}: stages={lp.stages}{_unrolled(lp)}, "
                f"{lp.ahead} iteration(s) of loads in flight{after})"
            )
        return (
            f"too few iterations in flight ({lp.name}: stages={lp.stages}{_unrolled(lp)}, d={lp.ahead}, "
            f"{region.resident} resident block(s) per SM)"
        )
    if region.env.bound == "chain" and region.serial_s > 0.0:
        return (
            f"each program computes its tiles one after another ({region.serial_s * 1e9:.0f} ns a tile: its "
            "compute, its reductions' shuffle trees and its loop's step; more tiles in flight do not shorten "
            "it)"
        )
    return f"too few tiles in flight (d={region.env.depth}, {region.resident} resident block(s) per SM)"


def _phases(
    main: _Region, tail: _Region | None, t_tail: float, amounts, wv, together: float = 0.0
) -> tuple[PhaseCost, ...]:
    cost = main.cost
    unit_tile = main.unit_busy
    # an unpipelined row program's loads wait the idle DRAM round trip (unpipelined_row_latency_s): its fill
    # is shorter
    pro_t, epi_t = cost.prologue_s - max(cost.fill_s - main.env.fill_s, 0.0), cost.epilogue_s
    # the first blocks' stagger the region does not have (started_together_s) comes out of the steady state
    steady_t = max(main.env.total_s - pro_t - epi_t - together, 0.0)
    busy_total = _scaled(main.unit_busy, main.units)
    pro_b, epi_b = cost.busy_pro_s, cost.busy_epi_s
    steady_b = _sub(_sub(busy_total, pro_b), epi_b)
    why = _latency_why(main)
    fill_why = f"{pro_t * 1e6:.3g} us until the first compute starts (memory latency and the first loads)"
    drain_why = f"{epi_t * 1e6:.3g} us of dependent compute and stores after the last loads"
    out = [
        phase_cost("prologue", pro_t, pro_b, amounts, unit_tile, fill_why),
        phase_cost("steady", steady_t, steady_b, amounts, unit_tile, why),
        phase_cost("epilogue", epi_t, epi_b, amounts, unit_tile, drain_why),
    ]
    if tail is None:
        out.append(phase_cost("tail", 0.0, ZERO, amounts, unit_tile, ""))
    else:
        prefix = f"{wv.tail_blocks} block(s) on {tail.active} SM(s), {wv.tail_per_sm} on the busiest; "
        tb = _scaled(tail.unit_busy, tail.units)
        out.append(phase_cost("tail", t_tail, tb, amounts, tail.unit_busy, _latency_why(tail), prefix=prefix))
    return tuple(out)


def _action_stats(plan, demands, occurrences, hw, full, tail, tiles) -> tuple[ActionStats, ...]:
    # Busiest-SM weight per pipeline: sum over regions of scale_r x units / resident (full-share seconds).
    weight = [0.0] * NPIPES
    for rg in (full, tail):
        if rg is not None:
            w = rg.units
            for r in range(NPIPES):
                weight[r] += rg.scale[r] * w
    out = []
    for name, d in demands.items():
        k = occurrences[name]
        b = d.busy_s
        top = b.index(max(b))  # the first busiest pipeline
        count = round(k * tiles)
        out.append(
            ActionStats(
                name=name,
                kind=d.kind.value,
                count=count,
                busy_s={pp: bi * wi * k for pp, bi, wi in zip(PIPELINES, b, weight, strict=True)},
                bytes=d.bytes * count,
                flops=d.flops * count,
                l2_hit_rate=d.l2_hit,
                bottleneck=PIPELINES[top] if b[top] > 0 else None,
            )
        )
    return tuple(out)


def _notes(plan, traffic, demands, limits, main, tail, merge_s: float) -> tuple[str, ...]:
    notes = list(plan.notes)
    notes.append(f"cache model: {traffic.model}")
    for t in plan.tensors:
        if t.indirect:
            shared = (
                "the blocks its programs share follow the index values read"
                if t.block_keys is not None
                else "which programs share its blocks follows the grid: index values key the blocks only "
                "where one value a program picks its block (a MoE block's expert id) and the index "
                "tensor's contents are passed"
            )
            notes.append(
                f"tensor {t.name} uses indirect addressing: each access moves its whole tile; {shared}"
            )
    res = plan.resources
    if res.spill_bytes_per_thread:
        if res.spill_openers is not None:
            around = f"each run of {', '.join(res.spill_openers)}, which use the spilled values,"
        elif plan.has_dots:
            around = "each dot"
        else:
            around = "each pass over the tile (the program, a loop's iteration)"
        moved = (
            f"moves {res.spill_pass_bytes} bytes of them, as the machine code says"
            if res.spill_pass_bytes is not None
            else "reloads them and stores back what it changes"
        )
        notes.append(
            f"register spills: {res.spill_bytes_per_thread} bytes per thread go to local memory "
            f"({around} {moved}, on the SM's load/store path, from L1, L2 or DRAM as the resident frames fit)"
        )
    if "registers" not in limits:
        notes.append("registers per thread not given: occupancy ignores the register limit")
    for act, _ in plan.actions():
        d = demands.get(act.name)
        if isinstance(act, TileAction) and act.chain is not None and d is not None and d.floor_s > 0:
            ch = act.chain
            ops = f"{ch.alu} arithmetic op{'' if ch.alu == 1 else 's'}"
            cvts = f"{ch.cvt} conversion{'' if ch.cvt == 1 else 's'}"
            fed = ", then a dot reads it (proxy fence and barrier)" if ch.feeds_dot else ""
            each = f"shared memory in and out; {ops} and {cvts} each{fed}"
            if ch.shuffles:
                across = f", then {ch.cross_warps} warps through shared memory" if ch.cross_warps else ""
                each = f"{ch.shuffles} dependent shuffle steps each{across}"
            notes.append(
                f"{act.name}: {ch.iterations} vector iterations of {ch.lanes} lanes per thread run back to "
                f"back ({each}): at least "
                f"{d.floor_s * 1e6:.3g} us per occurrence, against {max(d.busy_s) * 1e6:.3g} us of issue at "
                "the full-chip share"
            )
        if isinstance(act, TileAction) and act.scan is not None and d is not None and d.floor_s > 0:
            sc = act.scan
            notes.append(
                f"{act.name}: a scan whose carries cross warps: each thread loads and combines {sc.loads} "
                f"chunk totals one after another ({sc.steps} along the axis x {sc.lines} scan lines x "
                f"{sc.operands} operand{'' if sc.operands == 1 else 's'}): at least {d.floor_s * 1e6:.3g} us "
                f"per occurrence, against {d.busy_s[CUDA] * 1e6:.3g} us of CUDA-core issue with one block "
                "an SM"
            )
    missing = sorted(d.name for d in demands.values() if d.net_missing)
    if missing:
        notes.append(f"no network time supplied for {missing}: their Net entry is 0")
    for rg in (main, tail):
        if rg is not None and not rg.cost.exact():
            notes.append("order search hit its expansion cap: the best order found is used (not proven best)")
            break
    if missing:
        for act, _ in plan.actions():
            if isinstance(act, TileAction) and act.location and act.name in missing:
                notes.append(f"{act.name} at {act.location}")
    for act, _ in plan.actions() if merge_s > 0 else ():
        d = demands.get(act.name)
        if isinstance(act, TileAction) and d is not None and d.merge_sectors:
            where = f" at {act.location}" if act.location else ""
            split = "a mask the compiler cannot prove whole, such as a length no multiple of 16"
            notes.append(
                f"{act.name}{where} stores {act.vector_bytes} bytes a lane with the lanes "
                f"{act.lane_stride_bytes} bytes apart ({split}, split each thread's vector): the L2 merges "
                f"every sector it writes part of, {merge_s * 1e6:.3g} us beyond the schedule; a length "
                "padded to a multiple of 16 keeps whole vectors"
            )
    return tuple(notes)
