"""Per-action resource vectors (paper section 3.2, Eq. 1).

One occurrence of a tile action asks each of the nine pipelines (``tilesight.plan.PIPELINES`` order: TC,
CUDA, SFU, TMEM, SMEM, L1.5, L2, DDR, Net) for some busy time. This module computes it in two steps:

1. :func:`action_demand` turns the action into *amounts* (FLOPs / ops for TC, CUDA and SFU; bytes for TMEM,
   SMEM, L1.5, L2 and DDR; seconds for Net) and into *busy seconds at the full-chip share*: every SM active
   and one block resident, so a shared resource is split evenly over all ``sm_count`` SMs.

   * LOAD / STORE of ``b`` bytes on a global tensor with cache traffic ``(l15_hit, l2_hit, ddr_fraction)``:
     L1.5 = b / L1.5 share where the tier exists (every request looks the tier up first);
     L2 = b (1 - l15_hit) x l2_lookups / L2 share (every byte not served by L1.5 crosses L2; the cache
     model's lookups per byte scale it: coalesced requests skip the slices, fabric lookups add to them; a
     tile whose contiguous rows are shorter than an L2 line keeps only the profile's
     :meth:`~tilesight.hardware.HardwareProfile.l2_merge_share` of those merges: the ``l2_chunks`` probe
     reads lines four SMs share 1.65x as fast as private ones with 128-byte rows and 1.10x with 64-byte rows,
     0.24 of the saving; no profile table, none);
     DDR = b ddr_fraction / DDR share, ``ddr_fraction = ddr_bytes / requested_bytes`` of the tensor; the
     DDR share is of the read bandwidth, and a written byte costs :func:`ddr_write_slowdown` times a read one;
     DDR time is divided by the profile's DRAM efficiency for the access's contiguous chunk
     (:func:`contiguous_bytes`: narrow tiles of wide row-major tensors fetch short scattered runs), L2
     time by the profile's L2 efficiency for it (32-byte runs move at half rate);
     SMEM = b / smem share when the scratchpad side is shared memory; TMEM likewise for tensor memory.
     The access latency (not a busy time) mixes ``l2_latency_s`` and ``ddr_latency_s`` by the hit fractions.
     A STORE to an ATOMIC tensor keeps the L2 busy at least its elements over the profile's
     ``l2_atomic_elements_per_s`` share (each is a read-modify-write at the L2), or over the resident blocks'
     ``atomic_elements_per_s_per_block`` where that is less. A STORE of less than a word a lane whose lanes
     lie apart (``lane_stride_bytes``: a mask split each thread's vector) has the L2 merge every sector its
     instructions touch (:func:`partial_write_sectors`) at the profile's ``l2_partial_write_sectors_per_s``:
     not a pipeline's busy time but a floor on the launch (``merge_sectors``, summed by the evaluator), as
     the probe's flat copy, whose loads move as many bytes again through L2, takes its stores' time alone.
     The SMEM entry is at least the issue time of the action's warp-wide memory instructions on the SM's
     load/store units (:func:`lsu_seconds`): narrow (unvectorised) accesses are instruction-bound, a load's
     instructions faster where L2 serves them.
   * DOT: TC = flops / per-SM tensor-core rate of its dtype and instruction family (a warpgroup MMA of
     fewer than 64 columns capped by :func:`narrow_mma_rate`; a dot whose warps wait for its result in the
     same iteration, attention's, or one of a loop that loads nothing, its operands on chip, at
     :func:`waited_mma_rate`); SMEM = ``smem_bytes`` if
     the action states it, else ``(m k + k n) x element bytes`` when the operands are read from shared memory
     (and at least the load/store-unit issue time of those bytes when the action's ``vector_bytes`` says the
     warps load them into registers themselves, as warp-level ``mma`` does with ``ldmatrix``),
     plus, when the plan spills registers, SMEM (the load/store path local memory takes) is busy for
     :func:`spill_seconds` of the frame bytes the machine code moves around the dot where the frontend read
     them (``BlockResources.spill_pass_bytes``: the Triton frontend's distinct frame slots of the K loop's
     SASS), else of a reload of every thread's spilled frame and a store of its part the loop changes
     (``SPILLABLE_STATE_BYTES`` of loop-invariant state are only reloaded).
   * ELEMENTWISE and REDUCE -> CUDA, SFU -> SFU (plus SMEM when the action states ``smem_bytes``); an
     element operation occupies a CUDA lane for one issue slot, which the FMA-counted rate calls
     ``FLOP_PER_OP`` = 2 FLOP; an ELEMENTWISE action's ``alu_ops`` (compares, selects, min / max, integer
     ops) take the profile's ``alu_op_cost`` slots each (Hopper: about 2, half the FMA rate). A REDUCE whose
     axis spans several warps (``warps``) adds the profile's cross-warp reduction latency to its duration,
     and where it reduces a row to one value (``outputs`` 1: the row kernels' ``tl.max`` / ``tl.sum``) it
     keeps SMEM (the SM's load/store path, which shuffles share with shared memory) busy for the profile's
     ``[cross_warp_reduction_sm]`` at those warps: the warps' shuffles, partials exchanged through shared
     memory and barriers, at the rate the reduce_throughput probe measures with many blocks an SM (H200:
     16 / 30 / 58 / 120 ns at 2 / 4 / 8 / 16 warps, about 7.5 ns a warp), which the latency measured at one
     block an SM already holds (the latency keeps the rest). A reduction to several values (a 2D tile's
     rows) shuffles several with each instruction, which that probe does not measure: not charged. A REDUCE
     that scans with a :class:`~tilesight.plan.ScanCarry` (its axis across warps, its lanes on other scan
     lines) loads and combines ``steps x lines x operands`` chunk totals a thread one after another: a floor
     of that many times the profile's ``scan_carry_latency_s``, and CUDA held for that many times
     ``scan_carry_issue_s`` per warp the block puts on each scheduler, the scan_chain probe's two constants.
     Where the profile says ``sfu_tc_serialised`` (Hopper: an attention loop without memory traffic takes its
     dots' time plus its exponentials' time at every residency, benchmarks/data/calibration_chains.json), SFU
     work also occupies the TC pipeline for its SFU time, in kernels that have tensor-core work (a kernel
     without dots leaves the tensor cores idle, and its report says so), except in a loop that two or more
     consumer warpgroups share behind a producer (``sfu_holds_tc`` False: one group's SFU work, the softmax's
     exponentials or a dequantiser's conversions, runs beside the other's dots; :mod:`.tile` keeps each
     group's own in its chain). An ELEMENTWISE action with a :class:`~tilesight.plan.SerialChain` (a
     shared-to-shared loop whose iterations the compiler keeps in order) has a floor under its duration,
     :func:`serial_chain_s` (not a busy time: other warps and blocks still issue around it).
   * REMOTE (or a load from a REMOTE tensor) -> Net, from the per-action network time the distributed layer
     supplies (``net_time_s``); absent, 0 (the evaluator adds a note).

2. :func:`region_scale` gives, per pipeline, the factor by which busy times grow when only ``active_sms``
   SMs share the chip-wide resources and ``resident`` blocks share one SM. Per-SM rates: compute = chip rate /
   sm_count and SMEM = ``smem_bw_per_sm``, both split over the resident blocks; DDR share =
   ``ddr_bw / active``; L2 share = ``min(l2_bw / active, l2_bw_per_sm)``; L1.5 share = ``l15_bw / active``.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from typing import NamedTuple

import numpy as np

from ..cache.base import CacheTraffic, TensorTraffic
from ..cache.sdcm import hit_probability
from ..dtypes import dtype_bytes, is_float
from ..errors import PlanError
from ..hardware import HardwareProfile
from ..plan import (
    ELEMENT_ASYNC_COPY,
    NARROW_ASYNC_COPY,
    PIPELINES,
    SCATTER_ATOMIC,
    SYNC_LOAD,
    VECTOR_REDUCTION,
    AccessMode,
    ActionKind,
    Loop,
    MemLevel,
    SerialChain,
    TensorAccess,
    TileAction,
    TilePlan,
)
from .banks import WAVEFRONT_BYTES

# A CUDA-core element operation (add, multiply, max, select, a fused multiply-add) occupies one lane for one
# issue slot; the profile's cuda_flops_per_s counts a fused multiply-add as 2 FLOP, so one operation is 2.
FLOP_PER_OP = 2
# Whether every stored byte costs DRAM time inside the kernel. The cache model counts only the dirty lines
# evicted before the kernel ends (what NCU attributes to it), but the L2 drains dirty lines while a kernel
# streams its output, so the DRAM pipeline is busy with them during the kernel: measured element-wise and
# normalisation kernels on the H200 take the time of all their written bytes even when the output fits in L2.
STORES_DRAIN_TO_DRAM = True
# Whether a store's memory latency stays off the issuing block's critical path. A warp hands a store to the
# load/store unit and goes on (and may exit): nothing waits for the write to reach L2 or DRAM. Measured on the
# H200: a vector add of 256-thread blocks at 8 resident blocks per SM turns a block over every
# 0.88-0.95 us, the DRAM latency of its loads alone (benchmarks/data/triton_memory.jsonl, add b256w8).
STORES_RETIRE_AT_ISSUE = True
# Whether a block is held by a store only for the store's transfer into L2 at the SM's port rate
# (ActionDemand.burst_bytes_per_s), not for its share of the chip's DRAM: the written lines reach DRAM behind
# the block (STORES_DRAIN_TO_DRAM keeps that DRAM time in the pipelines' sums, the throughput bound), and the
# next block on the SM starts its loads under the drain. A persistent program's stores already run under its
# next tile (evaluate.persistent_overlap_s). Seen on Liger-Kernel's row kernels (validation 31: 1024-thread
# softmax and cross entropy over 32k-128k vocabularies measured 1.2-1.7x faster than the DRAM-share chain
# predicted). Applied to tile programs without dots only: on the dot kernels measured (1,119 GEMM and 1,896
# attention launches) the rule (at one resident block) moved GEMMs from 9.28 to 9.17% and attention from 6.62
# to 6.86% (their lone-block epilogues were already predicted a little fast), so there it is not applied
# (docs/known-gaps.md). Validation 32 checked it blind at one resident block (13.5% against 16.3% without);
# at every residency, as it now stands, it gives 11.6% there (seen); the 430 measured memory launches of the
# main set and validations 1-30 go from 8.1 to 8.0% with the two rules of stop 35.
STORES_LEAVE_AT_L2_PORT = True
# Whether a block alone on its SM (one resident block) is held by a load it waits for (not one a pipelined
# loop issues stages ahead, nor a producer warpgroup's) only for the load's latency and its transfer at the
# SM's L2 port rate (ActionDemand.burst_bytes_per_s), not for its share of the chip's DRAM. Such a block
# alternates between loading and computing, and the SMs drift out of phase, so while one computes the others'
# loads have more than the fair share of DRAM; the DRAM time of every load still counts in the pipelines' sums
# (the throughput bound), which caps the kernel once the SMs load at once. The load-side twin of
# STORES_LEAVE_AT_L2_PORT, without dots; since stop 81 also in a persistent program that waits for each tile's
# loads, unless its tile is a flat row the row rule times (_loads_leave_at_port). Seen on row kernels whose
# register use leaves one 1024-thread block per SM: Liger's cross-entropy over 128k-152k vocabularies (each
# loop trip loads 64 KB and then reduces it; measured 752 and 478 us where the DRAM-share chain gave 1029 and
# 648; its DRAM busy time is 641 us), Liger's softmax and Triton's 16-warp LayerNorms: the 521 measured memory
# launches of the main set and every validation set go from 8.73 to 8.39%, held-out 8.95 to 8.58%
# (docs/accuracy-triton.md, stop 37). The TileLang set `regs`'s 512-thread LayerNorm, already 9% fast, becomes
# 27% fast.
LOADS_LEAVE_AT_L2_PORT_ALONE = True
# Whether a block alone on its SM moves the loads of a software-pipelined loop with dots (a GEMM's or
# attention's K loop, the threads' own copies issued stages ahead; not a producer warpgroup's, which
# producer_load_demand already bursts) at its own SM's rates, not at its share of the chip's DRAM: its
# L2-served lines at the SM's L2 port rate, its DRAM-served ones at the profile's
# ddr_stream_per_sm_bytes_per_s (the sm_stream probe: 55 GB/s, where the DRAM share of one of 132 SMs is
# 29), TMA (descriptor) copies all at the port rate as the tma_latency probe read them. A lone block waits for
# each iteration's copies (stages - 1 of them in flight) while the rest of the chip's SMs are between their
# own bursts, so the fair share of DRAM is not what one iteration's copies take; the DRAM time of every load
# still counts in the pipelines' sums, the throughput bound once the SMs load at once. Measured on the pooled
# Triton GEMMs (stop 64): persistent GEMMs at one program an SM, predicted 1.2x slow at two stages (an
# iteration of a 128 x 64 x 32 tile waits 0.74 us for a 4 KB tile of B from DRAM and 8 KB of A from L2, where
# the model's step, at the DRAM share after a latency floored at the loaded mean, took 0.96 us): pooled GEMM
# 8.69 -> 8.44%, the pointer persistent ones at two stages 19.9 -> 7.3% (docs/tilelang.md, stop 64).
PIPELINED_LOADS_STREAM_ALONE = True
# The widest memory access one thread issues (128-bit vector loads and stores, cp.async of 16 bytes).
FULL_VECTOR_BYTES = 16
# Widest span (bytes from a warp instruction's first lane to its last) at which an element-wide load still
# issues at the full rate (the narrow_width probe, float16 re-reads from L2: lanes 2, 4 and 8 bytes apart,
# spans of 64-256 bytes, 0.80-0.85 G warp instructions a second an SM; lanes 16 bytes apart, 512 bytes,
# 0.46 G, the profile's lsu_wide_span_share of it).
LSU_FULL_RATE_SPAN_BYTES = 256
# Passes of a synchronous loop load counted against the calibrated (global) instruction rate: its loads.
SYNC_LOAD_PASSES = 1
# A store narrower than this writes part of a word: where its lanes lie apart (TileAction.lane_stride_bytes),
# no two lanes of an instruction complete a word, and the L2 merges every sector the instruction touches
# (:func:`partial_write_sectors`).
WORD_BYTES = 4
# The L2's unit of a read-modify-write (a sector) and of its placement on a slice (a line), in bytes.
ATOMIC_SECTOR_BYTES = 32
ATOMIC_LINE_BYTES = 128
# Seeded placements of a small target's lines on the L2 slices averaged for their busiest slice (a few lines
# over ~90 slices; beyond BUSIEST_SLICE_SAMPLED lines a slice's share is near its mean, taken from the normal
# approximation).
BUSIEST_SLICE_TRIALS = 64
BUSIEST_SLICE_SAMPLED = 1 << 14


def scatter_transactions_per_element(words: float, element_bytes: float, warp: int) -> float:
    """L2 transactions per element of a scattered atomic (:data:`SCATTER_ATOMIC`) whose lanes land uniformly
    on ``words`` words: one for each distinct 32-byte sector a warp instruction's lanes touch, the expected
    ``S (1 - (1 - 1/S)^warp)`` of ``S`` sectors, over the instruction's ``warp`` elements (1 for a target of
    many sectors, ``1 / warp`` for one sector)."""
    sectors = max(1.0, words * element_bytes / ATOMIC_SECTOR_BYTES)
    return sectors * -math.expm1(warp * math.log1p(-1.0 / sectors)) / warp if sectors > 1 else 1.0 / warp


@functools.lru_cache(maxsize=256)
def busiest_slice_factor(lines: int, slices: float) -> float:
    """How much longer a scattered atomic's transactions take on ``lines`` lines placed at random on
    ``slices`` L2 slices than spread evenly over all of them: ``slices x E[max lines on a slice] / lines``,
    at least 1 (``slices`` for one line: one slice does all the work). The expectation is the mean of
    :data:`BUSIEST_SLICE_TRIALS` seeded placements up to :data:`BUSIEST_SLICE_SAMPLED` lines, beyond it
    ``mean + sqrt(2 mean ln slices)``."""
    lines, slices = max(1, int(lines)), max(1, int(round(slices)))
    if slices == 1:
        return 1.0
    if lines > BUSIEST_SLICE_SAMPLED:
        mean = lines / slices
        busiest = mean + math.sqrt(2.0 * mean * math.log(slices))
    else:
        rng = np.random.default_rng(0)
        placed = rng.integers(0, slices, size=(BUSIEST_SLICE_TRIALS, lines))
        offsets = np.arange(BUSIEST_SLICE_TRIALS)[:, None] * slices
        counts = np.bincount((placed + offsets).ravel(), minlength=BUSIEST_SLICE_TRIALS * slices)
        busiest = float(counts.reshape(BUSIEST_SLICE_TRIALS, slices).max(axis=1).mean())
    return max(1.0, slices * busiest / lines)


def atomic_elements(action: TileAction, tensor: TensorAccess, nbytes: float) -> float:
    """The atomics one occurrence of an atomic store makes: its tile's elements (``nbytes``), or for a
    scattered one (:data:`SCATTER_ATOMIC`) its lanes (``TileAction.shape``), which a target smaller than them
    (a bincount's 1,024 lanes into 32 bins) does not clip as it clips the tile."""
    elements = nbytes / dtype_bytes(tensor.dtype)
    if action.variant == SCATTER_ATOMIC and action.shape:
        elements = max(elements, float(math.prod(action.shape)))
    return elements


def atomic_seconds(
    action: TileAction, tensor: TensorAccess, nbytes: float, per_sm: float, hw: HardwareProfile
) -> float:
    """L2 time on one SM of an atomic store's :func:`atomic_elements` at ``per_sm`` elements a second (the
    chip's contiguous-atomic rate shared by the SMs, or what the resident blocks issue). A scattered one
    (:data:`SCATTER_ATOMIC`) costs a transaction per distinct sector of each instruction
    (:func:`scatter_transactions_per_element`) at the chip's sector rate (``l2_atomic_elements_per_s`` of
    4-byte adds, eight to a sector), on the L2 slices its target's lines land on
    (:func:`busiest_slice_factor` of ``l2_atomic_slices``): both from the ``atomics_hot`` probe (1 to 64M
    bins) and the atomics probe (tiles added whole). The atomics on one word wait for each other besides
    (:func:`same_word_seconds`)."""
    element_bytes = dtype_bytes(tensor.dtype)
    elements = atomic_elements(action, tensor, nbytes)
    seconds = elements / per_sm
    words = float(math.prod(tensor.shape)) or 1.0
    if action.variant == SCATTER_ATOMIC:
        sector_rate = hw.l2_atomic_elements_per_s * WORD_BYTES / ATOMIC_SECTOR_BYTES / hw.sm_count
        tx = elements * scatter_transactions_per_element(words, element_bytes, hw.warp_size)
        spread = 1.0
        if hw.l2_atomic_slices:
            lines = math.ceil(words * element_bytes / ATOMIC_LINE_BYTES)
            spread = busiest_slice_factor(lines, hw.l2_atomic_slices)
        seconds = max(seconds, tx / sector_rate * spread)
    return seconds


def same_word_seconds(action: TileAction, tensor: TensorAccess, nbytes: float, hw: HardwareProfile) -> float:
    """The time one occurrence of an atomic store adds to the longest chain of atomics on one word: the L2
    updates a word one atomic at a time (``atomic_same_address_s``, ``_int_s``: the ``atomics_hot`` probe's
    one-bin points), so a target of ``W`` words taking ``E`` atomics in all, spread evenly, holds each word
    for ``E / W`` of them, ``elements / W`` of them this occurrence's (a per-program ``tl.atomic_max`` on one
    word: every program's). Summed over the launch, a floor beside the pipelines (the evaluator's
    ``chain_s``), not L2 bandwidth: one slice serves the word while the rest of the L2 serves the others."""
    same = hw.atomic_same_address_s if is_float(tensor.dtype) else hw.atomic_same_address_int_s
    return atomic_elements(action, tensor, nbytes) * same / (float(math.prod(tensor.shape)) or 1.0)


# Bytes per thread of a tile kernel's loop-invariant live state (addresses, offsets, masks, loop bounds): 40
# registers, what ptxas -v gives a Triton GEMM whose accumulator is negligible (the Triton frontend's
# REGISTER_OVERHEAD; a compiler figure, not fitted to timings). ptxas spills this state first: the loop
# reloads it and never stores it. Beyond it the frame holds state the loop changes (accumulators, staged
# tiles), reloaded and stored back at every iteration. In the SASS of nine spilling Triton GEMMs compiled on
# CPU with the ptxas Triton ships (``python benchmarks/spill_frames.py sass ID ...``), the main loop loads
# 1.0-1.6x the frame and stores 0 for frames of 40-152 bytes, 0.4-1.0x the frame for frames of 232-11464
# bytes.
SPILLABLE_STATE_BYTES = 40 * 4
# Issue rates of the instructions in a serial chain relative to the profile's rates (CUDA C++ programming
# guide, "Arithmetic Instructions" throughput table, compute capability 8.x / 9.0, results per clock per SM):
# 32-bit integer add / logic / shift 64 against 128 FP32 fused multiply-adds, so an integer lane issues at
# half the FP32 rate; conversions between integer and floating-point types 16, as many as the
# special-function units' 16, so a conversion lane issues at the profile's SFU rate.
INT_OVER_FP32_ISSUE_RATE = 0.5
CVT_OVER_SFU_ISSUE_RATE = 1.0

NPIPES = len(PIPELINES)
TC, CUDA, SFU, TMEM, SMEM, L15, L2, DDR, NET = range(NPIPES)
ZERO: tuple[float, ...] = (0.0,) * NPIPES

# Levels a LOAD/STORE reaches through the cache hierarchy (the rest are scratchpads or remote devices).
_GLOBAL_LEVELS = frozenset({MemLevel.L1_5, MemLevel.L2, MemLevel.DDR})
_SCRATCH_LEVELS = frozenset({MemLevel.REG, MemLevel.SMEM, MemLevel.TMEM})
_MEMORY_KINDS = frozenset({ActionKind.LOAD, ActionKind.STORE, ActionKind.REMOTE})


class ActionDemand(NamedTuple):
    """What one occurrence of one action asks of the nine pipelines.

    ``amounts``: native units per pipeline (FLOPs/ops, bytes, or seconds for Net). ``busy_s``: seconds per
    pipeline at the full-chip share (all SMs active, one resident block). ``latency_s``: access latency of a
    memory action (added to its duration, not to any pipeline's busy time).
    """

    name: str
    kind: ActionKind
    amounts: tuple[float, ...]
    busy_s: tuple[float, ...]
    latency_s: float
    memory: bool
    bytes: float = 0.0
    flops: float = 0.0
    l2_hit: float | None = None
    net_missing: bool = False
    floor_s: float = 0.0  # the action takes at least this long (a serial chain), whatever its busy times
    # a lone block's load whose transfer runs at this rate (its SM's L2 port), not at its fair share of L2:
    # what its duration in the schedule takes; its busy times still charge the shares (0 = not such a load)
    burst_bytes_per_s: float = 0.0
    # L2 sectors a store narrower than a word, its lanes apart, writes part of (partial_write_sectors):
    # merged at the profile's l2_partial_write_sectors_per_s over the chip, beside the pipelines (the
    # launch's floor, evaluate._core_at)
    merge_sectors: float = 0.0
    # seconds an atomic store's occurrence adds to the longest chain of atomics on one word (resources.
    # same_word_seconds): summed over the launch beside the pipelines, with the atomics' own L2 time (the
    # launch's floor, evaluate._core_at)
    same_word_s: float = 0.0
    # a pipelined loop's load (its own threads' copies): the mean latency of its lines, L2's for the bytes the
    # caches serve and the unloaded DRAM latency for the rest
    # (pipelined_refill_latency); what the loop's refill bound waits for (tile.refill_span_s; 0 = L2's)
    refill_latency_s: float = 0.0


# The DRAM utilisation at which ddr_queue_s stops growing: the queue's U / (1 - U) is finite there (19x its
# unit), well past the probe's highest point (0.89 of the fitted bandwidth).
DDR_QUEUE_MAX_UTILISATION = 0.95


def chain_issue_s(chain: SerialChain, hw: HardwareProfile) -> float:
    """Issue time, on one scheduler, of one vector iteration's instructions beyond the first of each op: a
    32-bit lane per instruction (integer lanes at :data:`INT_OVER_FP32_ISSUE_RATE` of the FP32 rate), or two
    16-bit float lanes (``packed_alu``, at the FP32 rate); conversions one lane an instruction at the SFU
    rate, two instructions a lane from a narrow integer (``narrow_cvt``), or two lanes an instruction at the
    integer rate (``packed_cvt``: fp8 pairs). The instruction counts are what TileLang's lowered CUDA issues;
    the two conversion forms' rates are the ``smem_transform`` probe's ``cast_i8`` / ``cast_f8`` (an 8-bit
    integer lane costs twice a 32-bit one's conversion; an fp8 pair issues like an integer op)."""
    per_scheduler = hw.sm_count * max(hw.schedulers_per_sm, 1)
    fp32_lane_s = FLOP_PER_OP * per_scheduler / hw.cuda_flops_per_s
    alu_lane_s = fp32_lane_s if chain.packed_alu else fp32_lane_s / INT_OVER_FP32_ISSUE_RATE
    alu_instr = -(-chain.lanes // 2) if chain.packed_alu else chain.lanes
    cvt_lane_s = per_scheduler / (hw.sfu_ops_per_s * CVT_OVER_SFU_ISSUE_RATE)
    warp = hw.warp_size
    if chain.packed_cvt:
        cvt_instr, cvt_lane_s = -(-chain.lanes // 2), fp32_lane_s / INT_OVER_FP32_ISSUE_RATE
    else:
        cvt_instr = chain.lanes * (2 if chain.narrow_cvt else 1)
    return chain.alu * (alu_instr - 1) * warp * alu_lane_s + chain.cvt * (cvt_instr - 1) * warp * cvt_lane_s


def serial_chain_s(chain: SerialChain, hw: HardwareProfile) -> float:
    """Seconds one thread spends on a :class:`~tilesight.plan.SerialChain`: its iterations back to back.

    One vector iteration: the profile's ``smem_chain_latency_s`` (shared-memory load to use, and the store),
    ``alu_latency_s`` per dependent arithmetic op and ``cvt_latency_s`` per dependent conversion, a
    ``log2(warp_size)``-th of ``warp_reduction_latency_s`` per dependent shuffle step (a shuffle and its
    combining op, as the reductions probe's one-warp tree takes them), the profile's
    ``[cross_warp_reduction]`` latency where each iteration's tree spans ``cross_warps`` warps, plus
    :func:`chain_issue_s`; once more the profile's ``smem_feed_step_s`` where a dot of the same step reads
    what the chain wrote (``feeds_dot``). 0 when the profile does not give the chain latencies.
    """
    if not hw.smem_chain_latency_s:
        return 0.0
    latency = hw.smem_chain_latency_s + chain.alu * hw.alu_latency_s + chain.cvt * hw.cvt_latency_s
    if chain.shuffles:
        latency += chain.shuffles * hw.warp_reduction_latency_s / math.log2(hw.warp_size)
    latency += hw.reduction_latency(chain.cross_warps)
    feed = hw.smem_feed_step_s if chain.feeds_dot else 0.0
    return chain.iterations * (latency + chain_issue_s(chain, hw)) + feed


def full_share_rates(hw: HardwareProfile) -> tuple[float, ...]:
    """Per-SM rates at the full-chip share (one block per SM, all SMs active); TC is per dtype, so 0 here."""
    sms = hw.sm_count
    return (
        0.0,
        hw.cuda_flops_per_s / sms,
        hw.sfu_ops_per_s / sms,
        hw.tmem_bw_per_sm_bytes_per_s,
        hw.smem_bw_per_sm_bytes_per_s,
        hw.l15_bw_bytes_per_s / sms if hw.has_l15 else 0.0,
        min(hw.l2_bw_bytes_per_s / sms, hw.l2_bw_per_sm_bytes_per_s),
        ddr_read_bw(hw) / sms,
        1.0,
    )


def ddr_read_bw(hw: HardwareProfile) -> float:
    """DRAM bandwidth of a read stream: the calibrated read-only rate, else the copy rate."""
    return hw.ddr_read_bw_bytes_per_s or hw.ddr_bw_bytes_per_s


def ddr_write_slowdown(hw: HardwareProfile) -> float:
    """How much longer a written DRAM byte takes than a read one.

    The copy rate ``C`` (as many bytes written as read) and the read rate ``R`` fix the write rate ``W`` of a
    harmonic mix, ``2 / C = 1 / R + 1 / W``; the factor is ``R / W``. 1 without a read-only calibration.
    """
    read, copy = ddr_read_bw(hw), hw.ddr_bw_bytes_per_s
    inv_write = 2.0 / copy - 1.0 / read
    return read * inv_write if inv_write > 0 else 1.0


def share_rates(hw: HardwareProfile, active_sms: int, resident: int) -> tuple[float, ...]:
    """Per-block rates when ``active_sms`` SMs are active and ``resident`` blocks share each SM (TC: 0)."""
    p = float(resident)
    return (
        0.0,
        hw.cuda_flops_per_s / hw.sm_count / p,
        hw.sfu_ops_per_s / hw.sm_count / p,
        hw.tmem_bw_per_sm_bytes_per_s / p,
        hw.smem_bw_per_sm_bytes_per_s / p,
        hw.l15_bw_bytes_per_s / active_sms / p if hw.has_l15 else 0.0,
        min(hw.l2_bw_bytes_per_s / active_sms, hw.l2_bw_per_sm_bytes_per_s) / p,
        ddr_read_bw(hw) / active_sms / p,
        1.0,
    )


def region_scale(hw: HardwareProfile, active_sms: int, resident: int) -> tuple[float, ...]:
    """Factor per pipeline turning full-chip-share busy seconds into those of a region.

    Compute, TMEM and SMEM slow down by ``resident`` (blocks share the SM); DDR, L2 and L1.5 also change with
    the number of active SMs that split the chip's bandwidth; Net times are given per action and not scaled.
    """
    if active_sms < 1 or active_sms > hw.sm_count:
        raise PlanError("active_sms", active_sms, f"must be in [1, {hw.sm_count}]")
    if resident < 1:
        raise PlanError("resident", resident, "must be >= 1")
    full = full_share_rates(hw)
    part = share_rates(hw, active_sms, resident)
    p = float(resident)
    out = [p, p, p, p, p]
    for r in (L15, L2, DDR):
        out.append(full[r] / part[r] if part[r] > 0 else p)
    out.append(1.0)
    return tuple(out)


def contiguous_bytes(tensor: TensorAccess) -> float:
    """Bytes of one tile access that are contiguous in a row-major tensor: the innermost tile extent, grown by
    each outer dimension as long as the tile spans the whole inner one; the frontend's ``run_bytes`` where
    it gave them."""
    if tensor.run_bytes is not None:
        return tensor.run_bytes
    return _run_bytes(tensor, tensor.tile)


def _run_bytes(tensor: TensorAccess, extents: tuple[int, ...]) -> float:
    """Bytes of ``extents`` (per dimension) of ``tensor`` that lie in one run of a row-major layout: the
    innermost extent, times each outer one for as long as the tile spans the whole dimension inside it."""
    run = dtype_bytes(tensor.dtype)
    for t, s, e in zip(reversed(tensor.tile), reversed(tensor.shape), reversed(extents), strict=True):
        run *= e
        if t < s:
            break
    return run


def store_run_bytes(tensor: TensorAccess) -> float:
    """Bytes of a stored tensor that reach DRAM as one contiguous run. Stores land in the write-back L2,
    which writes a line back to DRAM only when it evicts it: the tiles next to a tile along the tensor's
    innermost dimension fill in the rest of its lines long before that (the launch's tiles cover the tensor,
    and neighbours along the contiguous dimension run in the same or the next wave), so the L2 writes whole
    rows of the tensor, whatever the tile's own run (:func:`contiguous_bytes`). Seen on transposes whose
    tiles write 64-byte runs of each output row (32 x 128 and 128 x 32 tiles): 3.6 TB/s of DRAM traffic
    in all, a copy's rate, where 64-byte reads stream at 0.68 of it (the DRAM-granularity probe); the
    validation's 4096 x 11008 transpose was predicted 28% slow. A run of the frontend's own (``run_bytes``)
    stands."""
    if tensor.run_bytes is not None:
        return tensor.run_bytes
    return _run_bytes(tensor, tensor.shape)


def side_by_side_runs(tensors: list[TensorAccess], shifts: Mapping[str, int]) -> list[TensorAccess]:
    """``tensors`` with ``run_bytes`` set on the regions of one argument (named ``x`` and ``x+64``: the part
    before ``+``) whose tiles sit next to each other along the innermost dimension, each starting a tile's
    inner extent after the last (``shifts``: each region's start in elements from the argument's; a rotary
    embedding's halves of a head): with its siblings', each region's rows are one contiguous run in memory.
    Both frontends name and shift such regions alike."""
    import dataclasses

    groups: dict[str, list[TensorAccess]] = {}
    for t in tensors:
        groups.setdefault(t.name.split("+", 1)[0], []).append(t)
    out = []
    for t in tensors:
        sibs = groups[t.name.split("+", 1)[0]]
        steps = sorted(shifts.get(x.name, 0) for x in sibs)
        inner = t.tile[-1]
        if (
            len(sibs) > 1
            and all(x.tile == t.tile and x.shape == t.shape for x in sibs)
            and steps == [steps[0] + i * inner for i in range(len(steps))]
            and len(sibs) * inner <= t.shape[-1]
        ):
            union = dataclasses.replace(t, tile=(*t.tile[:-1], len(sibs) * inner), masked=True)
            t = dataclasses.replace(t, run_bytes=int(contiguous_bytes(union)))
        out.append(t)
    return out


def l1_broadcast(
    action: TileAction, tensor: TensorAccess, plan: TilePlan, hw: HardwareProfile, resident: int
) -> bool:
    """Whether the SM's L1 serves a load of ``tensor`` once the first block on the SM has read it: every
    tile reads the same part of it (its reuse dims cover the grid: a normalisation's weight row, a GEMV's
    vector), all of it fits in the L1 left beside the resident blocks' shared memory, and the load is an
    ``ld.global`` into registers, which caches in L1: not a copy into shared memory, and not in a kernel
    with dots, whose loop loads the compilers make asynchronous copies (``cp.async.cg``, TMA) that bypass
    L1. The L2 then sees it once per SM, nothing against the tiles' other traffic; it still issues on the
    SM's load/store path."""
    if plan.has_dots or action.dst is not MemLevel.REG:
        return False
    dims = plan.grid.dims
    if not dims or not set(dims) <= tensor.reuse_dims:
        return False
    return tensor.tensor_bytes <= hw.l1_smem_per_sm_bytes - resident * plan.resources.smem_bytes


def lsu_seconds(
    action: TileAction, nbytes: float, hw: HardwareProfile, l2_hit: float | None = None, *, row: bool = False
) -> float:
    """Issue time of one occurrence's warp-wide memory instructions on one SM's load/store units.

    A warp instruction moves ``vector_bytes`` per thread (``FULL_VECTOR_BYTES`` when the frontend found the
    access fully vectorised); ``nbytes`` is what the access moves, the lanes its mask keeps (a warp whose
    lanes are all masked off sends nothing to the load/store units: the 2,500-wide rows of validation 52's
    RMSNorm in 2,048-wide blocks issue at the probe's rate for their 2,500 elements, not the blocks' 4,096).
    The rate is calibrated on global loads and stores (the narrow-access probe, a DRAM-resident row copy); a
    load's ``l2_hit`` share of instructions, whose lines L2 serves, issues at the profile's
    ``lsu_l2_warp_instr_per_s_per_sm`` where given (the ``narrow_tiles`` probe: element-wide tile
    loops over an L2-resident matrix); an asynchronous copy into shared memory of one element per thread and
    instruction (4-byte ``cp.async``, ``variant="async_element"``) at the profile's
    ``lsu_async_elem_warp_instr_per_s_per_sm`` where given (the ``tf32`` probe: L1-bound, about a fifth of
    the element-wide global-load rate); an 8-byte one (``variant="async_narrow"``: ``cp.async.ca``, through
    L1) at least the profile's ``lsu_async_narrow_wavefronts`` shared-memory wavefronts an instruction at
    ``smem_bw_per_sm_bytes_per_s`` (its write, 4 wavefronts with its bank conflicts, and the barrier and fence
    traffic of the loop that issues it: the ``warps`` probe's small set under ncu). A synchronous loop load
    (``variant="sync"``: one Triton could not turn into an asynchronous copy, e.g. for an unaligned row
    stride) is counted ``SYNC_LOAD_PASSES`` times: its global loads only, as the shared-memory stores that
    stage it for its consumer are not what the probes measure.

    A ``row`` load (into registers, in a kernel without dots: a normalisation's or softmax's row loads)
    issues at the profile's ``lsu_l2_row_warp_instr_per_s_per_sm`` where given (the ``narrow_width`` probe:
    element-wide re-reads of an L2-resident buffer, 0.74-0.85 G warp instructions a second an SM where
    ``narrow_tiles`` reached 0.48 G), times ``lsu_wide_span_share`` for an element-wide instruction whose
    lanes span more than :data:`LSU_FULL_RATE_SPAN_BYTES` (:func:`lane_span_bytes`); an element-wide one (at
    most :data:`WORD_BYTES` an instruction) at that rate whether L2 or DRAM serves its lines: the DRAM wait
    is the DRAM pipeline's and the load's latency, not issue slots. (Stop 58: at the copy probe's rate the
    DRAM-served element-wide row loads cost what the measurements do not show. The ``narrow_ept`` probe's
    element-wide reads of DRAM-resident rows take 1.8-5.4 us more than their vector twins, where that rate
    added 10-21 us; the ``reduce_mix`` probe's odd-width rows 1-9 us over their twins, where it added 2-19.
    Wider row loads keep the copy rate for their DRAM share: the row-striding softmax's 8-byte rows are
    closer so.)
    """
    vec = action.vector_bytes or FULL_VECTOR_BYTES
    passes = SYNC_LOAD_PASSES if action.variant == SYNC_LOAD else 1
    instr = passes * nbytes / (vec * hw.warp_size)
    if action.variant == ELEMENT_ASYNC_COPY and hw.lsu_async_elem_warp_instr_per_s_per_sm:
        return instr / hw.lsu_async_elem_warp_instr_per_s_per_sm
    floor = 0.0
    if action.variant == NARROW_ASYNC_COPY and hw.lsu_async_narrow_wavefronts:
        # through L1: its write and its loop's barrier and fence traffic in the shared-memory data stage, in
        # wavefronts, where they exceed the issue slots below
        floor = instr * hw.lsu_async_narrow_wavefronts * WAVEFRONT_BYTES / hw.smem_bw_per_sm_bytes_per_s
    base = hw.lsu_warp_instr_per_s_per_sm
    l2_rate = hw.lsu_l2_warp_instr_per_s_per_sm
    if row and hw.lsu_l2_row_warp_instr_per_s_per_sm:
        l2_rate = hw.lsu_l2_row_warp_instr_per_s_per_sm
        if hw.lsu_wide_span_share and lane_span_bytes(action, hw) > LSU_FULL_RATE_SPAN_BYTES:
            l2_rate *= hw.lsu_wide_span_share
        if action.kind is ActionKind.LOAD and vec <= WORD_BYTES:
            return instr / l2_rate  # an element-wide row load, wherever its lines come from (the docstring)
    if l2_hit is None or not l2_rate:
        return max(floor, instr / base)
    return max(floor, instr * (l2_hit / l2_rate + (1.0 - l2_hit) / base))


def lane_span_bytes(action: TileAction, hw: HardwareProfile) -> int:
    """Bytes one warp instruction of an element-wide access spans: its lanes ``lane_stride_bytes`` apart (a
    mask that split each thread's vector; TileAction checks it exceeds ``vector_bytes``), times the warp's
    lanes; 0 for an access whose lanes are contiguous (no lane stride: its span is its bytes)."""
    return hw.warp_size * action.lane_stride_bytes if action.lane_stride_bytes else 0


def partial_write_sectors(action: TileAction, nbytes: float, hw: HardwareProfile) -> float:
    """L2 sectors one occurrence of a store writes part of, counted once per warp instruction: 0 unless it
    stores less than a word (:data:`WORD_BYTES`) a lane with its lanes ``lane_stride_bytes`` apart (a mask
    that split each thread's vector). Each such instruction moves ``vector_bytes`` a lane and spans
    ``warp_size x lane_stride_bytes`` bytes, every sector of which the L2 merges (the narrow_strided probe:
    a float16 write of 2^24 - 1 elements, eight 2-byte stores a thread 16 bytes apart, takes 70 us against
    14 us aligned, while float32's 4-byte stores 16 bytes apart take 22 us against 19)."""
    span = lane_span_bytes(action, hw)
    if action.kind is not ActionKind.STORE or not span or action.vector_bytes >= WORD_BYTES:
        return 0.0
    instructions = nbytes / (action.vector_bytes * hw.warp_size)
    return instructions * max(1.0, span / hw.l2_sector_bytes)


def frame_pass(plan: TilePlan, hw: HardwareProfile, resident: int) -> tuple[float, float]:
    """(seconds, bytes) of one pass over a block's spilled frame (``spill_bytes_per_thread`` of the plan's
    resources): every thread moves the plan's ``spill_pass_bytes`` where the frontend read them from the
    machine code (the distinct frame bytes a loop's code reloads and stores around a dot), else reloads the
    whole frame and stores back what of it is not loop-invariant state (all but the plan's
    ``spill_invariant_bytes``, by default :data:`SPILLABLE_STATE_BYTES`); at :func:`spill_seconds`' rate for
    where the resident frames live."""
    res = plan.resources
    spill, threads = res.spill_bytes_per_thread, res.threads
    active = min(plan.grid.blocks, hw.sm_count)
    if res.spill_pass_bytes is not None:
        moved = res.spill_pass_bytes * threads
    else:
        invariant = SPILLABLE_STATE_BYTES if res.spill_invariant_bytes is None else res.spill_invariant_bytes
        moved = (spill + max(spill - invariant, 0)) * threads
    seconds = spill_seconds(
        hw,
        moved,
        warps_per_sm=resident * -(-threads // hw.warp_size),
        frame_per_sm=spill * threads * resident,
        frame_chip=spill * threads * resident * active,
        smem_per_sm=res.smem_bytes * resident,
        active_sms=active,
    )
    return seconds, float(moved)


def frames_fit_l1(hw: HardwareProfile, frame_per_sm: float, smem_per_sm: float) -> bool:
    """Whether the spill frames of an SM's resident blocks fit in what their shared memory leaves of the
    profile's L1 / shared array (False where the profile gives no array size)."""
    return bool(hw.l1_smem_per_sm_bytes) and frame_per_sm <= hw.l1_smem_per_sm_bytes - smem_per_sm


def reload_latency_s(plan: TilePlan, hw: HardwareProfile, resident: int) -> tuple[float, float]:
    """What one wait for a register-spill reload costs a warp of ``plan`` at ``resident`` blocks an SM, as
    (a slot the loop only reads, :attr:`~tilesight.plan.Loop.reload_waits`; a slot it also stores to,
    :attr:`~tilesight.plan.Loop.stored_reload_waits`).

    A slot the loop only reads (a spilled address) is an L1 hit, the profile's ``local_l1_latency_s``, where
    the frames of the SM's resident blocks fit in what their shared memory leaves of the L1 / shared array
    (:func:`spill_seconds`' rule); else, like a slot the loop stores to wherever the frames live, it waits
    ``l2_latency_s``. Frames too large for L2 are charged L2's latency too, not DRAM's: the measured GEMMs
    whose frames over the chip are 230-720 MB wait 450-630 ns a stop, which DRAM's loaded latency (889 ns on
    the H200) overshoots more than L2's (266 ns) undershoots (``frontends/triton/sass.py``;
    docs/tilelang.md, stop 60). (0, 0) for a plan without a spill frame."""
    res = plan.resources
    if not res.spill_bytes_per_thread:
        return 0.0, 0.0
    frame_per_sm = res.spill_bytes_per_thread * res.threads * resident
    if frames_fit_l1(hw, frame_per_sm, res.smem_bytes * resident):
        return hw.local_l1_latency_s, hw.l2_latency_s
    return hw.l2_latency_s, hw.l2_latency_s


def _pass_openers(plan: TilePlan) -> frozenset[str]:
    """The first compute action (element-wise, reduction, SFU) of each body of ``plan`` that has one: the
    tile program's top level and every loop's body, each a pass over the tile's live state."""
    first: dict[tuple[str, ...], str] = {}
    for act, loops in plan.actions():
        if act.kind in (ActionKind.ELEMENTWISE, ActionKind.REDUCE, ActionKind.SFU):
            first.setdefault(tuple(loop.name for loop in loops), act.name)
    return frozenset(first.values())


def spill_seconds(
    hw: HardwareProfile,
    nbytes: float,
    *,
    warps_per_sm: int,
    frame_per_sm: float,
    frame_chip: float,
    smem_per_sm: float,
    active_sms: int,
) -> float:
    """Seconds one SM takes to move ``nbytes`` of register-spill (local memory) traffic.

    Local memory is cached like global memory, per thread, and every pass touches the whole frame, so where it
    is served follows from the frames' footprint (``benchmarks/data/calibration_local.json``):

    * the frames of the SM's resident blocks (``frame_per_sm``) fit in what shared memory leaves of the L1 /
      shared array: the SM's local-memory rate ``local_bw_per_sm_bytes_per_s``;
    * else the frames of all active SMs (``frame_chip``) are re-read at that reuse distance from L2, hit with
      the SDCM probability of the profile's effective L2 (:func:`tilesight.cache.sdcm.hit_probability`), and
      each level moves at most ``warps_per_sm x local_inflight_bytes_per_warp / latency`` (Little's law on the
      reloads a warp keeps in flight): L2 hits also at most the local-memory rate, misses at most the SM's
      share of ``local_ddr_bw_bytes_per_s``.

    Profiles without the local-memory calibration use the SM's L2 share, the DRAM copy rate and no latency
    bound (the spill then costs its bytes alone)."""
    l2_share = min(hw.l2_bw_bytes_per_s / hw.sm_count, hw.l2_bw_per_sm_bytes_per_s)
    peak = hw.local_bw_per_sm_bytes_per_s or l2_share
    if frames_fit_l1(hw, frame_per_sm, smem_per_sm):
        return nbytes / peak
    line = hw.l2_line_bytes
    hit = float(hit_probability(frame_chip / line, hw.l2_effective_bytes / line, hw.l2_associativity))
    ddr = (hw.local_ddr_bw_bytes_per_s or hw.ddr_bw_bytes_per_s) / active_sms
    inflight = warps_per_sm * hw.local_inflight_bytes_per_warp
    if inflight:
        l2_rate = min(peak, inflight / hw.l2_latency_s)
        ddr_rate = min(ddr, inflight / hw.ddr_latency_s)
    else:
        l2_rate, ddr_rate = peak, ddr
    return nbytes * (hit / l2_rate + (1.0 - hit) / ddr_rate)


def narrow_mma_rate(hw: HardwareProfile, dtype: str, n: int, a_registers: bool = False) -> float:
    """Chip FLOP/s a stream of ``n``-column warpgroup MMAs of ``dtype`` sustains at most: the dot-chain
    rate of wide instructions (``wgmma_chain_flops_per_s``, fp16; other dtypes in proportion to their
    calibrated rates) times the profile's ``[wgmma_n_efficiency]`` at ``n``. A cap, not a factor: the
    calibrated rate of a whole GEMM already sits below the chain rate (its operand feed), and a narrow
    instruction stream is bounded by the tensor cores themselves (the probe's chains read their operands from
    shared memory too). Without the chain rate, the calibrated rate times the efficiency.

    The table is of instructions that read A from shared memory, as the probes' chains and GEMMs do: each
    m64nNk16 instruction reads its 64 x 16 A rows (2 KB in fp16) whatever N is, and 16 x N of B, for 2048 N
    FLOP. At the SM's 128 bytes of shared memory a clock against 4096 FLOP a clock of tensor cores, the
    shared-memory reads outlast the math below N = 64 (n32: 24 against 16 clocks, 0.67; n16 0.40; n8 0.22),
    the shape the probes measured (0.761, 0.477, 0.267). An instruction that takes A from registers
    (:attr:`~tilesight.plan.TileAction.mma_a_registers`: attention's P V, P from the softmax) reads B alone,
    under the math at every N; what it keeps is the profile's ``[wgmma_n_efficiency_registers]``
    (``a_registers``): the ``regs_a`` probe's register-A chains run m64n32 at the wide rate and m64n16 at
    0.64 of it, against 0.761 and 0.477 reading A from shared memory (stop 72, an H100). The ``wrapped``
    probe (the attention loop's two dots, 64 x 64 tiles on 8 warps, P V on m64n32 from registers) takes
    1.66-1.84x its 4-warp twin, 1.95-1.97 with the shared-memory cap on P V, 1.82-1.83 without."""
    rate = hw.tc_rate(dtype, "wgmma")
    eff = hw.mma_n_efficiency(n, a_registers)
    if eff >= 1.0:
        return rate
    chain = chain_mma_rate(hw, dtype)
    return eff * (chain if chain is not None else rate)


def chain_mma_rate(hw: HardwareProfile, dtype: str) -> float | None:
    """Chip FLOP/s of a chain of wide warpgroup MMAs of ``dtype``: the profile's ``wgmma_chain_flops_per_s``
    (fp16), other dtypes in proportion to their calibrated rates; None where the profile has no chain rate."""
    if not hw.wgmma_chain_flops_per_s or "float16" not in hw.tc_flops_per_s:
        return None
    return hw.wgmma_chain_flops_per_s * hw.tc_rate(dtype, "wgmma") / hw.tc_rate("float16")


def waited_mma_rate(hw: HardwareProfile, dtype: str, n: int | None, a_registers: bool = False) -> float:
    """Chip FLOP/s of a warpgroup MMA whose issuing warps wait for its result in the same loop iteration
    (attention's ``S = Q K^T`` and ``P V``: :func:`tilesight.model.tile.waits_on_dot`): the dot-chain rate
    (``wgmma_chain_flops_per_s``, fp16; other dtypes in proportion to their calibrated rates) times the
    profile's ``[wgmma_n_efficiency]`` at ``n``, not the calibrated GEMM rate. The calibrated rate is cuBLAS
    back to back, whose tensor cores never idle: the clock it holds is the throttled one (the clock-rates
    probe: 652 TFLOP/s at 1455 MHz sustained, 755 on a rested GPU; benchmarks/data/clocks/). A loop that
    leaves the tensor cores idle while its warps run the softmax holds 1.82-1.98 GHz (the clocks probe), the
    clock the dot-chain probes ran at. Without the chain rate, :func:`narrow_mma_rate`. ``a_registers``:
    the instructions take A from registers (:func:`narrow_mma_rate`)."""
    rate = chain_mma_rate(hw, dtype)
    if rate is None:
        return narrow_mma_rate(hw, dtype, n, a_registers) if n else hw.tc_rate(dtype, "wgmma")
    return rate * min(1.0, hw.mma_n_efficiency(n, a_registers)) if n else rate


def waited_load_latency(hw: HardwareProfile, demand: ActionDemand, tile_bytes: float) -> float:
    """Latency of a synchronous tile load (:data:`~tilesight.plan.SYNC_LOAD`) in a loop that is not
    software-pipelined: the block's threads issue its lines together and wait at the block's barrier for the
    last of them, so an iteration takes the slowest line's latency, not the mean. With each of the tile's
    ``tile_bytes / l2_line_bytes`` lines hitting L2 independently at the action's hit rate ``h``, the tile
    waits for DRAM unless every line hits: ``h^lines * l2_latency + (1 - h^lines) * ddr_latency`` (never below
    the action's mean latency)."""
    if demand.l2_hit is None:
        return demand.latency_s
    slowest = slowest_line_latency(hw, demand.l2_hit, tile_bytes, hw.l2_latency_s, hw.ddr_latency_s)
    return max(demand.latency_s, slowest)


def slowest_line_latency(
    hw: HardwareProfile, served: float, nbytes: float, fast_s: float, slow_s: float
) -> float:
    """Latency of a tile whose reader waits for every one of its ``nbytes / l2_line_bytes`` lines (at least
    one), each served fast (in ``fast_s``) with probability ``served`` independently: ``slow_s`` unless every
    line is, ``fast_s`` then, in expectation ``p fast_s + (1 - p) slow_s`` with ``p = served^lines``."""
    all_fast = min(max(served, 0.0), 1.0) ** max(1.0, nbytes / hw.l2_line_bytes)
    return all_fast * fast_s + (1.0 - all_fast) * slow_s


def waited_tile_latency(
    hw: HardwareProfile, served: float, nbytes: float, fast_s: float, slow_s: float, act: TileAction | None
) -> float:
    """:func:`slowest_line_latency` of a load whose steps re-read their own earlier ones
    (:attr:`~tilesight.plan.TileAction.rereads`) with their first reads in ``fresh_steps`` of them: a line
    waits for DRAM with probability ``1 - served`` on average, put first on the steps' new lines (``1 -`` the
    re-read shares of them, all in the fresh steps), the rest spread over the re-read lines; a step is fast
    when every one of its lines is. Without ``rereads`` (or ``act`` None) it is
    :func:`slowest_line_latency` itself."""
    if act is None or not act.rereads:
        return slowest_line_latency(hw, served, nbytes, fast_s, slow_s)
    lines = max(1.0, nbytes / hw.l2_line_bytes)
    wait = 1.0 - min(max(served, 0.0), 1.0)
    new = max(1.0 - sum(share for _, share in act.rereads), 0.0)
    fresh = act.fresh_steps
    wait_new = min(wait / new, 1.0) if new > 0 else 0.0
    wait_old = (wait - wait_new * new) / (1.0 - new) if new < 1.0 else 0.0
    new_lines = lines * new / fresh  # a fresh step's new lines
    settled = (1.0 - wait_old) ** lines  # a step of re-read lines only
    fresh_fast = (1.0 - wait_old) ** max(lines - new_lines, 0.0) * (1.0 - wait_new) ** new_lines
    all_fast = (1.0 - fresh) * settled + fresh * fresh_fast
    return all_fast * fast_s + (1.0 - all_fast) * slow_s


def ddr_queue_s(hw: HardwareProfile, read_bytes_per_s: float) -> float:
    """What DRAM queueing adds to a pipelined load's DRAM latency when the launch reads ``read_bytes_per_s``
    from DRAM: ``ddr_queue_latency_s x U / (1 - U)``, ``U`` that rate over ``ddr_queue_bw_bytes_per_s`` (at
    most :data:`DDR_QUEUE_MAX_UTILISATION`); 0 where the profile does not give the queue. The profile's two
    fields are the ``loaded_latency`` probe's fit: tile streams from DRAM at 16-132 blocks, one an SM, 2-4
    stages, the latency by Little's law at 0.3-3.7 TB/s (H200: 841 ns + 112 ns x U / (1 - U) of 4.2 TB/s,
    29 ns rms over its 12 points)."""
    if not hw.ddr_queue_latency_s or read_bytes_per_s <= 0:
        return 0.0
    u = min(read_bytes_per_s / hw.ddr_queue_bw_bytes_per_s, DDR_QUEUE_MAX_UTILISATION)
    return hw.ddr_queue_latency_s * u / (1.0 - u)


def pipelined_load_latency(
    hw: HardwareProfile,
    demand: ActionDemand,
    tt: TensorTraffic | None,
    act: TileAction | None = None,
    queue_s: float = 0.0,
) -> float:
    """Latency of a tile load in a software-pipelined loop whose own warps issue it (``cp.async`` or plain
    loads several iterations ahead): the iteration that consumes it waits at the barrier for every line, so
    it takes its slowest line's latency, as :func:`waited_load_latency` says of a synchronous load. A line
    waits for DRAM at ``tt``'s :attr:`~tilesight.cache.base.TensorTraffic.ddr_wait` (its own miss or the
    wave's first request for it still in flight), each line independently; such a fetch meets a DRAM far
    from saturation in a tile loop whose lines mostly hit, so it takes the ``tma_latency`` probe's unloaded
    figure (``tma_ddr_latency_s``, a pipelined load step at 16 programs, one per SM), not the profile's
    loaded ``ddr_latency_s`` (Little's law on a streaming copy: its tiles in flight over the rate one block
    streams them at, so the figure holds their transfer too, which the load's duration charges again beside
    its latency); not the demand's mean latency either, which mixes that loaded figure in. The demand's own
    where the cache model gives no traffic or the profile has no unloaded figure. ``act``: the
    load, whose re-reads of its own steps place its DRAM waits (:func:`waited_tile_latency`). ``queue_s``:
    what DRAM queueing adds to that unloaded figure where the launch streams its tiles from DRAM
    (:func:`ddr_queue_s`, which :mod:`.evaluate` solves for)."""
    if tt is None or demand.bytes <= 0 or not hw.tma_ddr_latency_s:
        return demand.latency_s
    served = 1.0 - tt.ddr_wait
    slow = hw.tma_ddr_latency_s + queue_s
    return waited_tile_latency(hw, served, demand.bytes, hw.l2_latency_s, slow, act)


def pipelined_refill_latency(hw: HardwareProfile, tt: TensorTraffic | None) -> float:
    """What one iteration's copies of a pipelined load wait for on average, for the loop's refill bound
    (:func:`tilesight.model.tile.refill_span_s`): ``l2_latency_s`` for the share of its bytes the caches
    serve, the unloaded DRAM latency (``tma_ddr_latency_s``) for the share DRAM serves (one less the cache
    model's hit rates). A mean, not the slowest line (:func:`pipelined_load_latency`, a lone block's wait): a
    tile's misses come together, its lines fetched by the first block to read the tile, so a step waits for
    DRAM in about the miss share of the steps and for L2 in the rest (the pooled two-stage GEMMs,
    docs/tilelang.md stop 64; the slowest line there takes them 1.6x slow). Unloaded: where the launch loads
    DRAM towards saturation its DRAM pipeline's busy time is the bound, and the queueing that saturation
    builds (:func:`ddr_queue_s`) on every block's refill as well would count it twice (a paged decode
    streaming K/V at 4.0 TB/s, 1.28x slow with it). 0 without traffic or the profile's unloaded figure."""
    if tt is None or not hw.tma_ddr_latency_s:
        return 0.0
    return (1.0 - tt.ddr_share) * hw.l2_latency_s + tt.ddr_share * hw.tma_ddr_latency_s


def producer_load_demand(
    hw: HardwareProfile,
    demand: ActionDemand,
    tt: TensorTraffic | None,
    act: TileAction | None = None,
    queue_s: float = 0.0,
) -> ActionDemand:
    """A load a producer warpgroup issues (TMA) for a block alone on its SM (a warp-specialised loop,
    :attr:`~tilesight.plan.Loop.producer_loads`), where the profile has the ``tma_latency`` probe's figures.

    The consumers wait on the stage's barrier until every line of the tile has arrived, so, as for
    :func:`waited_load_latency`, the load takes its slowest line's latency: ``tma_ddr_latency_s`` unless
    every one of its ``bytes / l2_line_bytes`` lines is served without waiting for DRAM,
    ``tma_l2_latency_s`` then. A line waits for DRAM at ``tt``'s
    :attr:`~tilesight.cache.base.TensorTraffic.ddr_wait` (its own miss, or the fetch of the wave's first
    request for it, which the blocks asking for the same tile in step all wait for), each line independently
    as the cache model's hit probabilities are per line. Its transfer runs at the SM's L2 port rate
    (``l2_bw_per_sm_bytes_per_s``): a lone block's loads are bursts between its waits, not a steady share of
    L2. The demand unchanged otherwise. ``act``: the load, whose re-reads of its own steps place its DRAM
    waits (:func:`waited_tile_latency`)."""
    if not hw.tma_ddr_latency_s or not hw.tma_l2_latency_s or tt is None or demand.bytes <= 0:
        return demand
    served = 1.0 - tt.ddr_wait
    slow = hw.tma_ddr_latency_s + queue_s  # DRAM queueing, as in pipelined_load_latency
    latency = waited_tile_latency(hw, served, demand.bytes, hw.tma_l2_latency_s, slow, act)
    return demand._replace(latency_s=latency, burst_bytes_per_s=hw.l2_bw_per_sm_bytes_per_s)


def lone_load_burst(
    act: TileAction,
    loops: tuple[Loop, ...],
    plan: TilePlan,
    hw: HardwareProfile,
    resident: int,
    ddr_share: float = 1.0,
) -> float:
    """The SM rate at which a load of a block alone on its SM transfers, or 0 where the load holds its DRAM
    share. ``loops``: the loops enclosing ``act``, outermost first.

    * A load of a software-pipelined loop with dots, issued by the block's own threads
      (:data:`PIPELINED_LOADS_STREAM_ALONE`): the harmonic mix of the SM's L2 port rate for the share of its
      bytes the caches serve and the profile's ``ddr_stream_per_sm_bytes_per_s`` for the ``ddr_share`` DRAM
      serves (one less the cache model's hit rates: a line that waits for another SM's fetch still arrives
      from L2); a TMA (descriptor) copy, which lands in shared memory without the threads, all at the port
      rate.
    * Any other load (see :data:`LOADS_LEAVE_AT_L2_PORT_ALONE`): the port rate, but 0 for a load a pipelined
      loop or a producer warpgroup issues ahead, a tile program with dots, or a persistent one.

    0 at more than one resident block and for a load that does not come through the L2 (from shared memory
    or registers)."""
    if act.kind is ActionKind.LOAD and act.tensor is not None and resident == 1:
        streamed = _streams_alone(act, loops, plan, hw)
        if streamed:
            if act.dst is MemLevel.SMEM:  # a TMA copy
                return hw.l2_bw_per_sm_bytes_per_s
            miss = min(max(ddr_share, 0.0), 1.0)
            return 1.0 / (
                (1.0 - miss) / hw.l2_bw_per_sm_bytes_per_s + miss / hw.ddr_stream_per_sm_bytes_per_s
            )
    if (
        not LOADS_LEAVE_AT_L2_PORT_ALONE
        or act.kind is not ActionKind.LOAD
        or act.tensor is None
        or not _loads_leave_at_port(plan, plan.tensor(act.tensor))
        or resident != 1
        or (loops and (loops[-1].stages > 1 or loops[-1].producer_loads))
    ):
        return 0.0
    return hw.l2_bw_per_sm_bytes_per_s


def _streams_alone(act: TileAction, loops: tuple[Loop, ...], plan: TilePlan, hw: HardwareProfile) -> bool:
    """Whether :data:`PIPELINED_LOADS_STREAM_ALONE` covers ``act`` (a load through the L2 in a pipelined loop
    of a tile program with dots, its own threads' copies) and the profile gives the stream rate."""
    return (
        PIPELINED_LOADS_STREAM_ALONE
        and bool(hw.ddr_stream_per_sm_bytes_per_s)
        and plan.has_dots
        and bool(loops)
        and loops[-1].stages > 1
        and not loops[-1].producer_loads
        and plan.tensor(act.tensor).level in _GLOBAL_LEVELS
    )


def _leaves_at_port(plan: TilePlan, tensor: TensorAccess) -> bool:
    """What both port rules (:data:`STORES_LEAVE_AT_L2_PORT`, :data:`LOADS_LEAVE_AT_L2_PORT_ALONE`) ask of a
    transfer: a tensor that comes through the L2, in a tile program without dots that is not persistent."""
    return tensor.level in _GLOBAL_LEVELS and not plan.grid.persistent and not plan.has_dots


def flat_tile(plan: TilePlan) -> bool:
    """Whether ``plan``'s tile has no loop inside (a row), not even the work a persistent program does once
    before or after its tiles (a loop node of its own)."""
    return not any(isinstance(n, Loop) for n in plan.body)


def row_program(plan: TilePlan) -> bool:
    """Whether ``plan`` is a persistent program of rows that does not load its next row while it computes
    this one (``TileGrid.tiles_in_flight`` 1) and whose row is one :func:`flat_tile`: the rows
    :func:`~tilesight.model.evaluate.unpipelined_row_latency_s` times, their loads waiting the idle DRAM
    round trip (the ``row_ring`` probe's softmax rows)."""
    return plan.grid.persistent and plan.grid.tiles_in_flight == 1 and flat_tile(plan)


def _loads_leave_at_port(plan: TilePlan, tensor: TensorAccess) -> bool:
    """What :data:`LOADS_LEAVE_AT_L2_PORT_ALONE` asks of a load: a tensor that comes through the L2, in a tile
    program without dots; in a persistent one, only where it waits for each tile's loads (one tile in flight)
    and is not a :func:`row_program` (whose rows' loads the row rule times instead). Such a persistent program
    alone on its SM is the block the rule describes: Liger-Kernel's LayerNorm and PolyNorm backward kernels
    (132 programs walking their rows one at a time, the work before and after the rows making the tile more
    than one flat row) were predicted 18-25% slow with the DRAM share (validations 31-34, eight launches:
    20.8 -> 3.3%), the survey's RMSNorm backward +25 -> +3% and the robustness set's with an atomic dW +24 ->
    -8% (H100); the flat row programs (validation 27's 132-program softmax) keep the row rule, unmoved."""
    if plan.has_dots or tensor.level not in _GLOBAL_LEVELS:
        return False
    return not plan.grid.persistent or (plan.grid.tiles_in_flight == 1 and not flat_tile(plan))


def _memory_latency(hw: HardwareProfile, l15_hit: float, l2_hit: float) -> float:
    miss = max(0.0, 1.0 - l15_hit - l2_hit)
    return (1.0 - miss) * hw.l2_latency_s + miss * hw.ddr_latency_s


def action_demand(
    action: TileAction,
    plan: TilePlan,
    hw: HardwareProfile,
    traffic: CacheTraffic,
    net_time_s: Mapping[str, float] | None = None,
    *,
    tensors: Mapping[str, TensorAccess] | None = None,
    rates: tuple[float, ...] | None = None,
    resident: int = 1,
    waited: bool = False,
    sfu_holds_tc: bool = True,
) -> ActionDemand:
    """The demand of one occurrence of ``action`` (see the module docstring for each kind's rule).

    ``tensors`` (name -> access) and ``rates`` (:func:`full_share_rates`) may be passed in precomputed when
    evaluating many actions of one plan. ``resident``: blocks per SM (the footprint of spilled frames).
    ``waited``: a DOT whose warps wait for its result in the same loop iteration, or whose loop loads
    nothing (:func:`tilesight.model.tile.on_chip_loop`): it runs at :func:`waited_mma_rate`.
    ``sfu_holds_tc``: whether an SFU action also holds the tensor cores where the profile says
    ``sfu_tc_serialised`` (False for one that consumer warpgroups sharing a loop run side by side).
    """
    amounts = [0.0] * NPIPES
    kind = action.kind
    latency = 0.0
    floor = 0.0
    nbytes = 0.0
    same_word = 0.0  # an atomic store's share of the longest chain on one word (ActionDemand.same_word_s)
    lsu_bytes = 0.0  # what the warps' memory instructions move (masked-off lanes issue none)
    flops = 0.0
    l2_hit: float | None = None
    l15_hit = 0.0
    net_missing = False
    chunk_efficiency = 1.0  # DRAM efficiency of the access's contiguous runs (global memory actions)
    l2_efficiency = 1.0  # and L2's
    spill_s = moved = 0.0  # local-memory seconds and bytes of a spilling dot (added to SMEM)
    exchange_s = 0.0  # a cross-warp reduction's shuffles and shared-memory exchange (added to SMEM)
    carry_issue_s = 0.0  # a scan's carry steps on its warps' schedulers (added to CUDA)
    where = f"action[{action.name}]"
    if kind in (ActionKind.LOAD, ActionKind.STORE, ActionKind.REMOTE):
        assert action.tensor is not None  # TileAction validates it
        tensor = tensors[action.tensor] if tensors is not None else plan.tensor(action.tensor)
        nbytes = lsu_bytes = tensor.tile_bytes
        scratch = action.dst if kind is not ActionKind.STORE else action.src
        if scratch is MemLevel.SMEM:
            amounts[SMEM] = nbytes
        elif scratch is MemLevel.TMEM:
            if not hw.has_tmem:
                raise PlanError(
                    f"{where}.{'src' if kind is ActionKind.STORE else 'dst'}",
                    "tmem",
                    f"{hw.name} has no TMEM",
                )
            amounts[TMEM] = nbytes
        if kind is ActionKind.LOAD and action.smem_bytes:
            amounts[SMEM] += float(action.smem_bytes)  # the threads stage the loaded tile in shared memory
        if kind is ActionKind.REMOTE or tensor.level is MemLevel.REMOTE:
            given = (net_time_s or {}).get(action.name)
            if given is None:
                net_missing = True
            elif not given >= 0:
                raise PlanError(f"net_time_s[{action.name}]", given, "must be a time >= 0")
            amounts[NET] = float(given or 0.0)
        elif tensor.level in _GLOBAL_LEVELS:
            tt = traffic.of(action.name, tensor.name)
            if (tt is None or tt.requested_bytes <= 0) and plan.access_count(tensor.name) == 0:
                # no walked iteration reaches the tensor (its loops have no trips in the cache walk), so the
                # cache model has nothing to say of it: an access that runs after all goes to DRAM
                tt = TensorTraffic(tensor.name, 0, nbytes, 0.0, 0.0, nbytes, write=kind is ActionKind.STORE)
            if tt is None or tt.requested_bytes <= 0:
                raise PlanError(
                    f"{where}.tensor",
                    tensor.name,
                    f"the cache model {traffic.model!r} gave no traffic for it",
                )
            ddr_fraction = tt.ddr_bytes / tt.requested_bytes
            if kind is ActionKind.STORE and STORES_DRAIN_TO_DRAM:
                ddr_fraction = 1.0
            # the bytes one access moves: masked-off lanes move none, so a loop's partial last block (a row
            # of 2560 in 2048-wide chunks) brings the mean below the tile's (the cache model's mean)
            per_access = min(nbytes, tt.requested_bytes / tt.accesses) if tt.accesses > 0 else nbytes
            lsu_bytes = per_access
            if hw.has_l15:
                amounts[L15] = per_access
            run = contiguous_bytes(tensor)
            lookups = tt.l2_lookups
            # rows shorter than a line keep only part of the coalescer's merges (l2_chunks probe)
            lookups += tt.l2_merged * (1.0 - hw.l2_merge_share(run))
            amounts[L2] = per_access * (1.0 - tt.l15_hit) * lookups
            if kind is ActionKind.LOAD and l1_broadcast(action, tensor, plan, hw, resident):
                amounts[L2] = 0.0  # the SM's L1 serves it
            amounts[DDR] = per_access * ddr_fraction
            chunk_efficiency = hw.ddr_efficiency(store_run_bytes(tensor) if kind is ActionKind.STORE else run)
            l2_efficiency = hw.l2_efficiency(run)
            if kind is not ActionKind.STORE or not STORES_RETIRE_AT_ISSUE:
                latency = _memory_latency(hw, tt.l15_hit, tt.l2_hit)
            l2_hit, l15_hit = tt.l2_hit, tt.l15_hit
        elif tensor.level in _SCRATCH_LEVELS:
            if tensor.level is MemLevel.SMEM:
                amounts[SMEM] += nbytes
    elif kind is ActionKind.DOT:
        m, n, k = action.shape
        assert action.dtype is not None
        flops = action.flops
        amounts[TC] = flops
        if action.smem_bytes is not None:
            amounts[SMEM] = float(action.smem_bytes)
        elif action.src is MemLevel.SMEM:
            amounts[SMEM] = (m * k + k * n) * dtype_bytes(action.dtype)
        if plan.resources.spill_bytes_per_thread and plan.resources.spill_openers is None:
            # A tensor-core instruction needs its operands and accumulator in registers: around every dot the
            # issuing warps reload the whole spilled frame from local memory and store back what of it the
            # loop changes (all but its loop-invariant state, frame_pass), unless the plan names where the
            # frame is touched (spill_openers, below).
            spill_s, moved = frame_pass(plan, hw, resident)
    elif kind in (ActionKind.ELEMENTWISE, ActionKind.REDUCE, ActionKind.SFU):
        flops = action.flops
        if action.scan is not None and hw.scan_carry_latency_s:
            # a scan's carry chain (plan.ScanCarry): every thread loads and combines the chunk totals one
            # after another, at least a load's latency each, its warps issuing theirs in turn on a scheduler
            floor = action.scan.loads * hw.scan_carry_latency_s
            warps_per_scheduler = plan.resources.threads / hw.warp_size / max(hw.schedulers_per_sm, 1)
            carry_issue_s = action.scan.loads * hw.scan_carry_issue_s * warps_per_scheduler
        if kind is ActionKind.REDUCE and action.warps:
            latency = hw.reduction_latency(action.warps)  # partials meet in shared memory behind a barrier
            if action.outputs == 1:
                # and a row reduced to one value costs the SM's load/store path the warps' shuffles, the
                # exchange and the barriers (the reduce_throughput probe's rate with many blocks an SM); a
                # reduction to several values (a 2D tile's rows) shuffles several with each instruction,
                # which that probe does not measure, and is not charged
                exchange_s = hw.reduction_sm_s(action.warps)
                # which the latency measured at one block an SM already holds: the rest of it is the wait
                latency = max(latency - exchange_s, 0.0)
        if kind is ActionKind.SFU:
            amounts[SFU] = flops
        else:
            slots = flops + (hw.alu_op_cost - 1.0) * action.alu_ops if hw.alu_op_cost else flops
            if action.routine_ops and hw.cuda_routine_flops_per_s:
                # a math routine's instructions issue at their own measured rate (the alu_forms probe's logf)
                slots -= action.routine_ops * (1.0 - hw.cuda_flops_per_s / hw.cuda_routine_flops_per_s)
            amounts[CUDA] = slots * FLOP_PER_OP
        if action.smem_bytes is not None:
            amounts[SMEM] = float(action.smem_bytes)
        if action.chain is not None:
            floor = serial_chain_s(action.chain, hw)
        openers = plan.resources.spill_openers
        if plan.resources.spill_bytes_per_thread and (
            action.name in openers
            if openers is not None
            else not plan.has_dots and action.name in _pass_openers(plan)
        ):
            # the frame is reloaded and stored back around the actions the plan names (a fragment only they
            # use was spilled), or, with no dot to reload it around, at each pass of the program over its
            # tile (the tile program, or each iteration of a loop holding compute), charged to the pass's
            # first compute action
            spill_s, moved = frame_pass(plan, hw, resident)
    else:  # pragma: no cover - ActionKind is closed
        raise PlanError(f"{where}.kind", kind, "no resource rule for this kind")

    if rates is None:
        rates = full_share_rates(hw)
    busy = [0.0] * NPIPES
    for r in range(NPIPES):
        a = amounts[r]
        if a:
            if r == TC:
                rate = hw.tc_rate(action.dtype or "", action.variant) / hw.sm_count
                n, regs = action.mma_n, action.mma_a_registers  # A's source sets the narrow-N cap
                if kind is ActionKind.DOT and action.variant == "wgmma" and waited:
                    rate = waited_mma_rate(hw, action.dtype or "", n, regs) / hw.sm_count
                elif kind is ActionKind.DOT and action.variant == "wgmma" and n:
                    rate = min(rate, narrow_mma_rate(hw, action.dtype or "", n, regs) / hw.sm_count)
            else:
                rate = rates[r]
            busy[r] = a / rate
    if kind is ActionKind.SFU and hw.sfu_tc_serialised and plan.has_dots and sfu_holds_tc:
        busy[TC] += busy[SFU]  # the exponentials hold the tensor cores too (profile: sfu_tc_serialised)
    if kind is ActionKind.STORE and busy[DDR]:
        busy[DDR] *= ddr_write_slowdown(hw)
    busy[DDR] /= chunk_efficiency
    busy[L2] /= l2_efficiency
    if (
        kind is ActionKind.STORE
        and nbytes
        and hw.l2_atomic_elements_per_s
        and tensor.mode is AccessMode.ATOMIC
    ):
        # every element is a read-modify-write at the L2 (the atomics probe: about 4x a plain store's time);
        # a block issues at most its own rate, so few blocks per SM leave the L2's atomic units idle. That
        # rate is one of atomic instructions: a vector reduction adds its width of elements with each
        # (tilelang_atomics probe: AtomicAddx2 reaches 3.1-3.4e9 elements/s a block, twice Triton's
        # returning atomic, and the same 4.6e11 over the chip)
        per_sm = hw.l2_atomic_elements_per_s / hw.sm_count
        if hw.atomic_elements_per_s_per_block:
            width = 1.0
            if action.variant == VECTOR_REDUCTION and action.vector_bytes:
                width = max(1.0, action.vector_bytes / dtype_bytes(tensor.dtype))
            per_sm = min(per_sm, resident * width * hw.atomic_elements_per_s_per_block)
        busy[L2] = max(busy[L2], atomic_seconds(action, tensor, nbytes, per_sm, hw))
        same_word = same_word_seconds(action, tensor, nbytes, hw)
    if nbytes and kind in (ActionKind.LOAD, ActionKind.STORE) and hw.lsu_warp_instr_per_s_per_sm > 0:
        # a load's share served on chip (L1.5 or L2); stores issue at the probed copy's rate
        served = min(1.0, l15_hit + l2_hit) if kind is ActionKind.LOAD and l2_hit is not None else None
        row = not plan.has_dots and action.dst is MemLevel.REG
        busy[SMEM] = max(busy[SMEM], lsu_seconds(action, lsu_bytes, hw, served, row=row))
    lsu_rate = hw.lsu_warp_instr_per_s_per_sm
    if kind is ActionKind.DOT and action.vector_bytes and amounts[SMEM] and lsu_rate > 0:
        # operand fragments loaded into registers by the warps (ldmatrix): the issue slots bound it too
        busy[SMEM] = max(busy[SMEM], lsu_seconds(action, amounts[SMEM], hw))
    if spill_s:  # the spill's local-memory traffic shares the SM's load/store path with the operands
        busy[SMEM] += spill_s
        amounts[SMEM] += moved
    busy[SMEM] += exchange_s
    busy[CUDA] += carry_issue_s
    burst = 0.0
    if (
        STORES_LEAVE_AT_L2_PORT
        and kind is ActionKind.STORE
        and tensor is not None
        and _leaves_at_port(plan, tensor)
        and tensor.mode is not AccessMode.ATOMIC
        and hw.l2_bw_per_sm_bytes_per_s
    ):
        burst = hw.l2_bw_per_sm_bytes_per_s
    return ActionDemand(
        name=action.name,
        kind=kind,
        amounts=tuple(amounts),
        busy_s=tuple(busy),
        latency_s=latency,
        memory=kind in _MEMORY_KINDS,
        bytes=nbytes,
        flops=flops,
        l2_hit=l2_hit,
        net_missing=net_missing,
        floor_s=floor,
        burst_bytes_per_s=burst,
        merge_sectors=partial_write_sectors(action, lsu_bytes, hw),
        same_word_s=same_word,
    )
