"""Hardware profiles: GPU data loaded from ``hw_profiles/*.toml`` into a validated, frozen object.

Every numeric field carries its unit in its name and a source in the TOML file: a datasheet, a paper table,
or a calibration run (date and command). Code never hard-codes a GPU number; formulas read them from here.

File shape (one GPU per file)::

    name = "h200"
    display_name = "NVIDIA H200 SXM 141GB"
    vendor = "nvidia"
    arch = "sm_90"
    triton_backend = "cuda"
    triton_arch = 90

    [fields]
    sm_count = { value = 132, source = "NVIDIA H200 datasheet" }
    ...
    [tensor_core]                 # dense FLOP/s per operand dtype, per instruction family
    float16 = { value = 9.28e14, source = "..." }
    [tensor_core_legacy]          # warp-level mma where a newer family (wgmma/tcgen05) exists
    float16 = { value = ..., source = "..." }
    [tensor_core_spec]            # optional datasheet peaks; measured rates may not exceed them
    float16 = { value = 9.89e14, source = "..." }
    [ddr_chunk_efficiency]        # optional: DRAM efficiency by contiguous run (bytes -> fraction)
    64 = { value = 0.68, source = "..." }
    [l2_chunk_efficiency]         # optional: the same for L2 -> SM transfers
    32 = { value = 0.561, source = "..." }
    [l2_chunk_merge]              # optional: share of the coalescer's merges runs of this many bytes keep
    64 = { value = 0.24, source = "..." }
    [wgmma_n_efficiency]          # optional: share of the tensor cores' rate a warpgroup MMA of N columns
    16 = { value = 0.477, source = "..." }  # sustains, A read from shared memory
    [wgmma_n_efficiency_registers]  # optional: the same for A taken from registers
    16 = { value = 0.64, source = "..." }
    [cross_warp_reduction]        # optional: extra latency (s) of a reduction spanning this many warps
    8 = { value = 1.029e-07, source = "..." }
    [cross_warp_reduction_sm]     # optional: seconds of the SM's shuffle and shared-memory path a reduced
    8 = { value = 5.83e-08, source = "..." }  # value costs when its axis spans this many warps
    [calibration]                 # optional: date, command, gpu, versions of the run that wrote the
    date = "2026-11-29"           # fields whose source starts with "calibrated"
"""

from __future__ import annotations

import functools
import math
import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from importlib import resources
from pathlib import Path
from types import MappingProxyType
from typing import Any

from .dtypes import canonical_dtype
from .errors import ProfileError, UnknownProfileError

# Numeric fields every profile must give (value > 0 unless listed in _MAY_BE_ZERO).
_REQUIRED = (
    "sm_count",
    "sm_clock_hz",
    "warp_size",
    "max_threads_per_block",
    "max_threads_per_sm",
    "max_warps_per_sm",
    "max_blocks_per_sm",
    "regs_per_sm",
    "regs_per_thread_max",
    "reg_alloc_unit_regs",
    "smem_per_sm_bytes",
    "smem_per_block_max_bytes",
    "smem_reserved_per_block_bytes",
    "smem_alloc_unit_bytes",
    "l2_bytes",
    "l2_effective_bytes",
    "l2_associativity",
    "l2_line_bytes",
    "l2_sector_bytes",
    "ddr_bytes",
    "ddr_bw_spec_bytes_per_s",
    "ddr_bw_bytes_per_s",
    "l2_bw_bytes_per_s",
    "l2_bw_per_sm_bytes_per_s",
    "smem_bw_per_sm_bytes_per_s",
    "cuda_flops_per_s",
    "sfu_ops_per_s",
    "ddr_latency_s",
    "l2_latency_s",
    "launch_overhead_s",
)
# Optional tiers: absent or 0 means the GPU has no such tier.
_OPTIONAL = (
    "l15_bytes",
    "l15_effective_bytes",
    "l15_bw_bytes_per_s",
    "l15_sms_per_group",
    "tmem_per_sm_bytes",
    "tmem_bw_per_sm_bytes_per_s",
    "tma_supported",
    "lsu_warp_instr_per_s_per_sm",
    "lsu_l2_warp_instr_per_s_per_sm",
    "lsu_l2_row_warp_instr_per_s_per_sm",
    "lsu_wide_span_share",
    "lsu_async_elem_warp_instr_per_s_per_sm",
    "lsu_async_narrow_wavefronts",
    "block_dispatch_s",
    "l2_partitions",
    "sfu_tc_serialised",
    "schedulers_per_sm",
    # spin-lock handoffs (TilePlan.lock)
    "lock_handoff_s",
    "lock_handoff_per_resident_s",
    # datasheet peaks for rates whose measured value is a required field (0 = not given)
    "cuda_flops_spec_per_s",
    "sfu_ops_spec_per_s",
    # streaming read-only DRAM bandwidth; ddr_bw_bytes_per_s is the copy (read + write) figure
    "ddr_read_bw_bytes_per_s",
    # register-spill (local memory) traffic
    "l1_smem_per_sm_bytes",
    "local_bw_per_sm_bytes_per_s",
    "local_inflight_bytes_per_warp",
    "local_ddr_bw_bytes_per_s",
    "local_l1_latency_s",
    "l2_exposed_under_tc",
    # dependent chains of shared-to-shared element-wise loops (TileLang T.Parallel)
    "smem_chain_latency_s",
    "alu_latency_s",
    "cvt_latency_s",
    "smem_feed_step_s",
    "l2_atomic_elements_per_s",
    "atomic_elements_per_s_per_block",
    "l2_atomic_slices",
    "atomic_same_address_s",
    "atomic_same_address_int_s",
    "l2_partial_write_sectors_per_s",
    "sync_load_issue_per_element",
    "split_store_pacing_free",
    "split_store_pacing_relief",
    "cuda_ddr_norm_p",
    "cuda_routine_flops_per_s",
    "wgmma_chain_flops_per_s",
    "tma_ddr_latency_s",
    "tma_l2_latency_s",
    "ddr_idle_latency_s",
    "waited_step_latency_s",
    "warp_reduction_latency_s",
    "scan_carry_latency_s",
    "scan_carry_issue_s",
    "row_loop_step_s",
    "row_element_step_s",
    "alu_op_cost",
    "ddr_queue_latency_s",
    "ddr_queue_bw_bytes_per_s",
    "ddr_stream_per_sm_bytes_per_s",
)
# A measured rate may exceed its datasheet peak by this factor at most: boost clocks above the clock the
# datasheet quotes and timer granularity give a few percent; more than that is a copy-paste or unit error.
MEASURED_OVER_SPEC_TOLERANCE = 1.05
# (measured field, datasheet field) pairs checked against MEASURED_OVER_SPEC_TOLERANCE.
_MEASURED_VS_SPEC = (
    ("ddr_bw_bytes_per_s", "ddr_bw_spec_bytes_per_s"),
    ("ddr_read_bw_bytes_per_s", "ddr_bw_spec_bytes_per_s"),
    ("cuda_flops_per_s", "cuda_flops_spec_per_s"),
    ("sfu_ops_per_s", "sfu_ops_spec_per_s"),
)
_TRITON_BACKENDS = frozenset({"cuda", "hip"})
_MAY_BE_ZERO = frozenset({"smem_reserved_per_block_bytes", *_OPTIONAL})


@dataclass(frozen=True)
class HardwareProfile:
    """One GPU. Rates are whole-chip unless the name says ``per_sm``; a fused multiply-add counts 2 FLOP."""

    name: str
    display_name: str
    vendor: str
    arch: str
    triton_backend: str
    triton_arch: int | str
    # chip
    sm_count: int
    sm_clock_hz: float
    warp_size: int
    # occupancy limits
    max_threads_per_block: int
    max_threads_per_sm: int
    max_warps_per_sm: int
    max_blocks_per_sm: int
    regs_per_sm: int
    regs_per_thread_max: int
    reg_alloc_unit_regs: int
    smem_per_sm_bytes: int
    smem_per_block_max_bytes: int
    smem_reserved_per_block_bytes: int
    smem_alloc_unit_bytes: int
    # memory hierarchy
    l2_bytes: int
    l2_effective_bytes: int
    l2_associativity: int
    l2_line_bytes: int
    l2_sector_bytes: int
    ddr_bytes: int
    ddr_bw_spec_bytes_per_s: float
    ddr_bw_bytes_per_s: float
    l2_bw_bytes_per_s: float
    l2_bw_per_sm_bytes_per_s: float
    smem_bw_per_sm_bytes_per_s: float
    # compute
    cuda_flops_per_s: float
    sfu_ops_per_s: float
    tc_flops_per_s: MappingProxyType[str, float]
    tc_legacy_flops_per_s: MappingProxyType[str, float]
    # latencies
    ddr_latency_s: float
    l2_latency_s: float
    launch_overhead_s: float
    # optional tiers
    l15_bytes: int = 0
    l15_effective_bytes: int = 0
    l15_bw_bytes_per_s: float = 0.0
    l15_sms_per_group: int = 0
    tmem_per_sm_bytes: int = 0
    tmem_bw_per_sm_bytes_per_s: float = 0.0
    tma_supported: int = 0
    # warp-wide memory instructions (global loads/stores, shared-memory accesses) one SM issues per second;
    # 0 = not given (instruction issue then never bounds a memory action)
    lsu_warp_instr_per_s_per_sm: float = 0.0
    # the same for element-wide global loads whose lines L2 serves (a tile loop over an L2-resident operand);
    # 0 = not given (every load then issues at lsu_warp_instr_per_s_per_sm)
    lsu_l2_warp_instr_per_s_per_sm: float = 0.0
    # the same for element-wide loads into registers in a kernel without dots (a row kernel's loads, which no
    # shared-memory store or dot operand path follows) whose warp instructions span at most
    # LSU_FULL_RATE_SPAN_BYTES; 0 = not given (they then issue at lsu_l2_warp_instr_per_s_per_sm)
    lsu_l2_row_warp_instr_per_s_per_sm: float = 0.0
    # the share of that rate an element-wide instruction whose lanes span more keeps (a mask-split 16-byte
    # vector: 32 lanes 16 bytes apart, 512 bytes); 0 = not given (1)
    lsu_wide_span_share: float = 0.0
    # the same for element-wide asynchronous copies into shared memory (4-byte cp.async, as Triton emits for a
    # tile it stores transposed); 0 = not given (they then issue at the global-load rates above)
    lsu_async_elem_warp_instr_per_s_per_sm: float = 0.0
    # shared-memory data-stage wavefronts (128 B each, at smem_bw_per_sm_bytes_per_s) a K loop's 8-byte
    # asynchronous copy brings with it (cp.async.ca, through L1; a 16-byte one bypasses L1): its own write and
    # the loop's barrier and fence traffic in the stage, solved together over the stage's total; 0 = not given
    # (it then issues at the global-load rates above)
    lsu_async_narrow_wavefronts: float = 0.0
    # time one more block costs an SM when blocks are trivially short (dispatch, start, retire); 0 = not given
    block_dispatch_s: float = 0.0
    # L2 partitions joined by a fabric, each caching for the SMs attached to it (0 = not given: one)
    l2_partitions: int = 0
    # 1 where an SM's special-function units and tensor cores do not run at the same time (an attention loop
    # takes its dots' time plus its exponentials' time however many blocks share the SM); 0 = they overlap
    sfu_tc_serialised: int = 0
    # warp schedulers (SM sub-partitions) per SM: a warp issues from one of them; 0 = not given
    schedulers_per_sm: int = 0
    # a spin lock's pass from one holder to the next, beyond its section: lock_handoff_s plus
    # lock_handoff_per_resident_s per program resident on the GPU (they spin on their locks meanwhile);
    # 0 = not given: two L2 round trips (the acquire's compare-and-swap, the release on its way)
    lock_handoff_s: float = 0.0
    lock_handoff_per_resident_s: float = 0.0
    cuda_flops_spec_per_s: float = 0.0
    sfu_ops_spec_per_s: float = 0.0
    ddr_read_bw_bytes_per_s: float = 0.0
    # Register spills (local memory, calibrated by the local_memory probe; 0 = not given, spills then move at
    # the SM's L2 share and the profile's loaded latencies alone): the SM's unified L1 / shared-memory array
    # (what a block's shared memory leaves of it caches local data), the SM's local-memory rate when the
    # frames fit in L1, the bytes one warp keeps in flight on a spill reload, and the chip's rate for frames
    # that live in DRAM (loads and write-backs together)
    l1_smem_per_sm_bytes: int = 0
    local_bw_per_sm_bytes_per_s: float = 0.0
    local_inflight_bytes_per_warp: float = 0.0
    local_ddr_bw_bytes_per_s: float = 0.0
    # The latency a warp waits for one spill reload whose frame L1 holds (Loop.reload_waits; every other
    # reload waits l2_latency_s, frames beyond L2 too: resources.reload_latency_s); 0 = not given, such waits
    # cost nothing
    local_l1_latency_s: float = 0.0
    # share of a loop iteration's L2 time that still shows when its tensor cores are the busier pipeline
    # (the overlap probe: a dot chain that outlasts its loads takes its own time plus this share of theirs);
    # 0 = not given, the two overlap fully
    l2_exposed_under_tc: float = 0.0
    # A shared-to-shared element-wise loop whose loads the compiler cannot move above earlier stores (the
    # smem_transform probe): one vector iteration's dependent chain is the shared-memory round trip
    # (load to use, then the store) plus each dependent arithmetic op's and conversion's latency; the extra
    # lanes of a vector add their issue time. 0 = not given (such loops then cost their throughput alone)
    smem_chain_latency_s: float = 0.0
    alu_latency_s: float = 0.0
    cvt_latency_s: float = 0.0
    # ... and what a loop step costs on top when a tensor-core dot then reads the buffer such a loop wrote
    # (proxy fence, barrier, the dot's start: the smem_feed probe); 0 = not given
    smem_feed_step_s: float = 0.0
    # fp32 atomic adds the L2 completes per second over the chip (the atomics probe: whole tiles added by
    # many programs); 0 = not given (an atomic store then costs what a plain store does)
    l2_atomic_elements_per_s: float = 0.0
    # ... and what one block alone on its SM issues (its atomics in flight over their latency); 0 = not given
    atomic_elements_per_s_per_block: float = 0.0
    # How many L2 slices share a scattered atomic's transactions, each at 1/slices of the chip's rate: the
    # lines a small target spans land on a few of them by the address hash (the atomics_hot probe: random
    # adds into 1 to 64M bins); 0 = not given (scattered atomics then spread over the whole L2)
    l2_atomic_slices: float = 0.0
    # The time one address takes for each further atomic on it, float and integer adds (the same probe's
    # one-bin points: the L2 updates a word one atomic at a time); 0 = not given
    atomic_same_address_s: float = 0.0
    atomic_same_address_int_s: float = 0.0
    # 32-byte sectors a second over the chip that stores narrower than a 4-byte word, their lanes apart, write
    # part of (the narrow_strided probe: 2-byte stores 16 bytes apart, each sector merged at the L2 once per
    # instruction); 0 = not given (such stores then cost what contiguous element-wide ones do)
    l2_partial_write_sectors_per_s: float = 0.0
    # Instructions a warp issues per element a thread of a synchronous loop load (an operand Triton loads one
    # element an instruction and stages in shared memory: address, mask, load, store; the sync_operands
    # probe's ncu counts over its aligned twin's), which a block alone on its SM issues on the iteration's
    # chain; 0 = not given
    sync_load_issue_per_element: float = 0.0
    # Arithmetic between a split store's loads and the store paces the stores and takes part of the merges'
    # time off (the split_mix probe: flat_copy_paced's 0-64 fused multiply-adds an element before a split
    # store): the busiest SM's CUDA-core and SFU issue time beyond ``split_store_pacing_free`` of the merge
    # floor takes ``split_store_pacing_relief`` seconds off it per second; 0 = not given (no relief)
    split_store_pacing_free: float = 0.0
    split_store_pacing_relief: float = 0.0
    # A dot-free tile's CUDA-core (or SFU) and DRAM times do not both run flat out where they are close: a
    # stream of such tiles takes the p-norm of the two, ``(t_cuda^p + t_ddr^p)^(1/p)`` (the stream_fma
    # probe: 2^(1/p) times either where they are equal); 0 = not given (the larger of the two)
    cuda_ddr_norm_p: float = 0.0
    # FLOP/s (a lane's instruction as 2) at which a straight-line math routine's instructions issue
    # (libdevice's logf in the alu_forms probe), where ``cuda_flops_per_s`` is an FMA chain's of three
    # registers; 0 = not given (the routines at cuda_flops_per_s)
    cuda_routine_flops_per_s: float = 0.0
    # fp16 FLOP/s of a chain of dependent warpgroup MMAs of 64 or more columns on shared-memory operands (the
    # dot_narrow / dot_shapes probes): what [wgmma_n_efficiency] scales for narrow instructions; 0 = not given
    wgmma_chain_flops_per_s: float = 0.0
    # A warp-specialised pipeline's load step, a block alone on its SM (the tma_latency probe): from a
    # producer's TMA issue to its tiles' arrival, less their transfer at l2_bw_per_sm_bytes_per_s, for tiles
    # from DRAM and from L2; 0 = not given (such loads then take the generic access latency)
    tma_ddr_latency_s: float = 0.0
    tma_l2_latency_s: float = 0.0
    # One dependent load's DRAM round trip on an idle GPU (the calibration suite's pointer chase: one warp, a
    # random chain of lines over 1 GiB); ddr_latency_s is the loaded figure (Little's law on a streaming
    # copy, its transfer queued in it). 0 = not given (a lone row program then waits the loaded figure)
    ddr_idle_latency_s: float = 0.0
    # One step of a loop whose consumer warpgroups wait for their own warpgroup MMAs and read the results
    # (FlashAttention with a producer warpgroup): the time a step takes whatever its width, beyond its
    # pipelines' work (the fa_steps set's intercept in block_N); 0 = not given
    waited_step_latency_s: float = 0.0
    # DRAM queueing under load (the loaded_latency probe: tile streams from DRAM at 16-132 blocks, one an SM,
    # 2-4 stages): a pipelined load's DRAM latency grows by ddr_queue_latency_s x U / (1 - U), U the launch's
    # DRAM read bandwidth over ddr_queue_bw_bytes_per_s (the probe's least-squares fit of both); 0 = not given
    ddr_queue_latency_s: float = 0.0
    ddr_queue_bw_bytes_per_s: float = 0.0
    # The rate one block alone on its SM pulls its own asynchronous copies (cp.async, the threads' pointer
    # loads a pipelined loop issues ahead) from DRAM at, whatever the rest of the chip does (the sm_stream
    # probe: 8-32 programs, one an SM, each streaming its own panel); a lone block's pipelined loads move
    # their DRAM-served lines at this rate, their L2-served ones at l2_bw_per_sm_bytes_per_s; 0 = not given
    # (such loads then hold their share of the chip's DRAM, as with other blocks beside them)
    ddr_stream_per_sm_bytes_per_s: float = 0.0
    # A dependent reduction across one warp's 32 lanes (the reductions probe at one warp: log2(32) shuffle
    # steps, each with the op combining its result): what a warp-wide shuffle tree's chain takes, a step
    # being log2(warp_size)-th of it; 0 = not given (a shuffle step then costs nothing in a serial chain)
    warp_reduction_latency_s: float = 0.0
    # A prefix scan whose axis spans several warps (plan.ScanCarry: every thread loads the axis's chunk totals
    # from shared memory one after another, for each scan line and operand, combining each into its carry;
    # the scan_chain probe): a load's dependent latency, and the issue time a load of one warp holds its
    # scheduler for (the blocks' warps on a scheduler take theirs in turn); 0 = not given (a scan then costs
    # its element-wise work alone)
    scan_carry_latency_s: float = 0.0
    scan_carry_issue_s: float = 0.0
    # What a software-pipelined persistent row loop's iteration adds to its row's serial time beyond the row's
    # compute and its reductions' shuffle trees: the wait for the row's asynchronous copies, the barrier, the
    # next row's copy issue (the row_ring probe); 0 = not given
    row_loop_step_s: float = 0.0
    # ... and what each element a thread holds beyond a few adds to it (row_ring_wide); 0 = not given
    row_element_step_s: float = 0.0
    # Issue cost of a compare, select, minimum, maximum or integer op against a floating-point add, multiply
    # or fused multiply-add (TileAction.alu_ops); the CUDA C++ Programming Guide's throughput table gives
    # compute capability 9.0 128 FP32 FMA results per clock per SM and 64 compares / minimums / maximums;
    # 0 = not given (the same slot as an FMA)
    alu_op_cost: float = 0.0
    tc_spec_flops_per_s: MappingProxyType[str, float] = field(default_factory=lambda: MappingProxyType({}))
    # [tensor_core_own_loads]: dtypes whose [tensor_core] rate was measured on a GEMM whose computing warps
    # issue their own loads (a Triton GEMM), so the share of L2 time left exposed under the tensor cores
    # (l2_exposed_under_tc) is already in the rate; the others come from a warp-specialised library GEMM
    # (cuBLAS), whose producer warps hide the loads. Absent: none.
    tc_own_loads: frozenset[str] = frozenset()
    sources: MappingProxyType[str, str] = field(default_factory=lambda: MappingProxyType({}), compare=False)
    calibration: MappingProxyType[str, Any] = field(
        default_factory=lambda: MappingProxyType({}), compare=False
    )
    # DRAM read efficiency by contiguous chunk size in bytes (0..1]; empty: every access streams at full rate
    ddr_chunk_efficiency: MappingProxyType[int, float] = field(
        default_factory=lambda: MappingProxyType({}), compare=False
    )
    # the same for L2 -> SM transfers (async copies of short contiguous runs), from the l2_chunks probe
    l2_chunk_efficiency: MappingProxyType[int, float] = field(
        default_factory=lambda: MappingProxyType({}), compare=False
    )
    # share of the L2 request coalescer's merges that a tile whose contiguous rows are runs of this many bytes
    # keeps (the l2_chunks probe: lines four SMs read at once, against whole-line runs); empty: none below a
    # line
    l2_chunk_merge: MappingProxyType[int, float] = field(
        default_factory=lambda: MappingProxyType({}), compare=False
    )
    # a warpgroup MMA instruction's share of the tensor cores' rate by its N (the dot_narrow probe, whose
    # instructions read A from shared memory): narrow instructions carry a fixed cost, the 64 x 16 A rows
    # every instruction reads whatever its N; instructions that take A from registers
    # (TileAction.mma_a_registers) have the table below instead; empty: every N runs at the calibrated rate
    wgmma_n_efficiency: MappingProxyType[int, float] = field(
        default_factory=lambda: MappingProxyType({}), compare=False
    )
    # the same for instructions that take A from registers (the regs_a probe): they read B alone, a smaller
    # fixed cost; empty: such instructions run at the calibrated rate at every N
    wgmma_n_efficiency_registers: MappingProxyType[int, float] = field(
        default_factory=lambda: MappingProxyType({}), compare=False
    )
    # extra latency of a reduction whose axis spans this many warps (shared memory + barrier), seconds
    cross_warp_reduction: MappingProxyType[int, float] = field(
        default_factory=lambda: MappingProxyType({}), compare=False
    )
    # seconds of the SM's shuffle and shared-memory path (the load/store pipe) one reduced value costs when
    # its axis spans this many warps: the warps' shuffles, partials exchanged through shared memory and the
    # barriers, at the SM's rate with many blocks resident (the reduce_throughput probe); empty: not charged
    cross_warp_reduction_sm: MappingProxyType[int, float] = field(
        default_factory=lambda: MappingProxyType({}), compare=False
    )
    # [sm_placement]: the SM the block scheduler gives the i-th block of a wave (a permutation of the SMs),
    # and the L2 partition each SM is attached to; empty: blocks go to SMs 0, 1, ..., SMs split evenly
    sm_dispatch_order: tuple[int, ...] = ()
    sm_l2_partition: tuple[int, ...] = ()
    # the same for a wave of at most len(...) blocks, which the scheduler spreads one per TPC first
    sm_dispatch_order_sparse: tuple[int, ...] = ()
    # the ptxas release ("12.8") that builds Triton kernels on the machine the profile describes (its Triton's
    # own); empty: whatever the installed Triton runs. Registers and spills differ between releases.
    ptxas_release: str = ""

    def __post_init__(self) -> None:
        for f in fields(self):
            if f.name in _REQUIRED or f.name in _OPTIONAL:
                v = getattr(self, f.name)
                if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
                    raise ProfileError(f"profile {self.name!r}: field {f.name}={v!r} must be a finite number")
                if v < 0 or (v == 0 and f.name not in _MAY_BE_ZERO):
                    raise ProfileError(f"profile {self.name!r}: field {f.name}={v!r} must be > 0")
        if self.lsu_wide_span_share > 1:
            raise ProfileError(
                f"profile {self.name!r}: field lsu_wide_span_share={self.lsu_wide_span_share!r} is a share "
                "of a rate: at most 1"
            )
        if 0 < self.cuda_ddr_norm_p < 1:
            raise ProfileError(
                f"profile {self.name!r}: field cuda_ddr_norm_p={self.cuda_ddr_norm_p!r} is a norm's order: 0 "
                "(not given) or at least 1"
            )
        if not self.tc_flops_per_s:
            raise ProfileError(f"profile {self.name!r}: [tensor_core] needs at least one dtype rate")
        if bool(self.ddr_queue_latency_s) != bool(self.ddr_queue_bw_bytes_per_s):
            raise ProfileError(
                f"profile {self.name!r}: ddr_queue_latency_s={self.ddr_queue_latency_s!r} and "
                f"ddr_queue_bw_bytes_per_s={self.ddr_queue_bw_bytes_per_s!r} go together "
                "(both > 0, or both 0)"
            )
        if self.triton_backend not in _TRITON_BACKENDS:
            raise ProfileError(
                f"profile {self.name!r}: triton_backend={self.triton_backend!r} must be one of "
                f"{sorted(_TRITON_BACKENDS)}"
            )
        for table in (self.tc_flops_per_s, self.tc_legacy_flops_per_s, self.tc_spec_flops_per_s):
            for k, v in table.items():
                if not (isinstance(v, int | float) and v > 0 and math.isfinite(v)):
                    raise ProfileError(f"profile {self.name!r}: tensor-core rate {k}={v!r} must be > 0")
        pairs = [
            ("l2_effective_bytes", self.l2_effective_bytes, "l2_bytes", self.l2_bytes, 1),
            ("l15_effective_bytes", self.l15_effective_bytes, "l15_bytes", self.l15_bytes, 1),
            (
                "smem_per_block_max_bytes",
                self.smem_per_block_max_bytes,
                "smem_per_sm_bytes",
                self.smem_per_sm_bytes,
                1,
            ),
        ]
        for measured, spec in _MEASURED_VS_SPEC:
            pairs.append(
                (measured, getattr(self, measured), spec, getattr(self, spec), MEASURED_OVER_SPEC_TOLERANCE)
            )
        for table_name, table in (
            ("tensor_core", self.tc_flops_per_s),
            ("tensor_core_legacy", self.tc_legacy_flops_per_s),
        ):
            for k, v in table.items():
                spec_key = f"tensor_core_spec.{k}"
                pairs.append(
                    (
                        f"{table_name}.{k}",
                        v,
                        spec_key,
                        self.tc_spec_flops_per_s.get(k, 0.0),
                        MEASURED_OVER_SPEC_TOLERANCE,
                    )
                )
        for small, small_v, big, big_v, slack in pairs:
            # a bound of 0 means "not given" (optional spec fields), except for the capacity pairs above
            if small_v > big_v * slack and (big_v > 0 or slack == 1):
                raise ProfileError(
                    f"profile {self.name!r}: {small}={small_v:.6g} exceeds {big}={big_v:.6g} (x{slack})"
                )
        if self.sm_dispatch_order and sorted(self.sm_dispatch_order) != list(range(self.sm_count)):
            raise ProfileError(
                f"profile {self.name!r}: sm_placement.dispatch_order must list each of the {self.sm_count}"
                f" SMs once (got {len(self.sm_dispatch_order)} entries)"
            )
        sparse = self.sm_dispatch_order_sparse
        if len(set(sparse)) != len(sparse) or not all(0 <= v < self.sm_count for v in sparse):
            raise ProfileError(
                f"profile {self.name!r}: sm_placement.dispatch_order_sparse must list distinct SMs of"
                f" 0..{self.sm_count - 1}"
            )
        parts = max(self.l2_partitions, 1)
        part_map = self.sm_l2_partition
        if part_map and (len(part_map) != self.sm_count or not all(0 <= p < parts for p in part_map)):
            raise ProfileError(
                f"profile {self.name!r}: sm_placement.l2_partition must give each of the {self.sm_count} SMs"
                f" a partition in 0..{parts - 1}"
            )
        warps_x_size = self.max_warps_per_sm * self.warp_size
        if warps_x_size != self.max_threads_per_sm:
            raise ProfileError(
                f"profile {self.name!r}: max_warps_per_sm x warp_size = {warps_x_size}"
                f" != max_threads_per_sm = {self.max_threads_per_sm}"
            )

    # -- rates --------------------------------------------------------------------------------------------
    @property
    def has_l15(self) -> bool:
        return self.l15_bytes > 0 and self.l15_bw_bytes_per_s > 0

    @property
    def has_tmem(self) -> bool:
        return self.tmem_per_sm_bytes > 0

    def tc_rate(self, dtype: str, variant: str | None = None) -> float:
        """Dense tensor-core FLOP/s for ``dtype`` operands (whole chip).

        ``variant="mma"`` asks for the warp-level (legacy) instruction family on GPUs that have a newer one;
        it falls back to the main table where no legacy rate is listed. A dtype without tensor-core support
        raises ProfileError naming the dtype and the supported ones.
        """
        key = canonical_dtype(dtype)
        if variant == "mma" and key in self.tc_legacy_flops_per_s:
            return self.tc_legacy_flops_per_s[key]
        try:
            return self.tc_flops_per_s[key]
        except KeyError:
            raise ProfileError(
                f"{self.name} has no tensor-core rate for {key}; supported: {', '.join(self.tc_flops_per_s)}"
            ) from None

    def ddr_efficiency(self, chunk_bytes: float) -> float:
        """DRAM efficiency of accesses in contiguous chunks of ``chunk_bytes``.

        Linear in log2(chunk) between the ``[ddr_chunk_efficiency]`` points; 1 from the largest point up; the
        smallest point's value below it."""
        return _chunk_efficiency(self.ddr_chunk_efficiency, chunk_bytes)

    def mma_n_efficiency(self, n: int, a_registers: bool = False) -> float:
        """Share of the tensor cores' rate a warpgroup MMA of ``n`` columns sustains
        (``[wgmma_n_efficiency]``, read like :meth:`ddr_efficiency`: linear in log2(n) between the points, 1
        from the largest up, the smallest's value below it); 1 where the profile gives no table. With
        ``a_registers`` (the instruction takes A from registers) ``[wgmma_n_efficiency_registers]``, 1
        where the profile gives none."""
        table = self.wgmma_n_efficiency_registers if a_registers else self.wgmma_n_efficiency
        return _chunk_efficiency(table, n)

    def reduction_latency(self, warps: int) -> float:
        """Extra latency of a reduction across ``warps`` warps (``[cross_warp_reduction]``, linear in
        log2(warps) between its points and from 0 at one warp, the largest point's value above it); 0 for one
        warp or no table."""
        table = self.cross_warp_reduction
        if warps <= 1 or not table:
            return 0.0
        points = ((1, 0.0), *_sorted_points(table))
        if warps >= points[-1][0]:
            return points[-1][1]
        return _interp_log2(points, warps)

    def reduction_sm_s(self, warps: int) -> float:
        """Seconds of the SM's load/store path one value reduced across ``warps`` warps costs
        (``[cross_warp_reduction_sm]``, linear in log2(warps) between its points; above the largest in
        proportion to the warps, each warp doing its share of the shuffles and the exchange); 0 for one warp
        or no table."""
        table = self.cross_warp_reduction_sm
        if warps <= 1 or not table:
            return 0.0
        points = _sorted_points(table)
        if warps >= points[-1][0]:
            return points[-1][1] * warps / points[-1][0]
        if warps <= points[0][0]:
            return points[0][1] * warps / points[0][0]
        return _interp_log2(points, warps)

    def l2_efficiency(self, chunk_bytes: float) -> float:
        """L2 transfer efficiency of contiguous chunks of ``chunk_bytes`` (``[l2_chunk_efficiency]``, read
        like :meth:`ddr_efficiency`); 1 where the profile gives no table."""
        return _chunk_efficiency(self.l2_chunk_efficiency, chunk_bytes)

    def l2_merge_share(self, run_bytes: float) -> float:
        """Share of the L2 request coalescer's merges (the cache model's ``l2_merged``) that a tile whose
        contiguous rows are runs of ``run_bytes`` keeps: 1 from a whole L2 line up; below it the
        ``[l2_chunk_merge]`` table (read like :meth:`ddr_efficiency`), or 0 where the profile gives none."""
        if run_bytes >= self.l2_line_bytes:
            return 1.0
        if not self.l2_chunk_merge:
            return 0.0
        return _chunk_efficiency(self.l2_chunk_merge, run_bytes)

    def source(self, fieldname: str) -> str:
        return self.sources.get(fieldname, "")


# Sorted points of each profile table, by table identity (the tables are immutable; the cache holds them).
_SORTED_TABLES: dict[int, tuple[Mapping[int, float], tuple[tuple[int, float], ...]]] = {}


def _sorted_points(table: Mapping[int, float]) -> tuple[tuple[int, float], ...]:
    hit = _SORTED_TABLES.get(id(table))
    if hit is None or hit[0] is not table:
        hit = (table, tuple(sorted(table.items())))
        _SORTED_TABLES[id(table)] = hit
    return hit[1]


def _interp_log2(points: tuple[tuple[int, float], ...], x: float) -> float:
    """Linear in log2(x) between the two sorted ``points`` around ``x``; ``x`` lies within their range."""
    for (c0, e0), (c1, e1) in zip(points, points[1:], strict=False):
        if c0 <= x <= c1:
            return e0 + (math.log2(x) - math.log2(c0)) / (math.log2(c1) - math.log2(c0)) * (e1 - e0)
    return points[-1][1]


def _chunk_efficiency(table: Mapping[int, float], chunk_bytes: float) -> float:
    """Efficiency from a chunk-bytes -> efficiency table (see :meth:`HardwareProfile.ddr_efficiency`)."""
    if not table or chunk_bytes <= 0:
        return 1.0
    points = _sorted_points(table)
    if chunk_bytes >= points[-1][0]:
        return 1.0
    if chunk_bytes <= points[0][0]:
        return points[0][1]
    return _interp_log2(points, chunk_bytes)


def _profile_dir() -> Path:
    return Path(str(resources.files("tilesight.hw_profiles")))


@functools.cache
def profiles() -> tuple[str, ...]:
    """Names of the known GPU profiles (files in ``hw_profiles/``)."""
    return tuple(sorted(p.stem for p in _profile_dir().glob("*.toml")))


@functools.cache
def load_profile(name: str) -> HardwareProfile:
    """Load a profile by name (case-insensitive, e.g. ``"h200"``) or by path to a TOML file."""
    if not isinstance(name, str) or not name:
        raise UnknownProfileError(repr(name), list(profiles()))
    path = Path(name)
    if path.suffix == ".toml" and path.exists():
        return parse_profile(path.read_text(), origin=str(path))
    key = name.lower().replace("-", "_")
    candidate = _profile_dir() / f"{key}.toml"
    if not candidate.exists():
        raise UnknownProfileError(name, list(profiles()))
    return parse_profile(candidate.read_text(), origin=str(candidate))


def parse_profile(text: str, origin: str = "<string>") -> HardwareProfile:
    """Parse a profile's TOML text; every problem raises ProfileError naming the file and field."""
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ProfileError(f"{origin}: not valid TOML: {exc}") from None
    top = {}
    for key in ("name", "display_name", "vendor", "arch", "triton_backend", "triton_arch"):
        if key not in doc:
            raise ProfileError(f"{origin}: missing top-level key {key!r}")
        top[key] = doc[key]
    if "ptxas_release" in doc:
        release = doc["ptxas_release"]
        if not isinstance(release, str) or not re.fullmatch(r"\d+\.\d+", release):
            raise ProfileError(f'{origin}: ptxas_release={release!r} must be a release such as "12.8"')
        top["ptxas_release"] = release
    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    known = set(_REQUIRED) | set(_OPTIONAL)
    for key, entry in doc.get("fields", {}).items():
        if key not in known:
            raise ProfileError(f"{origin}: unknown field {key!r}")
        values[key], sources[key] = _entry(origin, key, entry)
    missing = [k for k in _REQUIRED if k not in values]
    if missing:
        raise ProfileError(f"{origin}: missing fields {missing}")
    tables = {}
    for table in ("tensor_core", "tensor_core_legacy", "tensor_core_spec"):
        rates = {}
        for dt, entry in doc.get(table, {}).items():
            value, src = _entry(origin, f"{table}.{dt}", entry)
            rates[canonical_dtype(dt)] = float(value)
            sources[f"{table}.{dt}"] = src
        tables[table] = MappingProxyType(rates)
    ints = {f.name for f in fields(HardwareProfile) if f.type in ("int", int)}
    for k in list(values):
        if k in ints:
            if float(values[k]) != int(values[k]):
                raise ProfileError(f"{origin}: field {k}={values[k]!r} must be an integer")
            values[k] = int(values[k])
        else:
            values[k] = float(values[k])
    fraction = "keys are chunk bytes, values in (0, 1]"
    chunks = _int_keyed_table(doc, "ddr_chunk_efficiency", origin, sources, _is_fraction, fraction)
    l2_chunks = _int_keyed_table(doc, "l2_chunk_efficiency", origin, sources, _is_fraction, fraction)
    l2_merge = _int_keyed_table(doc, "l2_chunk_merge", origin, sources, _is_fraction, fraction)
    wgmma_n = _int_keyed_table(
        doc, "wgmma_n_efficiency", origin, sources, _is_fraction, "keys are N, values in (0, 1]"
    )
    wgmma_n_regs = _int_keyed_table(
        doc, "wgmma_n_efficiency_registers", origin, sources, _is_fraction, "keys are N, values in (0, 1]"
    )
    warp_rule = "keys are warps >= 2, values seconds"
    reductions = _int_keyed_table(doc, "cross_warp_reduction", origin, sources, _is_warp_latency, warp_rule)
    reductions_sm = _int_keyed_table(
        doc, "cross_warp_reduction_sm", origin, sources, _is_warp_latency, warp_rule
    )
    own_loads = set()
    for dt, entry in doc.get("tensor_core_own_loads", {}).items():
        value, sources[f"tensor_core_own_loads.{dt}"] = _entry(origin, f"tensor_core_own_loads.{dt}", entry)
        if value not in (0, 1):
            raise ProfileError(f"{origin}: tensor_core_own_loads.{dt}={value!r} must be 0 or 1")
        if value:
            own_loads.add(canonical_dtype(dt))
    placement = {}
    for key, entry in doc.get("sm_placement", {}).items():
        if key not in ("dispatch_order", "dispatch_order_sparse", "l2_partition"):
            raise ProfileError(f"{origin}: unknown field sm_placement.{key}")
        value, sources[f"sm_placement.{key}"] = _entry(origin, f"sm_placement.{key}", entry, number=False)
        if not isinstance(value, list) or any(isinstance(v, bool) or not isinstance(v, int) for v in value):
            raise ProfileError(f"{origin}: sm_placement.{key} must be a list of integers")
        placement[key] = tuple(value)
    return HardwareProfile(
        **top,
        **values,
        tc_flops_per_s=tables["tensor_core"],
        tc_legacy_flops_per_s=tables["tensor_core_legacy"],
        ddr_chunk_efficiency=MappingProxyType(chunks),
        l2_chunk_efficiency=MappingProxyType(l2_chunks),
        l2_chunk_merge=MappingProxyType(l2_merge),
        cross_warp_reduction=MappingProxyType(reductions),
        cross_warp_reduction_sm=MappingProxyType(reductions_sm),
        wgmma_n_efficiency=MappingProxyType(wgmma_n),
        wgmma_n_efficiency_registers=MappingProxyType(wgmma_n_regs),
        sm_dispatch_order=placement.get("dispatch_order", ()),
        sm_l2_partition=placement.get("l2_partition", ()),
        sm_dispatch_order_sparse=placement.get("dispatch_order_sparse", ()),
        tc_spec_flops_per_s=tables["tensor_core_spec"],
        tc_own_loads=frozenset(own_loads),
        sources=MappingProxyType(sources),
        calibration=MappingProxyType(doc.get("calibration", {})),
    )


def _is_fraction(key: int, value: float) -> bool:
    return 0 < value <= 1


def _is_warp_latency(key: int, value: float) -> bool:
    return key >= 2 and 0 <= value < 1e-3


def _int_keyed_table(
    doc: dict, name: str, origin: str, sources: dict[str, str], valid: Callable[[int, float], bool], rule: str
) -> dict[int, float]:
    """The optional ``[name]`` table of integer keys (its values checked by ``valid``); sources recorded."""
    out: dict[int, float] = {}
    for key, entry in doc.get(name, {}).items():
        value, src = _entry(origin, f"{name}.{key}", entry)
        if not str(key).isdigit() or not valid(int(key), float(value)):
            raise ProfileError(f"{origin}: {name}.{key}={value!r}: {rule}")
        out[int(key)] = float(value)
        sources[f"{name}.{key}"] = src
    return out


def _entry(origin: str, key: str, entry: Any, *, number: bool = True) -> tuple[Any, str]:
    if not isinstance(entry, dict) or "value" not in entry or "source" not in entry:
        raise ProfileError(f'{origin}: field {key} must be {{ value = ..., source = "..." }}, got {entry!r}')
    if not str(entry["source"]).strip():
        raise ProfileError(f"{origin}: field {key} has an empty source")
    value = entry["value"]
    if number and (isinstance(value, bool) or not isinstance(value, int | float)):
        raise ProfileError(f"{origin}: field {key}={value!r} must be a number")
    return value, str(entry["source"])
