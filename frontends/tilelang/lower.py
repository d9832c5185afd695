"""Turn the walked TileLang kernel (:mod:`.walker`) into a :class:`~tilesight.plan.TilePlan`.

* grid: one dimension per ``blockIdx`` (named after the kernel's block variables, x first); CUDA launches x
  fastest, so the order is column-major, or the explicit rasterisation sequence under ``T.use_swizzle``;
* tensors: one per kernel argument that a tile operator moves, its tile from the copy region, reuse along
  the grid dimensions the region's start does not depend on;
* body: copies from / to global memory become LOAD / STORE, ``T.gemm`` a DOT (wgmma or mma as TileLang would
  pick), ``T.reduce_*`` a REDUCE, ``T.Parallel`` nests ELEMENTWISE and SFU work, on-chip copies and fills
  ELEMENTWISE work with their shared-memory bytes; dependencies follow buffer reads and writes;
* resources: threads, shared memory (multi-buffered ``num_stages`` times where a pipelined loop refills a
  buffer) and registers from the fragments.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from tilesight.dtypes import canonical_dtype, dtype_bytes
from tilesight.errors import FrontendError
from tilesight.hardware import HardwareProfile
from tilesight.model.banks import WAVEFRONT_BYTES, wavefronts
from tilesight.model.resources import side_by_side_runs
from tilesight.plan import (
    SYNC_LOAD,
    VECTOR_REDUCTION,
    AccessMode,
    ActionKind,
    BlockResources,
    GroupSplit,
    LaunchOrder,
    Loop,
    MemLevel,
    Node,
    SerialChain,
    TensorAccess,
    TileAction,
    TileGrid,
    TilePlan,
    walked_trips,
)

from ._tvm import tirx
from .expr import evaluate, free_vars
from .gemm_inst import (
    REGISTER_BYTES,
    WARPS_PER_WARPGROUP,
    WGMMA_MAX_N,
    GemmChoice,
    operand_smem_reads,
    select_variant,
    warp_partition,
    wgmma_accumulator_registers,
)
from .swizzle import rasterization_sequence
from .walker import (
    GLOBAL,
    REGISTER,
    SHARED,
    VECTOR_BYTES,
    KernelIR,
    LoopNode,
    OpNode,
    Region,
    block_vars_of,
    cvt_narrow,
    cvt_packed,
    inline_binds,
)

# Elements one AtomicAddx* of T.atomic_add adds, by where the fragment's layout came from (TileLang 0.1.15's
# lowered CUDA for sm_90a): a gemm accumulator's, or any other (a T.Parallel-written fragment).
ATOMIC_ACCUMULATOR_WIDTH = 2
ATOMIC_FRAGMENT_WIDTH = 4

# TileLang aligns each dynamic shared-memory buffer so TMA and 128-byte-swizzled layouts can address it;
# the 128B swizzle atom needs 1024-byte alignment on Hopper (CUDA programming guide, TMA swizzle modes).
SMEM_BUFFER_ALIGN_BYTES = 1024
# A T.Parallel nest whose shared-memory wavefronts cost this many times its bytes gets a note naming it (a
# 32-way conflicted column read of 2-byte elements is 64x; a conflict-free 2-byte access, half a wavefront
# used, 2x: not a conflict worth naming).
BANK_CONFLICT_NOTE_RATIO = 4.0

# Registers a thread needs beyond its fragments (addresses, loop counters, indices, predicates): a
# modelling constant, not fitted to any kernel; it keeps fragment-light kernels from looking register-free.
REGISTER_OVERHEAD_PER_THREAD = 32
# ... except in a kernel whose serial loop nvcc unrolls whole (SERIAL_COPY_UNROLL): its addresses are one base
# and constant offsets, and ptxas gives fragments + the unrolled loads + 3 to 15 registers (nvcc_unroll's
# kernels: 77 for a 16-chunk RMSNorm holding 64 registers of loads and 5 of fragments); this many
UNROLLED_REGISTER_OVERHEAD = 8
_COMPUTE_KINDS = frozenset({ActionKind.ELEMENTWISE, ActionKind.REDUCE, ActionKind.SFU})
# On a GPU with TMA, TileLang warp-specialises a kernel whose loop loads global tiles into shared memory: it
# adds one producer warpgroup (4 warps x 32 threads) that issues the TMA copies (seen in TileLang 0.1.15's
# lowered CUDA: __launch_bounds__(threads + 128) for every pipelined reference kernel).
WS_PRODUCER_THREADS = 128
# ... and 1 KiB of static shared memory for its mbarriers (ptxas -v on the lowered CUDA: "1024 bytes smem").
WS_BARRIER_SMEM_BYTES = 1024
# ptxas then gives every thread the registers launch bounds (threads, 1) allow, rounded down to whole
# allocation granules of 8 per thread, and at most the 240 that TileLang's consumer warpgroups claim with
# setmaxnreg (ptxas -v on TileLang 0.1.15's lowered GEMM / FlashAttention / MLA / dequant kernels for sm_90a:
# 240 registers at 256 threads, 168 at 384).
WS_CONSUMER_MAX_REGS = 240
# Registers a thread's loop needs beside the fragments it carries from one iteration to the next (addresses,
# the loop counter, wgmma descriptors, barrier phases): where the carried fragments and these exceed the
# registers a thread may have, ptxas spills the excess to a local-memory frame that the loop reloads and
# stores. A compiler figure, from ptxas -v on every measured TileLang configuration
# (benchmarks/tilelang_sweep/ptxas_registers.py, benchmarks/data/ptxas_tilelang.json, nvcc 13.0 for
# sm_90a): the three that spill are fp8 GEMMs promoting two 128 x 128-per-warpgroup fp32 accumulators
# (256 carried registers a consumer thread against setmaxnreg's 240) with 144, 144 and 160-byte frames (36 /
# 36 / 40 registers beyond 240 - 256 = -16); no other measured configuration carries more than its cap - 20.
LOOP_STATE_REGISTERS = 20
REG_PER_THREAD_GRANULE = 8
# A T.reduce whose reduced axis is spread over several warps (a T.gemm accumulator split along that axis)
# combines the warps' partials through a shared-memory workspace of one element per thread, one workspace
# per reduce (TileLang 0.1.15's AllReduce lowering: ``reducing_threads > 32``; seen as 1 KiB ``workspace``
# buffers for 256 threads in the lowered MLA decode kernel). Each partial is written once and read back.
REDUCE_WORKSPACE_PASSES = 2
# Bytes a warp shuffle moves per lane through the shared-memory crossbar (a 32-bit word; SHFL issues on the
# same path as shared-memory accesses)
SHUFFLE_WORD_BYTES = 4
# Segments of a T.cumsum line nvcc interleaves: the SASS of TileLang 0.1.15's tl::CumSum2D compiled on CPU
# (`nvcc -arch=sm_90a -O3`, the survey's cumsum_shared_reverse) loads four segments, runs their four
# shuffle trees interleaved, then passes the carry through the four in turn (SHFL.IDX, add, STS)
SCAN_SEGMENT_UNROLL = 4
# A scalar T.atomic_add into shared memory is, per thread, a load of the element and a compare-and-swap of
# it (cuobjdump -sass of TileLang 0.1.15's lowered GEMV for sm_90a: ``LDS`` then an ``ATOMS.CAST.SPIN`` loop
# for a float add): two shared-memory accesses of the element.
SHARED_ATOMIC_ACCESSES = 2
# A T.serial loop of scalar statements only, reading single global elements into registers (a split-KV
# combine's max / sum over its slices' log-sum-exps: ``top = max(top, lse[b, h, s])``), is a plain C loop
# with a constant trip count and a tiny body: nvcc unrolls it and issues every iteration's load before the
# first use (cuobjdump -sass of TileLang 0.1.15's lowered combine kernel for sm_90a: 8 and 64 LDG back to
# back for 8 and 64 slices). Its iterations' loads are in flight together, up to this many.
SCALAR_LOOP_UNROLL = 64
# A T.serial loop whose global loads are per-thread vectors indexed by the thread index (TileLang's GEMV
# examples: ``for k in T.vectorized(8): B_l[k] = B[bn * BN + tn, bk * BK + tk * 8 + k]``, then a register
# accumulation ``C_acc[0] += A_l[k] * B_l[k]``) carries only registers from one iteration to the next: no
# load's address depends on an earlier iteration's result, and nothing goes through shared memory or a
# barrier. nvcc unrolls such a loop of constant trip count by 4 and issues the 4 iterations' loads before the
# first use (cuobjdump -sass of TileLang 0.1.15's lowered gemv_alloc_local_vectorized for sm_90a: the bk loop
# of 256 trips counts by 4 to 0x100, 8 ``LDG.E.128.CONSTANT`` (4 of A, 4 of B, 0x80 bytes apart) back to back
# before the first ``FFMA``; the loads of the next 4 are issued after them, not software-pipelined). Its
# iterations' loads are in flight this many at a time.
THREAD_VECTOR_LOOP_UNROLL = 4
# A T.serial loop that copies global tiles into shared memory or fragments (plain loads through registers,
# outside a pipelined loop) and does light element-wise work on them, no special functions, reductions or
# T.gemm (a row-chunked RMSNorm's sum of squares; its second pass scaling and storing each chunk; a split-K
# reduction summing its partial tiles), is unrolled by nvcc, and the unrolled iterations' loads are issued
# before the first use: the inputs are ``const __restrict__``, so the loads move across the loop's barriers.
# nvcc 13.0 -O3 on TileLang 0.1.15's lowering for sm_90a (benchmarks/tilelang_sweep/nvcc_unroll.py, data in
# benchmarks/data/nvcc_unroll_tilelang.json): a one-FMA body unrolls whole at 4-64 trips (8 to 64
# ``LDG.E.128.CONSTANT`` back to back) and keeps 48 loads in flight at 128; a four-FMA body 16 at 16-64
# trips; a body with an ``exp`` 2, one with a block reduction 6 (those two are not given this rule). So at
# least this many iterations' loads are in flight, bounded by the registers that hold them (each
# iteration's bytes per thread: 72 registers for 16 chunks of 16 bytes, 255 for 64).
SERIAL_COPY_UNROLL = 16


def _level(scope: str) -> MemLevel:
    return MemLevel.SMEM if scope == SHARED else MemLevel.REG


def _bytes(region: Region) -> float:
    return region.elements * dtype_bytes(canonical_dtype(region.dtype))


@dataclass
class _Tensor:
    tile: tuple[int, ...]
    used: frozenset[str]
    read: bool = False
    write: bool = False
    atomic: bool = False  # written by atomic adds (T.atomic_add): read-modify-write in the L2
    buffer: str = ""  # the kernel argument it is a region of
    shift: tuple[int, ...] = ()  # Region.shift: where it starts beside the buffer's first region


def _flat_shift(shift: tuple[int, ...], shape: tuple[int, ...]) -> int:
    """A region's :attr:`Region.shift` as elements from its buffer's lowest region (row-major ``shape``)."""
    return sum(o * math.prod(shape[d + 1 :]) for d, o in enumerate(shift))


def _tensor_name(region: Region, shape: tuple[int, ...]) -> str:
    """The tensor access a region is: its buffer, or ``X+64`` for a region of ``X`` that a T.Parallel nest
    moves beside another (its offset in elements from the lowest, as the Triton frontend names ``x + 64``)."""
    if not any(region.shift):
        return region.buffer
    return f"{region.buffer}+{_flat_shift(region.shift, shape)}"


class _Lowering:
    def __init__(self, ir: KernelIR, hw: HardwareProfile) -> None:
        self.ir = ir
        self.hw = hw
        self.tensors: dict[str, _Tensor] = {}
        self.names: set[str] = set()
        self.notes: list[str] = []
        self.multibuffered: dict[str, int] = {}
        self.multibuffered_loads = False  # a loop refills shared memory from global memory
        self.gemm_parts: dict[str, GemmChoice] = {}  # accumulator fragment -> how its gemm split the warps
        self.workspaces: dict[str, int] = {}  # reduce location -> its shared-memory workspace bytes
        # shared operands of T.gemm: TileLang gives them swizzled layouts, so a T.Parallel nest's row-major
        # bank count (OpNode.smem_wavefront_bytes) does not hold for them
        self.swizzled = _gemm_operands(ir.body)
        self.loop_vars: list[str] = []  # serial loops enclosing the node being lowered, outermost first
        self.loop_counts: list[int] = []  # their (rounded mean) trip counts, alongside
        self.hoisted_registers = 0  # registers holding an unrolled serial loop's loads (SERIAL_COPY_UNROLL)
        self.action_buffers: dict[str, set[str]] = {}  # action name -> the buffers its tile operator touches

    def _name(self, base: str) -> str:
        name, i = base, 1
        while name in self.names:
            i += 1
            name = f"{base}#{i}"
        self.names.add(name)
        return name

    def _access(self, region: Region, *, write: bool, where: str) -> str:
        """The tensor access a global region is, by name. A buffer the kernel moves with another tile, or at
        addresses depending on other block indices (a chunked scan reading one chunk's cumulative sums as a
        row and, later, as a column), is a second access of its own, ``X#2``, as the Triton frontend makes
        each pointer a tensor access."""
        used = block_vars_of(region.mins, self.ir.binds, self.ir.grid_vars, self.ir.grid)
        base = _tensor_name(region, self.ir.buffers[region.buffer][2])
        name, k = base, 1
        key = (region.extents, used)
        while (seen := self.tensors.get(name)) is not None and (seen.tile, seen.used) != key:
            k += 1
            name = f"{base}#{k}"
        if seen is None:
            shift = region.shift if any(region.shift) else ()
            seen = self.tensors[name] = _Tensor(region.extents, used, buffer=region.buffer, shift=shift)
        if write:
            seen.write = True
        else:
            seen.read = True
        return name

    # -- nodes ---------------------------------------------------------------------------------------------
    def body(
        self, nodes: tuple[OpNode | LoopNode, ...], stages: int, pipelined: bool = False
    ) -> tuple[Node, ...]:
        lowered: list[tuple[list[Node], set[str], set[str]]] = []
        for node in nodes:
            if isinstance(node, LoopNode):
                acts = [self.loop(node)]
                reads, writes = _loop_buffers(node)
            else:
                acts = self.op(node, stages, pipelined)
                reads = {r.buffer for r in node.reads}
                writes = {w.buffer for w in node.writes}
            lowered.append((acts, reads, writes))
        for acts, reads, writes in lowered:
            for a in acts:
                if isinstance(a, TileAction):
                    self.action_buffers[a.name] = reads | writes
        out: list[Node] = []
        for j, (acts, reads, writes) in enumerate(lowered):
            deps: list[str] = []
            for prev, p_reads, p_writes in lowered[:j]:
                if p_writes & (reads | writes) or p_reads & writes:
                    deps.extend(a.name for a in prev)
            for a in acts:
                if isinstance(a, TileAction) and a.kind is ActionKind.LOAD and a.dst is MemLevel.REG:
                    # a global load into a thread's registers (an element-wise statement reading global
                    # memory) needs only what wrote that global buffer, not the registers the statement's
                    # arithmetic reads: the compiler issues it ahead of them (a split-KV combine loads the
                    # next slice's partial output while it still works out that slice's weight)
                    own = [x.name for prev, _, p_writes in lowered[:j] if a.tensor in p_writes for x in prev]
                    out.append(_with_deps(a, tuple(own)))
                else:
                    out.append(_with_deps(a, tuple(deps)))
        # a serial chain whose output a dot of the same body reads: the step fences and synchronises between
        fed = {d for a in out if isinstance(a, TileAction) and a.kind is ActionKind.DOT for d in a.deps}
        return tuple(
            dataclasses.replace(a, chain=dataclasses.replace(a.chain, feeds_dot=True))
            if isinstance(a, TileAction) and a.chain is not None and a.name in fed
            else a
            for a in out
        )

    def loop(self, node: LoopNode) -> Loop:
        trips = node.trips
        mean_trips = by_program = None
        if node.share is not None:  # an if on a loop counter: one trip in that share of the iterations
            count, mean_trips = 1, node.share
        elif trips.size == 1 or trips.min() == trips.max():
            count = int(trips.flat[0])
        else:
            count = walked_trips(float(trips.mean()))
            mean_trips = float(trips.mean())
            # blocks launch with blockIdx.x fastest: the grid-shaped (x, y, z) array in Fortran order
            by_program = tuple(int(t) for t in np.asarray(trips).ravel(order="F"))
            self.notes.append(
                f"loop {node.var}: trip count varies by block ({int(trips.min())}..{int(trips.max())}, "
                f"mean {mean_trips:.2f}); the plan times the mean, schedules blocks by their own counts"
            )
        stages = node.stages
        if node.pipelined and _only_sync_copies(node):
            # nothing to run ahead: TileLang leaves the loop unpipelined, each step waiting for its loads
            node = dataclasses.replace(node, pipelined=False, stages=1)
            stages = 1
            self.notes.append(
                f"loop {node.var}: its copies into shared memory are if_then_else guards TileLang cannot "
                "drop, lowered to plain loads the threads wait for: not software-pipelined"
            )
        if not node.pipelined and _scalar_gather(node, self.ir.threads):
            stages = max(stages, min(count, SCALAR_LOOP_UNROLL))
            self.notes.append(
                f"loop {node.var}: scalar loads of single global elements, unrolled by the compiler: "
                f"{stages} iterations' loads in flight"
            )
        elif (
            not node.pipelined
            and (loaded := _serial_copy_bytes(node))[0]
            and (trips.size == 1 or trips.min() == trips.max())
        ):
            per_iter, into_fragments = loaded
            regs = per_iter / self.ir.threads / REGISTER_BYTES
            room = self._register_cap() - self._fragment_registers() - UNROLLED_REGISTER_OVERHEAD
            ahead = int(max(1, min(count, SERIAL_COPY_UNROLL, room // max(regs, 1.0))))
            # a copy into a fragment holds one iteration's loads in that fragment already
            extra = ahead * regs - into_fragments / self.ir.threads / REGISTER_BYTES
            self.hoisted_registers = max(self.hoisted_registers, math.ceil(extra))
            stages = max(stages, ahead)
            self.notes.append(
                f"loop {node.var}: plain copies from global memory and light element-wise work, unrolled by "
                f"the compiler: {ahead} iterations' loads in flight"
            )
        elif not node.pipelined and _thread_vector_loads(node):
            stages = max(stages, min(count, THREAD_VECTOR_LOOP_UNROLL))
            self.notes.append(
                f"loop {node.var}: per-thread vector loads indexed by the thread index, only registers "
                f"carried between iterations: unrolled by the compiler, {stages} iterations' loads in flight"
            )
        self.loop_vars.append(node.var)
        self.loop_counts.append(count)
        try:
            body = self.body(node.body, stages, node.pipelined)
        finally:
            self.loop_vars.pop()
            self.loop_counts.pop()
        reduction = any(
            isinstance(op, OpNode)
            and op.op == "gemm"
            and len(op.reads) == 3
            and not _filled_in(node, op.writes[0])
            for op in node.body
        )
        return Loop(
            self._name(f"loop_{node.var}"),
            count,
            body,
            stages=stages,
            reduction=reduction,
            location=node.location,
            mean_trips=mean_trips,
            trips_by_program=by_program,
            producer_loads=self.producer_fed(),
        )

    def op(self, node: OpNode, stages: int, pipelined: bool = False) -> list[Node]:
        if node.op == "atomic_add":
            return [self.atomic_add(node)]
        if node.op == "atomic_elem":
            return [self.atomic_elem(node)]
        if node.op == "copy":
            src, dst = node.reads[0], node.writes[0]
            if src.scope == GLOBAL and dst.scope == GLOBAL:
                return self.global_copy(node, stages, pipelined)
            return [self.copy(node, stages, pipelined)]
        if node.op == "fill":
            dst = node.writes[0]
            smem = _bytes(dst) if dst.scope == SHARED else 0.0
            return [
                TileAction(
                    self._name(f"fill_{dst.buffer}"),
                    ActionKind.ELEMENTWISE,
                    flops=float(dst.elements),
                    dst=_level(dst.scope),
                    smem_bytes=smem,
                    location=node.location,
                )
            ]
        if node.op == "gemm":
            return [self.gemm(node)]
        if node.op == "scan":
            return [self.scan(node)]
        if node.op == "finalize":
            return [self.finalize_reducer(node)]
        if node.op == "reduce":
            src, dst = node.reads[0], node.writes[0]
            smem = _bytes(src) if src.scope == SHARED else 0.0
            warps = self.reduce_warps(node)
            if warps > 1:
                item = dtype_bytes(canonical_dtype(dst.dtype))
                self.workspaces[node.location] = _align(self.ir.threads * item, SMEM_BUFFER_ALIGN_BYTES)
                smem += REDUCE_WORKSPACE_PASSES * dst.elements * warps * item
            return [
                TileAction(
                    self._name(f"reduce_{dst.buffer}"),
                    ActionKind.REDUCE,
                    dtype=canonical_dtype(src.dtype),
                    shape=src.extents,
                    flops=float(src.elements),
                    src=_level(src.scope),
                    dst=_level(dst.scope),
                    smem_bytes=smem,
                    location=node.location,
                    warps=warps if warps > 1 else None,
                    outputs=max(1, int(dst.elements)),
                )
            ]
        return self.elementwise_with_global(node)

    def elementwise_with_global(self, node: OpNode) -> list[Node]:
        """A T.Parallel nest (or store) whose elements read or write global memory directly: each global tile
        it reads is a load to registers before the element-wise work, each it writes a store after it."""
        loads = [
            self._load(r, MemLevel.REG, node.location, sync=node.sync_copy)
            for r in node.reads
            if r.scope == GLOBAL
        ]
        on_chip = dataclasses.replace(
            node,
            reads=tuple(r for r in node.reads if r.scope != GLOBAL),
            writes=tuple(w for w in node.writes if w.scope != GLOBAL) or node.writes,
        )
        work = [_with_deps(a, tuple(x.name for x in loads)) for a in self.elementwise(on_chip)]
        after = tuple(x.name for x in work) or tuple(x.name for x in loads)
        stores = [
            _with_deps(self._store(w, MemLevel.REG, node.location), after)
            for w in node.writes
            if w.scope == GLOBAL
        ]
        return [*loads, *work, *stores]

    def atomic_add(self, node: OpNode) -> TileAction:
        """``T.atomic_add(src, dst)`` of a tile into global memory: a store whose tensor is marked atomic (the
        L2 reads, adds and writes each element, as Triton's ``tl.atomic_add`` is modelled)."""
        src, dst = node.reads[0], node.writes[0]
        if dst.scope != GLOBAL:
            raise FrontendError(
                "T.atomic_add into on-chip memory", construct="T.atomic_add", location=node.location
            )
        # TileLang adds a fragment with relaxed vector reductions as wide as each thread's contiguous run of
        # it allows: two fp32 values (AtomicAddx2) from a gemm accumulator's layout, four (AtomicAddx4) from a
        # fragment T.Parallel wrote (its lowered CUDA; benchmarks/calibrate/tilelang_atomics.py)
        width = ATOMIC_ACCUMULATOR_WIDTH if src.buffer in self.gemm_parts else ATOMIC_FRAGMENT_WIDTH
        return self._reduction_store(dst, _level(src.scope), node.location, width)

    def _reduction_store(self, dst: Region, src: MemLevel, where: str, width: int) -> TileAction:
        """An atomic add into ``dst``'s global tile: a store whose tensor is marked atomic, issued as relaxed
        vector reductions of ``width`` elements each (``VECTOR_REDUCTION``)."""
        store = self._store(dst, src, where, "atomic_add")
        assert store.tensor is not None  # a STORE names its tensor
        self.tensors[store.tensor].atomic = True
        vector = int(width * dtype_bytes(canonical_dtype(dst.dtype)))
        return dataclasses.replace(store, variant=VECTOR_REDUCTION, vector_bytes=vector)

    def atomic_elem(self, node: OpNode) -> TileAction:
        """A scalar ``T.atomic_add`` outside T.Parallel, one add per thread (walker._scalar_atomic). Into
        global memory: an atomic store of the threads' tile, one element per instruction
        (``REDG.E.ADD.F32``: a relaxed reduction, as the element-wise form's AtomicAddx2 / x4 are, one element
        wide). Into shared memory: an element-wise update, one add and SHARED_ATOMIC_ACCESSES shared-memory
        accesses of the element per thread (the compare-and-swap's retries under contention are not
        counted)."""
        dst = node.writes[0]
        if dst.scope == GLOBAL:
            return self._reduction_store(dst, MemLevel.REG, node.location, 1)
        item = dtype_bytes(canonical_dtype(dst.dtype))
        return TileAction(
            self._name(f"atomic_add_{dst.buffer}"),
            ActionKind.ELEMENTWISE,
            flops=float(node.elements),
            src=MemLevel.REG,
            dst=MemLevel.SMEM,
            smem_bytes=float(node.elements * SHARED_ATOMIC_ACCESSES * item),
            location=node.location,
        )

    def _load(
        self,
        src: Region,
        dst: MemLevel,
        where: str,
        sync: bool = False,
        rereads: tuple[tuple[int, float], ...] = (),
        fresh: float = 1.0,
    ) -> TileAction:
        """A load of ``src``'s global tile into ``dst`` (registers or shared memory); ``sync``: a load in a
        loop TileLang does not software-pipeline, which it lowers to plain global loads each thread waits
        for before the block's barrier (``variant="sync"``); ``rereads``: what the load's steps read again of
        its own earlier ones (:attr:`~tilesight.plan.TileAction.rereads`)."""
        tensor = self._access(src, write=False, where=where)
        return TileAction(
            self._name(f"load_{tensor}"),
            ActionKind.LOAD,
            tensor=tensor,
            dtype=canonical_dtype(src.dtype),
            shape=src.extents,
            dst=dst,
            location=where,
            variant=SYNC_LOAD if sync else None,
            reverse=self._backwards(src),
            rereads=rereads,
            fresh_steps=fresh,
        )

    def _loop_invariant(self, region: Region) -> bool:
        """Whether ``region``'s start does not move with the innermost enclosing loop (of more than one
        trip): its start expressions, through the kernel's let-bindings, do not read that loop's variable."""
        if not self.loop_vars or self.loop_counts[-1] <= 1:
            return False
        var = self.loop_vars[-1]
        return not any(var in free_vars(inline_binds(m, self.ir.binds)) for m in region.mins)

    def _backwards(self, region: Region) -> bool:
        """Whether the innermost enclosing loop walks ``region`` backwards: its start moves down as the loop
        variable goes up (``A[bx, (nk - 1 - k) * bk]``), with every other variable held at 0."""
        if not self.loop_vars:
            return False
        var = self.loop_vars[-1]
        mins = [inline_binds(m, self.ir.binds) for m in region.mins]  # through ``c = nk - 1 - k``
        starts = []
        for at in (0, 1):
            env: dict[str, Any] = {v: 0 for m in mins for v in free_vars(m)}
            env[var] = at
            try:
                starts.append([int(np.asarray(evaluate(m, env, self.ir.name)).flat[0]) for m in mins])
            except FrontendError:  # a start the index evaluator cannot read: taken as forward
                return False
        steps = [b - a for a, b in zip(*starts, strict=True)]
        return any(d < 0 for d in steps) and not any(d > 0 for d in steps)

    def _store(self, dst: Region, src: MemLevel, where: str, prefix: str = "store") -> TileAction:
        """A store of ``dst``'s global tile from ``src`` (registers or shared memory)."""
        tensor = self._access(dst, write=True, where=where)
        return TileAction(
            self._name(f"{prefix}_{tensor}"),
            ActionKind.STORE,
            tensor=tensor,
            dtype=canonical_dtype(dst.dtype),
            shape=dst.extents,
            src=src,
            location=where,
        )

    def copy(self, node: OpNode, stages: int, pipelined: bool = False) -> TileAction:
        """``pipelined``: the enclosing loop is software-pipelined (:attr:`LoopNode.pipelined`): its global
        to shared copies are multi-buffered ``stages`` times and make the kernel warp-specialised."""
        src, dst = node.reads[0], node.writes[0]
        in_loop = stages > 0  # the enclosing loop's stages; 0 outside every loop
        if src.scope == GLOBAL:
            if dst.scope == SHARED and pipelined:
                self.multibuffered_loads = True
                self.multibuffered[dst.buffer] = max(stages, self.multibuffered.get(dst.buffer, 1))
            rereads, fresh = node.rereads, node.fresh
            if not rereads and self._loop_invariant(src):
                # the same global tile every step of the loop: a re-read of its own (its first step reads it)
                rereads, fresh = ((1, 1.0),), 1.0 / self.loop_counts[-1]
                self.notes.append(
                    f"copy of {src.buffer} at {node.location}: the same tile every step of loop "
                    f"{self.loop_vars[-1]}: read again from L2"
                )
            return self._load(
                src,
                _level(dst.scope),
                node.location,
                sync=in_loop and not pipelined,
                rereads=rereads,
                fresh=fresh,
            )
        if dst.scope == GLOBAL:
            return self._store(dst, _level(src.scope), node.location)
        smem = sum(_bytes(r) for r in (src, dst) if r.scope == SHARED)
        return TileAction(
            self._name(f"copy_{src.buffer}_{dst.buffer}"),
            ActionKind.ELEMENTWISE,
            flops=float(dst.elements),
            src=_level(src.scope),
            dst=_level(dst.scope),
            smem_bytes=float(smem),
            location=node.location,
            chain=self._copy_chain(src, dst),
        )

    def global_copy(self, node: OpNode, stages: int, pipelined: bool = False) -> list[Node]:
        """``T.copy`` from one global tile to another (a backward kernel's post-process casting its fp32
        accumulator to fp16): the threads load the source tile into registers, convert each element where the
        types differ, and store it."""
        src, dst = node.reads[0], node.writes[0]
        load = self._load(src, MemLevel.REG, node.location, sync=stages > 0 and not pipelined)
        acts: list[Node] = [load]
        if canonical_dtype(src.dtype) != canonical_dtype(dst.dtype):
            cvt = TileAction(
                self._name(f"cvt_{src.buffer}_{dst.buffer}"),
                ActionKind.ELEMENTWISE,
                flops=float(dst.elements),
                src=MemLevel.REG,
                dst=MemLevel.REG,
                location=node.location,
            )
            acts.append(_with_deps(cvt, (load.name,)))
        acts.append(_with_deps(self._store(dst, MemLevel.REG, node.location), (acts[-1].name,)))
        return acts

    def _vector_iterations(self, elements: int, lanes: int) -> int:
        """Vector iterations of ``lanes`` elements per thread: the block's threads (the consumers, under warp
        specialisation) split the ``elements``."""
        return -(-elements // (self.ir.threads * lanes))

    def _copy_chain(self, src: Region, dst: Region) -> SerialChain | None:
        """A ``T.copy`` from one shared buffer into another of a different element size (an int8 or fp8
        weight tile converted to fp16) lowers like a shared-to-shared ``T.Parallel``: vectors of 16 bytes of
        the wider element, whose load and store footprints differ, so the iterations run in order
        (walker.Chain), one conversion each. None for any other copy (same element size: the compiler tells
        the iterations apart)."""
        if src.scope != SHARED or dst.scope != SHARED:
            return None
        src_dt, dst_dt = canonical_dtype(src.dtype), canonical_dtype(dst.dtype)
        s_bytes, d_bytes = dtype_bytes(src_dt), dtype_bytes(dst_dt)
        if s_bytes == d_bytes:
            return None
        lanes = max(1, int(VECTOR_BYTES // max(s_bytes, d_bytes)))
        return SerialChain(
            iterations=self._vector_iterations(dst.elements, lanes),
            lanes=lanes,
            alu=0,
            cvt=1,
            packed_cvt=cvt_packed(src_dt, dst_dt),
            narrow_cvt=cvt_narrow(src_dt, dst_dt),
        )

    def gemm(self, node: OpNode) -> TileAction:
        a, b = node.reads[0], node.reads[1]
        g = node.gemm
        a_dt, b_dt = canonical_dtype(a.dtype), canonical_dtype(b.dtype)
        variant = select_variant(
            self.hw,
            a_dtype=a_dt,
            b_dtype=b_dt,
            b_shared=b.scope == SHARED,
            m=g["m"],
            k=g["k"],
            trans_a=g["trans_a"],
            trans_b=g["trans_b"],
            threads=self.ir.threads,
        )
        if g.get("wgmma_only") and variant != "wgmma":
            raise FrontendError(
                f"T.wgmma_gemm of {g['m']}x{g['n']}x{g['k']} ({a_dt} x {b_dt}, B in {b.scope}) on "
                f"{self.ir.threads} threads cannot run on Hopper's warpgroup MMA on {self.hw.name}, and "
                "TileLang refuses it rather than fall back to mma (it needs sm_90, a whole number of "
                "warpgroups, 64 rows or more, B in shared memory and a wgmma dtype and K step); T.gemm "
                "would use mma",
                construct="T.wgmma_gemm",
                location=node.location,
            )
        part = warp_partition(variant, g["policy"], g["m"], g["n"], self.ir.threads, self.hw.warp_size)
        self.gemm_parts[node.writes[0].buffer] = part
        smem = operand_smem_reads(
            part,
            g["m"],
            g["n"],
            _bytes(a) if a.scope == SHARED else 0.0,
            _bytes(b) if b.scope == SHARED else 0.0,
        )
        return TileAction(
            self._name(f"dot_{node.writes[0].buffer}"),
            ActionKind.DOT,
            dtype=a_dt,
            shape=(g["m"], g["n"], g["k"]),
            src=MemLevel.SMEM if MemLevel.SMEM in (_level(a.scope), _level(b.scope)) else MemLevel.REG,
            dst=MemLevel.REG,
            variant=variant,
            smem_bytes=smem,
            location=node.location,
            # one wgmma instruction covers the warpgroup's columns, in pieces of at most 256
            mma_n=min(g["n"] // part.n_warps, WGMMA_MAX_N) if variant == "wgmma" else None,
            # a fragment A (FlashAttention's P) is read from registers, not shared memory (narrow_mma_rate)
            mma_a_registers=variant == "wgmma" and a.scope != SHARED,
        )

    def scan(self, node: OpNode) -> TileAction:
        """``T.cumsum`` / ``T.cummax`` of a shared buffer. TileLang 0.1.15 lowers it to ``tl::CumSum1D`` /
        ``CumSum2D`` (``tl_templates/cuda/scan.h``): one warp a line (a row when scanning along dim 1, a
        column along dim 0; a 1-D buffer's single line on the first warp), the lines dealt to the block's
        warps in turn, each line in segments of one element a lane. A segment loads from shared memory,
        runs a log2(32)-step shuffle tree (each step a shuffle, a combine and a select of the lanes it
        applies to), combines the carry, stores, and passes the carry on by one more shuffle. nvcc takes
        :data:`SCAN_SEGMENT_UNROLL` segments at a time: their loads and shuffle trees overlap, and the carry
        then passes through them one after another, so a group's chain is the shared-memory round trip, one
        tree's log2(32) shuffle steps and a shuffle and an add per segment; a thread runs its lines' groups
        back to back (:class:`~tilesight.plan.SerialChain` with ``shuffles``). Each shuffle moves a 32-bit
        word a lane through the shared-memory crossbar, as a shared-memory access does."""
        src, dst = node.reads[0], node.writes[0]
        if src.scope != SHARED or dst.scope != SHARED:
            raise FrontendError(
                f"a scan from {src.scope} into {dst.scope} (TileLang 0.1.15 lowers T.cumsum / T.cummax on "
                "shared memory only)",
                construct="T.cumsum",
                location=node.location,
            )
        warp = self.hw.warp_size
        warps = max(1, self.ir.threads // warp)
        ext = tuple(int(e) for e in src.extents)
        if len(ext) == 1:
            lines, length, active = 1, ext[0], 1
        elif len(ext) == 2:
            lines, length = (ext[0], ext[1]) if node.dim == 1 else (ext[1], ext[0])
            active = min(warps, lines)
        else:
            raise FrontendError(
                f"a scan over a {len(ext)}-D region (TileLang 0.1.15 scans 1-D and 2-D buffers only)",
                construct="T.cumsum",
                location=node.location,
            )
        segments = -(-length // warp)
        steps = int(math.log2(warp))
        lanes = float(lines * segments * warp)  # a segment's lanes, padded with the identity past the end
        item = dtype_bytes(canonical_dtype(src.dtype))
        # a segment's load and store: its lanes one element apart along a row, or a row apart down a column
        # (dim 0 of a 2-D buffer), which puts lanes in one bank: the wavefronts each access takes
        stride = node.row_elements if len(ext) == 2 and node.dim == 0 else 1
        waves = wavefronts(np.arange(warp, dtype=np.int64) * stride * int(item), int(item))
        group = min(SCAN_SEGMENT_UNROLL, segments)
        chain = SerialChain(
            iterations=-(-lines // active) * -(-segments // group),
            lanes=1,
            alu=group,
            cvt=0,
            shuffles=steps + group,
        )
        return TileAction(
            self._name(f"scan_{dst.buffer}"),
            ActionKind.ELEMENTWISE,
            flops=lanes * (steps + 1),  # the tree's combines and the carry's
            alu_ops=lanes * steps,  # the selects of the lanes each step applies to
            smem_bytes=lines
            * segments
            * (2 * waves * WAVEFRONT_BYTES + warp * SHUFFLE_WORD_BYTES * (steps + 1)),
            location=node.location,
            chain=chain,
        )

    def finalize_reducer(self, node: OpNode) -> TileAction:
        """``T.finalize_reducer``: TileLang 0.1.15 (``FinalizeReducerOp::Lower``) replicates a reducer over
        every thread of the block and combines each element's copies with one block-wide ``tl::AllReduce``
        after a ``__syncthreads()``, element after element (a loop over the reducer's elements, not unrolled):
        a shuffle tree within each warp, then the warps' partials through a shared-memory workspace behind a
        barrier. One serial iteration an element, priced like the reductions probe's dependent block-wide
        ``tl.max`` (the one-warp tree plus the ``[cross_warp_reduction]`` latency of the block's warps)."""
        src = node.reads[0]
        warp = self.hw.warp_size
        threads = self.ir.threads
        warps = max(1, threads // warp)
        item = dtype_bytes(canonical_dtype(src.dtype))
        if threads >= warp:  # the AllReduce's workspace, one word a thread (T.AddWorkspace)
            self.workspaces[node.location] = _align(threads * item, SMEM_BUFFER_ALIGN_BYTES)
        steps = int(math.log2(min(threads, warp)))
        chain = SerialChain(
            iterations=src.elements,
            lanes=1,
            alu=0,
            cvt=0,
            shuffles=steps,
            cross_warps=warps if warps > 1 else 0,
        )
        return TileAction(
            self._name(f"finalize_{src.buffer}"),
            ActionKind.ELEMENTWISE,
            flops=float(src.elements * threads),  # every copy combined once
            smem_bytes=float(src.elements * (warps * item * REDUCE_WORKSPACE_PASSES if warps > 1 else 0)),
            location=node.location,
            chain=chain,
        )

    def reduce_warps(self, node: OpNode) -> int:
        """Warps a reduce combines per output element: the accumulator's warp split along the reduced axis.

        Only a 2-D T.gemm accumulator has a known warp layout here; any other source is reduced within a warp.
        """
        src = node.reads[0]
        part = self.gemm_parts.get(src.buffer)
        if part is None or src.scope == SHARED or len(src.extents) != 2:
            return 1
        return part.n_warps if node.dim in (1, -1) else part.m_warps

    def elementwise(self, node: OpNode) -> list[Node]:
        out = node.writes[0].buffer
        per_elem = sum(
            dtype_bytes(canonical_dtype(r.dtype)) for r in (*node.reads, *node.writes) if r.scope == SHARED
        )
        smem = float(per_elem * node.elements)
        if node.smem_wavefront_bytes is not None and not self.swizzled & set(node.smem_buffers):
            waves = node.smem_wavefront_bytes  # wavefronts at the lanes' addresses (bank conflicts)
            if smem > 0 and waves >= BANK_CONFLICT_NOTE_RATIO * smem:
                self.notes.append(
                    f"shared-memory bank conflicts at {node.location}: "
                    f"{waves / WAVEFRONT_BYTES:.0f} wavefronts a tile to move {smem:.0f} bytes of "
                    f"{', '.join(node.smem_buffers)}, which {smem / WAVEFRONT_BYTES:.0f} full wavefronts hold"
                )
            smem = waves
        smem += node.local_bytes * node.elements  # a reducer's updates through local memory
        acts: list[Node] = []
        if node.sfu_ops:
            acts.append(
                TileAction(
                    self._name(f"sfu_{out}"),
                    ActionKind.SFU,
                    flops=float(node.elements * node.sfu_ops),
                    smem_bytes=0.0 if node.arith_ops else smem,
                    location=node.location,
                )
            )
        if node.arith_ops or node.shuffles:
            chain = None
            if node.shuffles:
                # a warp shuffle is a dependent step of each element's chain (T.shfl_xor's butterfly): the
                # thread's elements one after another, each its shuffles and its arithmetic
                chain = SerialChain(
                    iterations=max(1, node.per_thread or self._vector_iterations(node.elements, 1)),
                    lanes=1,
                    alu=node.arith_ops,
                    cvt=0,
                    shuffles=node.shuffles,
                )
            elif node.chain is not None and node.chain.serial:
                chain = SerialChain(
                    iterations=self._vector_iterations(node.elements, node.chain.lanes),
                    lanes=node.chain.lanes,
                    alu=node.chain.alu,
                    cvt=node.chain.cvt,
                    packed_alu=node.chain.packed,
                    packed_cvt=node.chain.packed_cvt,
                    narrow_cvt=node.chain.narrow_cvt,
                )
            acts.append(
                TileAction(
                    self._name(f"ew_{out}"),
                    ActionKind.ELEMENTWISE,
                    flops=float(node.elements * node.arith_ops),
                    smem_bytes=smem,
                    location=node.location,
                    chain=chain,
                )
            )
        return acts

    # -- plan pieces ---------------------------------------------------------------------------------------
    def grid(self) -> TileGrid:
        ir = self.ir
        if ir.sequence is not None:  # a persistent kernel: its tiles in launch order, over its blocks
            self.notes.extend(ir.notes)
            return TileGrid(
                ir.grid, ir.grid_vars, LaunchOrder.EXPLICIT, programs=ir.programs, sequence=ir.sequence
            )
        if ir.swizzle is None:
            return TileGrid(ir.grid, ir.grid_vars, LaunchOrder.COLUMN_MAJOR)
        func, panel = ir.swizzle
        full = (*ir.grid, *(1,) * (3 - len(ir.grid)))
        seq = rasterization_sequence(func, panel, full, ir.name)[:, : len(ir.grid)]
        self.notes.append(f"TileLang {func} swizzle, panel {panel}")
        return TileGrid(ir.grid, ir.grid_vars, LaunchOrder.EXPLICIT, sequence=seq)

    def tensor_accesses(self) -> tuple[TensorAccess, ...]:
        out = []
        # each argument, then the regions of it a T.Parallel nest moves beside it (Region.shift)
        order = {p: i for i, p in enumerate(self.ir.params)}
        named = sorted(
            (n for n, t in self.tensors.items() if t.buffer in order),
            key=lambda n: (order[self.tensors[n].buffer], self.tensors[n].shift),
        )
        for name in named:
            t = self.tensors[name]
            _, dtype, shape = self.ir.buffers[t.buffer]
            mode = (
                AccessMode.ATOMIC
                if t.atomic
                else AccessMode.READ_WRITE
                if t.read and t.write
                else AccessMode.WRITE
                if t.write
                else AccessMode.READ
            )
            masked = any(s % e for s, e in zip(shape, t.tile, strict=True))
            reuse = frozenset(set(self.ir.grid_vars) - t.used)
            out.append(TensorAccess(name, canonical_dtype(dtype), shape, t.tile, mode, reuse, masked=masked))
        # regions of one argument side by side (a rotary embedding's halves): one contiguous run together
        shifts = {n: _flat_shift(t.shift, self.ir.buffers[t.buffer][2]) for n, t in self.tensors.items()}
        return tuple(side_by_side_runs(out, shifts))

    def resources(self) -> BlockResources:
        threads = self.ir.threads
        smem = self.shared_bytes()
        if self.producer_fed():
            # warp-specialised: a producer warpgroup (TileLang's, or the kernel's own T.ws branch), its
            # barriers, and ptxas spending the whole register file on one block (launch bounds (threads,
            # 1)), capped at the consumers' setmaxnreg value
            threads += self.ir.producer_threads or WS_PRODUCER_THREADS
            smem += WS_BARRIER_SMEM_BYTES
            budget = self.hw.regs_per_sm // threads // REG_PER_THREAD_GRANULE * REG_PER_THREAD_GRANULE
            if self.ir.producer_threads and not self.ir.nreg_hints:
                # a hand-written warp specialisation without T.set_max_nreg: TileLang injects no setmaxnreg
                # (its lowered CUDA for sm_90a has none) and ptxas gives every thread what the consumers'
                # code needs (nvcc 13.0 on the ws set: 90 registers with a 64-register accumulator share,
                # 154 with 128), so smaller tiles fit two blocks an SM
                regs = self._fragment_registers() + REGISTER_OVERHEAD_PER_THREAD
                return BlockResources(
                    threads=threads,
                    smem_bytes=smem,
                    regs_per_thread=min(regs, budget, self.hw.regs_per_thread_max),
                    compute_groups=self.consumer_split[0],
                    group_split=self.consumer_split[1],
                )
            # without TileLang's setmaxnreg pair (T.disable_warp_group_reg_alloc) nothing caps the consumers
            # below what ptxas gives every thread
            cap = WS_CONSUMER_MAX_REGS if self.ir.setmaxnreg else self.hw.regs_per_thread_max
            regs = min(cap, budget, self.hw.regs_per_thread_max)
            # setmaxnreg gives the consumers their cap whatever the launch's per-thread share (``budget``);
            # only they hold fragments, so the frame is theirs, averaged here over the block's threads
            frame = self._spill_frame_bytes(self._consumer_cap())
            self._note_accumulator_swap(self._consumer_cap(), frame)
            return BlockResources(
                threads=threads,
                smem_bytes=smem,
                regs_per_thread=regs,
                spill_bytes_per_thread=frame * self.ir.threads // threads,
                compute_groups=self.consumer_split[0],
                group_split=self.consumer_split[1],
                spill_invariant_bytes=0,
            )
        frags = self._fragment_registers()
        regs = frags + REGISTER_OVERHEAD_PER_THREAD
        if self.hoisted_registers:
            # an unrolled loop's loads in registers, with the few registers its straight-line code adds
            regs = max(regs, frags + self.hoisted_registers + UNROLLED_REGISTER_OVERHEAD)
        cap = self._register_cap()
        frame = self._spill_frame_bytes(cap)
        self._note_accumulator_swap(cap, frame)
        return BlockResources(
            threads=threads,
            smem_bytes=smem,
            regs_per_thread=min(regs, cap),
            spill_bytes_per_thread=frame,
            spill_invariant_bytes=0,
        )

    @functools.cached_property
    def _carried(self) -> tuple[set[str], ...]:
        """The fragments each serial loop of the kernel carries (:func:`_carried_fragments`), loop by loop."""
        elements = {
            name: math.prod(shape)
            for name, (scope, _, shape) in self.ir.buffers.items()
            if scope not in (GLOBAL, SHARED)
        }
        return tuple(_carried_fragments(loop, elements) for loop in _loops(self.ir.body))

    def _registers(self, fragments: set[str]) -> int:
        """Registers a thread's share of ``fragments`` takes (the block's threads holding them evenly)."""
        nbytes = 0
        for name in fragments:
            _, dtype, shape = self.ir.buffers[name]
            nbytes += math.prod(shape) * dtype_bytes(canonical_dtype(dtype))
        return math.ceil(nbytes / self.ir.threads / REGISTER_BYTES)

    def spill_candidates(self) -> set[str]:
        """The carried fragments ptxas spills first when a thread runs out of registers: those no ``T.gemm``
        reads or accumulates into (a tensor-core instruction needs its operands and accumulator in
        registers, so a promoted fp8 GEMM's second accumulator goes to local memory and is reloaded and stored
        only where the promotion adds into it: ptxas -v and the SASS of ``gemm_fp8(promote_every=1 / 2)``,
        38 local loads and 38 stores in the promotion's block, 5 and 5 around the wgmma). Empty when nothing
        spills, or when the wgmma accumulators themselves overflow (:meth:`_spill_frame_bytes`): the frame
        then moves around every wgmma, the engine's default."""
        cap = self._consumer_cap()
        if not self._spill_frame_bytes(cap) or self._overflowing(cap):
            return set()
        return set().union(*self._carried) - _gemm_fragments(self.ir.body)

    def spill_openers(self, body: tuple[Node, ...]) -> tuple[str, ...] | None:
        """The actions of the lowered ``body`` around which a spilled frame is reloaded and stored: in each
        body (the tile program's, each loop's), the first compute action that touches a
        :meth:`spill_candidates` fragment. None where nothing spills or only dot operands would (the
        engine's default: around every dot)."""
        spilled = self.spill_candidates()
        if not spilled:
            return None
        out: list[str] = []

        def visit(nodes: tuple[Node, ...]) -> None:
            for n in nodes:
                if isinstance(n, TileAction) and n.kind in _COMPUTE_KINDS:
                    if spilled & self.action_buffers.get(n.name, set()):
                        out.append(n.name)
                        break
            for n in nodes:
                if isinstance(n, Loop):
                    visit(n.body)

        visit(body)
        return tuple(out)

    def _consumer_cap(self) -> int:
        """The registers a thread that holds fragments may have: setmaxnreg's consumer cap in a kernel
        TileLang warp-specialises, else what launch bounds give every thread of the launch (producer
        included)."""
        threads = self.ir.threads
        if self.producer_fed():
            if self.ir.setmaxnreg and not (self.ir.producer_threads and not self.ir.nreg_hints):
                return min(WS_CONSUMER_MAX_REGS, self.hw.regs_per_thread_max)
            threads += self.ir.producer_threads or WS_PRODUCER_THREADS
        budget = self.hw.regs_per_sm // threads // REG_PER_THREAD_GRANULE * REG_PER_THREAD_GRANULE
        return min(budget, self.hw.regs_per_thread_max)

    def _spill_frame_bytes(self, cap: int) -> int:
        """Bytes a thread's loop state spills to local memory when it has ``cap`` registers, in the kernel's
        most demanding serial loop; 0 when everything fits. The frame holds carried fragments, which the loop
        updates, so none of it is invariant state (``spill_invariant_bytes=0``): each pass reloads and stores
        it.

        Where the carried fragments and :data:`LOOP_STATE_REGISTERS` exceed ``cap`` but the wgmma
        accumulators fit beside the loop state, ptxas spills only the excess (other fragments first,
        :meth:`spill_candidates`). Where the wgmma accumulators alone do not fit, every instruction still
        needs its own accumulator whole in registers while it runs, so ptxas serialises the wgmmas (C7511)
        and swaps accumulator pieces through the registers: beside the loop state and the piece in flight it
        keeps what room is left of the others, and spills the rest of what is live at the instruction
        (:attr:`_at_wgmma`: the loop's carried fragments and the wgmma's own accumulator), all of which each
        iteration reloads and stores. (ptxas -v and the SASS of TileLang 0.1.15's GEMM for sm_90a, nvcc 13.0:
        a 128 x 256 tile on one consumer warpgroup, two m64n256 pieces of 128 registers, 256 carried against
        setmaxnreg's 240, keeps 84 registers of the idle piece and moves 172 (688 B stored and 688 B loaded
        an iteration, a 688 B frame), where the excess alone would be 36; 256 x 128 tiles on one warpgroup
        and 256 x 256 on two, four m64n128 pieces of 64, move 128 (512 B frames). This rule gives 164 and
        100.)"""
        excess = max(
            (self._registers(carried) + LOOP_STATE_REGISTERS - cap for carried in self._carried), default=0
        )
        swapped = (
            self._registers(live) - max(cap - LOOP_STATE_REGISTERS - self._wgmma_piece_registers(live), 0)
            for live in self._overflowing(cap)
        )
        frame = max(excess, *swapped, 0)
        return frame * REGISTER_BYTES

    def _note_accumulator_swap(self, cap: int, frame: int) -> None:
        """Say so in the plan's notes where the wgmma accumulators do not fit a thread's ``cap`` registers
        (:meth:`_spill_frame_bytes`): the launch's largest slowdown, and one the kernel's author can avoid."""
        overflowing = self._overflowing(cap)
        if not overflowing:
            return
        acc = max(self._registers(self._wgmma_accumulators(live)) for live in overflowing)
        self.notes.append(
            f"the wgmma accumulators take {acc} registers a consumer thread against the {cap} it may have: "
            f"ptxas serialises the wgmmas and swaps accumulator pieces through local memory, {frame} bytes "
            "a thread each iteration; more consumer threads or a smaller tile keep them in registers"
        )

    @functools.cached_property
    def _at_wgmma(self) -> tuple[set[str], ...]:
        """The fragments live while each wgmma of a serial loop runs: what the loop carries (:attr:`_carried`)
        and the instruction's own accumulator (a FlashAttention's score tile, rebuilt every iteration, beside
        the output it carries). Read once the body is lowered, which records each gemm's warp partition
        (:attr:`gemm_parts`)."""
        return tuple(
            carried | {g.writes[0].buffer}
            for loop, carried in zip(_loops(self.ir.body), self._carried, strict=True)
            for g in _gemm_ops(loop.body)
            if self._is_wgmma_accumulator(g.writes[0].buffer)
        )

    def _is_wgmma_accumulator(self, fragment: str) -> bool:
        """Whether ``fragment`` is the accumulator of a ``T.gemm`` lowered to wgmma."""
        part = self.gemm_parts.get(fragment)
        return part is not None and part.variant == "wgmma"

    def _wgmma_accumulators(self, live: set[str]) -> set[str]:
        """The wgmma accumulators among the ``live`` fragments."""
        return set(filter(self._is_wgmma_accumulator, live))

    def _overflowing(self, cap: int) -> list[set[str]]:
        """The fragment sets of :attr:`_at_wgmma` whose wgmma accumulators and the loop state exceed ``cap``
        registers: ptxas cannot keep them all and has to move accumulators in and out of local memory around
        the instructions."""
        return [
            live
            for live in self._at_wgmma
            if self._registers(self._wgmma_accumulators(live)) + LOOP_STATE_REGISTERS > cap
        ]

    def _wgmma_piece_registers(self, live: set[str]) -> int:
        """Registers of a thread the largest wgmma instruction's share of an accumulator among ``live`` takes
        (:func:`gemm_inst.wgmma_accumulator_registers`)."""
        pieces = [0]
        for name in self._wgmma_accumulators(live):
            _, dtype, shape = self.ir.buffers[name]
            acc_bytes = dtype_bytes(canonical_dtype(dtype))
            pieces.append(
                wgmma_accumulator_registers(self.gemm_parts[name], shape[-1], acc_bytes, self.hw.warp_size)
            )
        return max(pieces)

    def _fragment_registers(self) -> int:
        """Registers a thread's share of the fragments takes (those :func:`_transient_fragments` leaves out
        excepted), in a kernel that is not warp-specialised."""
        frag_bytes = 0.0
        transient = _transient_fragments(self.ir.body)
        for name, (scope, dtype, shape) in self.ir.buffers.items():
            if scope not in (GLOBAL, SHARED) and name not in transient:
                frag_bytes += math.prod(shape) * dtype_bytes(canonical_dtype(dtype))
        return math.ceil(frag_bytes / self.ir.threads / REGISTER_BYTES)

    def _register_cap(self) -> int:
        """The most registers ptxas gives a thread of the block: launch bounds (threads, 1) fit one block in
        the register file, in whole allocation granules, and never above the per-thread maximum."""
        budget = self.hw.regs_per_sm // self.ir.threads // REG_PER_THREAD_GRANULE * REG_PER_THREAD_GRANULE
        return min(budget, self.hw.regs_per_thread_max)

    def warp_specialised(self) -> bool:
        """Whether TileLang gives the kernel a TMA producer warpgroup (see WS_PRODUCER_THREADS)."""
        return bool(self.hw.tma_supported and self.multibuffered_loads)

    def producer_fed(self) -> bool:
        """Whether a producer warpgroup issues the kernel's loads: TileLang's own (:meth:`warp_specialised`)
        or the kernel's hand-written T.ws branch (KernelIR.producer_threads)."""
        return self.warp_specialised() or bool(self.ir.producer_threads)

    @functools.cached_property
    def consumer_split(self) -> tuple[int, GroupSplit]:
        """Consumer warpgroups of a warp-specialised kernel that run separate parts of every ``T.gemm``, and
        how they divide the tile (``BlockResources.compute_groups`` and ``group_split``): the fewest
        warpgroups any wgmma splits its M over, or, where every wgmma keeps its M in one warpgroup, the
        fewest it splits its N over (TileLang's ``warp_partition`` gives a 128 x 256 tile's eight consumer
        warps 4 x 2: two warpgroups, each on its half of the columns) where nothing joins the halves again
        (:func:`_columns_apart`); one group if a gemm is not wgmma."""
        parts = list(self.gemm_parts.values())
        if not parts or any(part.variant != "wgmma" for part in parts):
            return 1, GroupSplit.ROWS
        rows = min(part.m_warps // WARPS_PER_WARPGROUP for part in parts)
        if rows > 1:
            return rows, GroupSplit.ROWS
        columns = min(part.n_warps for part in parts)
        if columns > 1 and _columns_apart(self.ir.body):
            return columns, GroupSplit.COLUMNS
        return 1, GroupSplit.ROWS

    def shared_bytes(self) -> int:
        """Peak shared memory over the kernel's top-level steps.

        TileLang merges shared buffers whose lifetimes do not overlap (FlashAttention's output tile reuses the
        query tile's space), so a buffer occupies its (multi-buffered, aligned) size only from the first to
        the last top-level statement that touches it; a loop counts as one statement.
        """
        size: dict[str, int] = {}
        for name, (scope, dtype, shape) in self.ir.buffers.items():
            if scope == SHARED:
                raw = math.prod(shape) * dtype_bytes(canonical_dtype(dtype))
                size[name] = self.multibuffered.get(name, 1) * _align(raw, SMEM_BUFFER_ALIGN_BYTES)
        first: dict[str, int] = {}
        last: dict[str, int] = {}
        for i, node in enumerate(self.ir.body):
            if isinstance(node, LoopNode):
                reads, writes = _loop_buffers(node)
            else:
                reads, writes = {r.buffer for r in node.reads}, {w.buffer for w in node.writes}
            for name in (reads | writes) & size.keys():
                first.setdefault(name, i)
                last[name] = i
        peak = 0
        for i, node in enumerate(self.ir.body):
            live = sum(size[b] for b in first if first[b] <= i <= last[b])
            peak = max(peak, live + sum(self.workspaces.get(loc, 0) for loc in _op_locations(node)))
        return int(peak)


def _align(size: float, unit: int) -> int:
    return int(math.ceil(size / unit) * unit)


def _with_deps(node: Node, deps: tuple[str, ...]) -> Node:
    """``node`` depending on ``deps`` as well as on what it already depends on (actions lowered from one
    operator depend on one another)."""
    return dataclasses.replace(node, deps=tuple(dict.fromkeys((*deps, *node.deps))))


def _scalar_gather(node: LoopNode, threads: int) -> bool:
    """Whether a loop holds only scalar statements (one element each) that read single global elements into
    registers and write registers only (see :data:`SCALAR_LOOP_UNROLL`)."""
    reads_global = False
    for op in node.body:
        # a per-thread scalar statement of the block's threads (walker._thread_store: each thread reads its
        # one element, ``B[bn * BN + tn, k]``) is such a statement in every thread, and so is a T.Parallel
        # nest of at most one element per thread (a split-KV combine's ``o[d] += part[s, d] * w`` over the
        # head dim on as many threads: the SASS of TileLang 0.1.15's lowering issues every split's load
        # before the first multiply-add)
        scalar = isinstance(op, OpNode) and (
            op.per_thread == 1 or (op.op == "parallel" and not op.per_thread and op.elements <= threads)
        )
        if not isinstance(op, OpNode) or op.op not in ("store", "parallel"):
            return False
        if op.elements > 1 and not scalar:
            return False
        if any(w.scope in (GLOBAL, SHARED) for w in op.writes):
            return False
        for r in op.reads:
            if r.scope == SHARED or (r.scope == GLOBAL and math.prod(r.extents) != 1 and not scalar):
                return False
            reads_global |= r.scope == GLOBAL
    return reads_global


def _thread_vector_loads(node: LoopNode) -> bool:
    """Whether a loop reads global memory through per-thread vector statements of the block's threads
    (walker ``_thread_store`` under ``T.vectorized``: ``per_thread`` > 1) into registers, and otherwise
    only computes in registers (its inner loops too): no shared memory, no barrier, no global write (see
    :data:`THREAD_VECTOR_LOOP_UNROLL`)."""
    spread = False

    def registers_only(body: tuple[OpNode | LoopNode, ...]) -> bool:
        nonlocal spread
        for op in body:
            if isinstance(op, LoopNode):
                if op.pipelined or not registers_only(op.body):
                    return False
                continue
            if op.op != "store" or any(w.scope in (GLOBAL, SHARED) for w in op.writes):
                return False
            if any(r.scope == SHARED for r in op.reads):
                return False
            if any(r.scope == GLOBAL for r in op.reads):
                if op.per_thread <= 1:  # scalar reads: _scalar_gather's case, or not one of these loops
                    return False
                spread = True
        return True

    return registers_only(node.body) and spread


def _serial_copy_bytes(node: LoopNode) -> tuple[float, float]:
    """Bytes one iteration of ``node`` loads from global memory, and how many of them a ``T.copy`` puts in a
    fragment, if it is a loop :data:`SERIAL_COPY_UNROLL` describes (copies or T.Parallel nests reading
    global tiles at addresses no loaded value sets, other element-wise work without special functions; no
    T.gemm, reduction, atomic or inner loop); (0, 0) for any other loop."""
    loaded = into_fragments = 0.0
    for op in node.body:
        if not isinstance(op, OpNode) or op.op not in ("copy", "parallel", "fill") or op.sfu_ops:
            return 0.0, 0.0
        for r in op.reads:
            if r.scope != GLOBAL:
                continue
            if any(_loads_buffer(m) for m in r.mins):
                return 0.0, 0.0  # an indirect address: the load waits for the one that gives it
            loaded += _bytes(r)
            if op.op == "copy" and op.writes[0].scope not in (GLOBAL, SHARED):
                into_fragments += _bytes(r)
    return loaded, into_fragments


def _loads_buffer(expr: Any) -> bool:
    """Whether ``expr`` reads a buffer (a data-dependent address)."""
    found = []
    tirx.stmt_functor.post_order_visit(
        expr, lambda n: found.append(1) if isinstance(n, tirx.BufferLoad) else None
    )
    return bool(found)


def _only_sync_copies(node: LoopNode) -> bool:
    """Whether every copy from global into shared memory directly in ``node`` is a T.Parallel nest TileLang
    cannot make asynchronous (:attr:`OpNode.sync_copy`), and there is at least one."""
    copies = [
        op
        for op in node.body
        if isinstance(op, OpNode)
        and any(r.scope == GLOBAL for r in op.reads)
        and any(w.scope == SHARED for w in op.writes)
    ]
    return bool(copies) and all(op.op == "parallel" and op.sync_copy for op in copies)


def _transient_fragments(body: tuple[OpNode | LoopNode, ...]) -> set[str]:
    """Fragments no register holds whole: written by one T.Parallel nest (that does not read them) and read
    only by the operator right after it, a reduce or another nest (a LayerNorm's ``xc = (x - mean) ** 2``
    before ``T.reduce_sum(xc, var)``; a cross-entropy's picked logit before its sum). The lowered code is
    straight-line per thread, and ptxas computes each element next to its one use: a 4 x 4096 fp32 LayerNorm
    on 256 threads (two such fragments of 64 registers a thread, one of them ``xc``) gets 114 registers from
    ptxas on the H200, where counting both would give 161."""
    readers: dict[str, int] = {}
    writers: dict[str, int] = {}

    def count(seq: tuple[OpNode | LoopNode, ...]) -> None:
        for node in seq:
            if isinstance(node, LoopNode):
                count(node.body)
                continue
            for r in {x.buffer for x in node.reads}:
                readers[r] = readers.get(r, 0) + 1
            for w in {x.buffer for x in node.writes}:
                writers[w] = writers.get(w, 0) + 1

    out: set[str] = set()

    def visit(seq: tuple[OpNode | LoopNode, ...]) -> None:
        for a, b in itertools.pairwise(seq):
            if not (isinstance(a, OpNode) and isinstance(b, OpNode)):
                continue
            if a.op != "parallel" or b.op not in ("reduce", "parallel"):
                continue
            for w in a.writes:
                if (
                    w.scope == REGISTER
                    and readers.get(w.buffer) == 1
                    and writers.get(w.buffer) == 1
                    and all(r.buffer != w.buffer for r in a.reads)
                    and any(r.buffer == w.buffer for r in b.reads)
                ):
                    out.add(w.buffer)
        for node in seq:
            if isinstance(node, LoopNode):
                visit(node.body)

    count(body)
    visit(body)
    return out


def _loops(body: tuple[OpNode | LoopNode, ...]) -> Iterator[LoopNode]:
    """Every serial loop of ``body`` (an ``if`` on a loop counter excepted), outermost first."""
    for node in body:
        if isinstance(node, LoopNode):
            if node.share is None:
                yield node
            yield from _loops(node.body)


def _carried_fragments(loop: LoopNode, fragments: Mapping[str, int]) -> set[str]:
    """Fragments whose values one iteration of ``loop`` hands to the next, so a register holds them through
    the whole iteration: those its body reads before every path through it has overwritten them whole
    (a ``T.clear``, a gemm with ``clear_accum`` or a ``T.Parallel`` nest that writes the whole fragment
    without reading it; writes inside an inner loop or an ``if`` may not run). A running accumulator, the
    softmax's row statistics and loop-invariant operands are carried; a score tile rebuilt every iteration is
    not. Fragments the loop never reads (a second accumulator touched only after it) are not. ``fragments``:
    each fragment's elements."""
    carried: set[str] = set()
    overwritten: set[str] = set()

    def visit(seq: tuple[OpNode | LoopNode, ...], certain: bool) -> None:
        for node in seq:
            if isinstance(node, LoopNode):
                visit(node.body, False)
                continue
            read = {r.buffer for r in node.reads}
            carried.update(b for b in read if b in fragments and b not in overwritten)
            if certain:
                overwritten.update(
                    w.buffer
                    for w in node.writes
                    if w.buffer in fragments and w.buffer not in read and w.elements >= fragments[w.buffer]
                )

    visit(loop.body, True)
    return carried


def _ops(body: tuple[OpNode | LoopNode, ...]) -> Iterator[OpNode]:
    """Every statement of ``body``, in loops too."""
    for node in body:
        if isinstance(node, LoopNode):
            yield from _ops(node.body)
        else:
            yield node


def _gemm_ops(body: tuple[OpNode | LoopNode, ...]) -> Iterator[OpNode]:
    """Every T.gemm of ``body``, in loops too."""
    return (op for op in _ops(body) if op.op == "gemm")


def _columns_apart(body: tuple[OpNode | LoopNode, ...]) -> bool:
    """Whether warpgroups that split a tile's columns keep to their own columns: no ``T.reduce`` or
    ``T.finalize_reducer`` (a row's reduction meets every column: FlashAttention's and MLA's softmax) and
    nothing but a load from global memory writing a shared buffer that a ``T.gemm`` reads (a dequantised or
    converted B tile, which the block's threads write together and every group reads whole after the
    block's barrier). Element-wise work on a group's own fragments (an fp8 GEMM's promotion
    of its accumulator) stays in the group."""
    operands = _gemm_operands(body)
    for op in _ops(body):
        if op.op in ("reduce", "finalize", "scan"):
            return False
        if (
            op.op != "gemm"
            and any(w.scope == SHARED and w.buffer in operands for w in op.writes)
            and not all(r.scope == GLOBAL for r in op.reads)
        ):
            return False
    return True


def _gemm_fragments(body: tuple[OpNode | LoopNode, ...]) -> set[str]:
    """Register buffers (fragments) any T.gemm of ``body`` reads or writes."""
    regions = (r for g in _gemm_ops(body) for r in (*g.reads, *g.writes))
    return {r.buffer for r in regions if r.scope not in (GLOBAL, SHARED)}


def _gemm_operands(body: tuple[OpNode | LoopNode, ...]) -> set[str]:
    """Shared buffers any T.gemm of ``body`` reads."""
    return {r.buffer for g in _gemm_ops(body) for r in g.reads if r.scope == SHARED}


def _loop_buffers(node: LoopNode) -> tuple[set[str], set[str]]:
    reads: set[str] = set()
    writes: set[str] = set()
    for child in node.body:
        if isinstance(child, LoopNode):
            r, w = _loop_buffers(child)
        else:
            r, w = {x.buffer for x in child.reads}, {x.buffer for x in child.writes}
        reads |= r
        writes |= w
    return reads, writes


def _op_locations(node: OpNode | LoopNode) -> list[str]:
    if isinstance(node, OpNode):
        return [node.location]
    return [loc for child in node.body for loc in _op_locations(child)]


def _filled_in(loop: LoopNode, region: Region) -> bool:
    """Whether the loop re-initialises ``region``'s buffer each iteration (so it is no running sum)."""
    for op in loop.body:
        if not isinstance(op, OpNode) or op.op == "gemm":
            continue
        if any(w.buffer == region.buffer for w in op.writes) and all(
            r.buffer != region.buffer for r in op.reads
        ):
            return True
    return False


def lower(ir: KernelIR, hw: HardwareProfile) -> TilePlan:
    """The TilePlan of a walked TileLang kernel on ``hw``."""
    low = _Lowering(ir, hw)
    body = low.body(ir.body, 0)
    grid = low.grid()
    tensors = low.tensor_accesses()
    resources = low.resources()
    if resources.spill_bytes_per_thread:
        resources = dataclasses.replace(resources, spill_openers=low.spill_openers(body))
    return TilePlan(
        name=ir.name,
        grid=grid,
        tensors=tensors,
        body=body,
        resources=resources,
        source="tilelang",
        notes=tuple(dict.fromkeys((*ir.notes, *low.notes))),
    )
