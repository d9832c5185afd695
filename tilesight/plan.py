"""The tile execution plan (paper section 3.1, Table 2) as frozen, validated value objects.

A :class:`TilePlan` is the only thing frontends produce and the only thing the core consumes. It holds

* the tile grid and its launch order (row-major, grouped/swizzled, explicit, persistent programs),
* the tensor accesses (footprint per tile, dtype, placement level, reuse dimensions),
* the per-tile program: tile actions and loops (trip counts, software-pipeline stages, reduction axis),
  with explicit dependencies between siblings, forming the tile-action DAG of each body,
* the per-block resources that bound occupancy (threads, shared memory, registers).

Users may write a plan by hand for a kernel no frontend reads; every field is checked on construction and a
bad value raises :class:`~tilesight.errors.PlanError` naming the field and the value.
"""

from __future__ import annotations

import functools
import hashlib
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TypeVar

import networkx as nx
import numpy as np

from .dtypes import canonical_dtype, dtype_bytes
from .errors import PlanError


class Pipeline(StrEnum):
    """The nine independently schedulable pipelines of the resource vector (paper Eq. 1)."""

    TC = "tc"
    CUDA = "cuda"
    SFU = "sfu"
    TMEM = "tmem"
    SMEM = "smem"
    L1_5 = "l1.5"
    L2 = "l2"
    DDR = "ddr"
    NET = "net"


PIPELINES: tuple[Pipeline, ...] = tuple(Pipeline)
MEMORY_PIPELINES: frozenset[Pipeline] = frozenset({Pipeline.L1_5, Pipeline.L2, Pipeline.DDR, Pipeline.NET})
COMPUTE_PIPELINES: frozenset[Pipeline] = frozenset({Pipeline.TC, Pipeline.CUDA, Pipeline.SFU})


class MemLevel(StrEnum):
    """Placement levels: where a tensor tile is produced or resides."""

    REG = "reg"
    TMEM = "tmem"
    SMEM = "smem"
    L1_5 = "l1.5"
    L2 = "l2"
    DDR = "ddr"
    REMOTE = "remote"


SCRATCHPAD_LEVELS: frozenset[MemLevel] = frozenset({MemLevel.REG, MemLevel.TMEM, MemLevel.SMEM})

# TileAction.variant of a LOAD the block's threads issue as plain global loads and wait for (Triton's loop
# loads it could not make asynchronous copies, TileLang's copies in loops it does not software-pipeline).
SYNC_LOAD = "sync"
# TileAction.variant of a LOAD that is an asynchronous copy into shared memory of one element per thread and
# instruction (a 4-byte cp.async): Triton's copy of a tile into a shared layout stored along another axis
# than the global one (a row-major B operand of a TF32 dot, which wgmma reads K-major only).
ELEMENT_ASYNC_COPY = "async_element"
# TileAction.variant of a LOAD that is an asynchronous copy into shared memory of less than 16 bytes a thread
# but more than one element (an 8-byte cp.async: a tile too small for 16 bytes a thread, 32 x 32 on 8 warps).
# Only 16-byte copies may bypass L1 (``cp.async.cg``): a narrower one is ``cp.async.ca``, whose shared-memory
# write the SM's L1 data stage takes (4 wavefronts a warp instruction, 2 of them bank conflicts, where a
# 16-byte copy's write does not pass through that stage).
NARROW_ASYNC_COPY = "async_narrow"
# TileAction.variant of an atomic STORE issued as relaxed vector reductions of ``vector_bytes`` a thread and
# instruction (TileLang's AtomicAddx2 / AtomicAddx4); without it an atomic store is one returning atomic per
# element (Triton's ``tl.atomic_add``: ``atom.global.acq_rel.add``).
VECTOR_REDUCTION = "red"
# TileAction.variant of an atomic STORE whose lanes' addresses come from data the kernel loaded, lane by lane
# (a bincount's ``tl.atomic_add(cnt + v, 1)``, a scatter-add through a per-element index): each lane's
# element is its own read-modify-write at the L2, where lanes of one instruction that land in one 32-byte
# sector share one; without it an atomic's lanes are contiguous, a sector's elements added together.
SCATTER_ATOMIC = "scatter"
# TileAction.variant of a LOAD through a tensor descriptor (Triton's ``tt.descriptor_load``: one thread's TMA
# copy, the block's warps meeting at CTA barriers around it each step)
DESCRIPTOR_LOAD = "descriptor"


class GroupSplit(StrEnum):
    """How a block's compute groups divide its tile (``BlockResources.group_split``)."""

    ROWS = "rows"
    COLUMNS = "columns"


class LaunchOrder(StrEnum):
    """How launch index maps to tile coordinates.

    * ``ROW_MAJOR``: the last grid dimension varies fastest (Triton's ``pid_m = pid // num_pid_n``).
    * ``COLUMN_MAJOR``: the first grid dimension varies fastest (CUDA's x-fastest multi-dimensional grid).
    * ``GROUPED``: Triton's GROUP_M swizzle over the first two dimensions: ``group_size`` rows of the first
      dimension are walked column by column before moving to the next group.
    * ``EXPLICIT``: ``TileGrid.sequence`` lists the tile coordinate of every launch index (frontends that
      evaluate a kernel's program-id map produce this).
    """

    ROW_MAJOR = "row_major"
    COLUMN_MAJOR = "column_major"
    GROUPED = "grouped"
    EXPLICIT = "explicit"


class AccessMode(StrEnum):
    READ = "read"
    WRITE = "write"
    READ_WRITE = "read_write"
    ATOMIC = "atomic"


class ActionKind(StrEnum):
    """Tile actions (paper Table 2, "Operation type")."""

    LOAD = "load"  # global/remote -> scratchpad
    STORE = "store"  # scratchpad -> global
    DOT = "dot"  # tensor-core matmul
    ELEMENTWISE = "elementwise"  # CUDA-core arithmetic (incl. CUDA-core matmul, rescaling)
    SFU = "sfu"  # exp / exp2 / rsqrt / log / sin ...
    REDUCE = "reduce"  # reductions across a tile axis (CUDA cores + shuffles / shared memory)
    REMOTE = "remote"  # cross-device transfer


MEMORY_KINDS = frozenset({ActionKind.LOAD, ActionKind.STORE, ActionKind.REMOTE})


_E = TypeVar("_E", bound=StrEnum)


def _member(fieldname: str, value: object, kind: type[_E]) -> _E:
    """``value`` as a member of the enumeration ``kind`` (a member or its value), or a PlanError naming the
    field and the values it may take."""
    try:
        return kind(value)
    except ValueError:
        allowed = ", ".join(str(m.value) for m in kind)
        raise PlanError(fieldname, value, f"unknown; one of {allowed}") from None


def _positive_int(fieldname: str, value: object, *, allow_zero: bool = False) -> None:
    ok = isinstance(value, int | np.integer) and not isinstance(value, bool)
    if not ok or value < (0 if allow_zero else 1):
        bound = ">= 0" if allow_zero else ">= 1"
        raise PlanError(fieldname, value, f"must be an integer {bound}")


def _int_tuple(fieldname: str, values: object, *, allow_zero: bool = False) -> tuple[int, ...]:
    try:
        items = tuple(values)  # type: ignore[arg-type]
    except TypeError:
        raise PlanError(fieldname, values, "must be a sequence of integers") from None
    for i, v in enumerate(items):
        _positive_int(f"{fieldname}[{i}]", v, allow_zero=allow_zero)
    return tuple(int(v) for v in items)


def _rereads(fieldname: str, values: object) -> tuple[tuple[int, float], ...]:
    """``(gap, share)`` pairs checked (see :class:`TileAction`): gaps positive and distinct, shares in
    (0, 1] summing to at most 1."""
    try:
        pairs = tuple((g, s) for g, s in values)  # type: ignore[union-attr]
    except (TypeError, ValueError):
        raise PlanError(fieldname, values, "must be a sequence of (gap, share) pairs") from None
    for i, (gap, share) in enumerate(pairs):
        _positive_int(f"{fieldname}[{i}].gap", gap)
        if not (isinstance(share, int | float) and 0.0 < share <= 1.0):
            raise PlanError(f"{fieldname}[{i}].share", share, "must be a number in (0, 1]")
    if len({g for g, _ in pairs}) != len(pairs):
        raise PlanError(fieldname, values, "each gap at most once")
    if sum(s for _, s in pairs) > 1.0 + 1e-9:
        raise PlanError(fieldname, values, "the shares sum to more than 1")
    return tuple(sorted((int(g), float(s)) for g, s in pairs))


@dataclass(frozen=True)
class TileGrid:
    """The tile grid: tiles per dimension, their names, and the launch order.

    ``programs`` is the number of blocks launched. When it is smaller than the tile count the kernel is
    persistent: program ``p`` processes launch indices ``p, p + programs, p + 2 * programs, ...``, and
    ``tiles_in_flight`` of them at a time (a software-pipelined row loop loads the next rows while it computes
    one; 1: one tile after another).
    """

    shape: tuple[int, ...]
    dims: tuple[str, ...] = ()
    order: LaunchOrder = LaunchOrder.ROW_MAJOR
    group_size: int = 1
    programs: int | None = None
    sequence: np.ndarray | None = field(default=None, compare=False, repr=False)
    tiles_in_flight: int = 1
    sequence_digest: str = field(default="", init=False)

    def __post_init__(self) -> None:
        shape = _int_tuple("grid.shape", self.shape)
        if not shape:
            raise PlanError("grid.shape", self.shape, "needs at least one dimension")
        object.__setattr__(self, "shape", shape)
        dims = tuple(self.dims) if self.dims else ("x", "y", "z", "w", "v", "u")[: len(shape)]
        if len(dims) != len(shape):
            raise PlanError("grid.dims", self.dims, f"needs one name per grid dimension ({len(shape)})")
        if len(set(dims)) != len(dims):
            raise PlanError("grid.dims", self.dims, "names must be distinct")
        object.__setattr__(self, "dims", dims)
        object.__setattr__(self, "order", _member("grid.order", self.order, LaunchOrder))
        _positive_int("grid.group_size", self.group_size)
        if self.order is LaunchOrder.GROUPED and len(shape) < 2:
            raise PlanError(
                "grid.order", self.order.value, "grouped order needs a grid of two or more dimensions"
            )
        if self.programs is not None:
            _positive_int("grid.programs", self.programs)
        _positive_int("grid.tiles_in_flight", self.tiles_in_flight)
        if self.order is LaunchOrder.EXPLICIT:
            if self.sequence is None:
                raise PlanError("grid.sequence", None, "explicit launch order needs the tile sequence")
            seq = np.ascontiguousarray(np.asarray(self.sequence, dtype=np.int64))
            if seq.ndim != 2 or seq.shape[1] != len(shape):
                raise PlanError(
                    "grid.sequence", seq.shape, f"must be (launches, {len(shape)}) tile coordinates"
                )
            if seq.size and (seq.min() < 0 or np.any(seq.max(axis=0) >= np.asarray(shape))):
                raise PlanError("grid.sequence", "coordinates", f"fall outside the grid {shape}")
            seq.setflags(write=False)
            object.__setattr__(self, "sequence", seq)
            object.__setattr__(
                self, "sequence_digest", hashlib.blake2b(seq.tobytes(), digest_size=12).hexdigest()
            )
        elif self.sequence is not None:
            raise PlanError(
                "grid.sequence", "given", f"only valid with order='explicit', not {self.order.value!r}"
            )

    @property
    def tiles(self) -> int:
        """Tiles (launch indices) in the grid; for an explicit order, the length of its sequence."""
        if self.order is LaunchOrder.EXPLICIT and self.sequence is not None:
            return int(self.sequence.shape[0])
        return math.prod(self.shape)

    @property
    def blocks(self) -> int:
        """Blocks launched: ``programs`` for a persistent kernel, else one per tile."""
        return min(self.programs, self.tiles) if self.programs is not None else self.tiles

    @property
    def persistent(self) -> bool:
        return self.programs is not None and self.programs < self.tiles

    def coordinates(self) -> np.ndarray:
        """Tile coordinates in launch order, shape (tiles, ndim): the sequence the cache model walks."""
        shape = self.shape
        n = math.prod(shape)
        if self.order is LaunchOrder.EXPLICIT:
            assert self.sequence is not None
            return self.sequence
        idx = np.arange(n, dtype=np.int64)
        if self.order is LaunchOrder.ROW_MAJOR:
            return np.stack(np.unravel_index(idx, shape, order="C"), axis=1)
        if self.order is LaunchOrder.COLUMN_MAJOR:
            return np.stack(np.unravel_index(idx, shape, order="F"), axis=1)
        # GROUPED over the first two dims (Triton GROUP_M); remaining dims vary slowest, in row-major order.
        m, nn = shape[0], shape[1]
        per_plane = m * nn
        plane, pid = np.divmod(idx, per_plane)
        in_group = self.group_size * nn
        group_id = pid // in_group
        first_m = group_id * self.group_size
        group_m = np.minimum(m - first_m, self.group_size)
        local = pid % in_group
        pm = first_m + local % group_m
        pn = local // group_m
        if len(shape) == 2:
            return np.stack([pm, pn], axis=1)
        rest = np.stack(np.unravel_index(plane, shape[2:], order="C"), axis=1)
        return np.concatenate([np.stack([pm, pn], axis=1), rest], axis=1)


@dataclass(frozen=True)
class TensorAccess:
    """One tensor as the tile grid touches it.

    ``tile`` is the block of elements one access of one tile moves (the per-tile footprint), ``reuse_dims``
    the grid dimensions along which tiles touch the same block (for a GEMM's A: the N-tile dimension),
    ``level`` where the tensor resides. ``masked`` says the kernel masks the access, so a tile may overhang
    the tensor; ``indirect`` marks data-dependent addressing (gathers through an index tensor). How many
    times one tile accesses the tensor is derived from the loops around the actions that move it
    (:meth:`TilePlan.access_count`). ``run_bytes``: the contiguous bytes an access's rows span in memory where
    the frontend knows better than the tile's own extents (regions of one tensor the tile reads side by side,
    as a rotary embedding's two halves: together they are whole lines); None to derive them from the tile.

    ``block_keys``: where the block a tile touches is chosen by data the kernel reads (a MoE block's expert
    id, known from the caller's index tensor), the key of that block for every tile of the grid, row-major
    over ``grid.shape``: tiles with equal keys touch the same block (the cache model's reuse key, in place of
    the projection on the dims outside ``reuse_dims``). None: the key follows ``reuse_dims``.
    """

    name: str
    dtype: str
    shape: tuple[int, ...]
    tile: tuple[int, ...]
    mode: AccessMode = AccessMode.READ
    reuse_dims: frozenset[str] = frozenset()
    level: MemLevel = MemLevel.DDR
    masked: bool = False
    indirect: bool = False
    run_bytes: int | None = None
    block_keys: np.ndarray | None = field(default=None, compare=False, repr=False)
    block_keys_digest: str = field(default="", init=False)

    def __post_init__(self) -> None:
        if not self.name:
            raise PlanError("tensor.name", self.name, "must be a non-empty string")
        if self.block_keys is not None:
            keys = np.ascontiguousarray(np.asarray(self.block_keys))
            if keys.ndim != 1 or keys.dtype.kind not in "iu" or (keys.size and keys.min() < 0):
                raise PlanError(
                    f"tensor[{self.name}].block_keys",
                    f"{keys.dtype}{list(keys.shape)}",
                    "must be one non-negative integer key per tile of the grid",
                )
            # ranks of the distinct keys: the same equalities, in a table as small as their count
            keys = np.unique(keys, return_inverse=True)[1].astype(np.int64).reshape(-1)
            keys.setflags(write=False)
            object.__setattr__(self, "block_keys", keys)
            object.__setattr__(
                self, "block_keys_digest", hashlib.blake2b(keys.tobytes(), digest_size=12).hexdigest()
            )
        if self.run_bytes is not None:
            _positive_int(f"tensor[{self.name}].run_bytes", self.run_bytes)
        object.__setattr__(self, "dtype", canonical_dtype(self.dtype))
        shape = _int_tuple(f"tensor[{self.name}].shape", self.shape)
        tile = _int_tuple(f"tensor[{self.name}].tile", self.tile)
        if len(tile) != len(shape):
            raise PlanError(f"tensor[{self.name}].tile", tile, f"must have one extent per tensor dim {shape}")
        if not self.masked:
            for i, (t, s) in enumerate(zip(tile, shape, strict=True)):
                if t > s:
                    raise PlanError(
                        f"tensor[{self.name}].tile[{i}]",
                        t,
                        f"exceeds the tensor's extent {s} and the access is not masked",
                    )
        object.__setattr__(self, "shape", shape)
        object.__setattr__(self, "tile", tile)
        object.__setattr__(self, "reuse_dims", frozenset(self.reuse_dims))
        object.__setattr__(self, "mode", AccessMode(self.mode))
        object.__setattr__(self, "level", MemLevel(self.level))

    @property
    def tile_bytes(self) -> float:
        """Bytes one access of one tile moves."""
        return math.prod(self.tile) * dtype_bytes(self.dtype)

    @property
    def tensor_bytes(self) -> float:
        return math.prod(self.shape) * dtype_bytes(self.dtype)


@dataclass(frozen=True)
class SerialChain:
    """An element-wise action whose vector iterations run one after another in each thread.

    Each thread runs ``iterations`` vector iterations of ``lanes`` elements: load from shared memory, ``alu``
    dependent arithmetic operations and ``cvt`` dependent numeric conversions (integer <-> floating point,
    float width changes), store to shared memory. Where the compiler cannot tell a later iteration's load
    from an earlier iteration's store (both in one shared-memory allocation, at different per-thread strides),
    it keeps them in order, so the loop takes the iterations' dependent chains back to back however many
    warps share the scheduler. ``packed_alu``: the arithmetic works on 16-bit floats, two lanes per
    instruction (otherwise one 32-bit lane per instruction); ``packed_cvt``: the conversions take two lanes
    per instruction (fp8 pairs to half2, on the integer ALU); ``narrow_cvt``: they start from 8- or 16-bit
    integers, two instructions a lane. ``feeds_dot``: a tensor-core dot of the same loop step reads the
    buffer the chain writes, so the step also fences the memory proxies and synchronises the warps between
    the two. ``shuffles``: dependent warp shuffle steps per iteration (a shuffle and the op that combines
    its result; a warp scan's segment has log2(32) of them, and one to pass its carry on). ``cross_warps``:
    the warps each iteration's shuffle tree then combines through shared memory behind a barrier (a
    block-wide all-reduce, one an iteration: TileLang's ``T.finalize_reducer``); 0 for a tree within a warp.
    """

    iterations: int
    lanes: int
    alu: int
    cvt: int
    packed_alu: bool = False
    feeds_dot: bool = False
    packed_cvt: bool = False
    narrow_cvt: bool = False
    shuffles: int = 0
    cross_warps: int = 0

    def __post_init__(self) -> None:
        _positive_int("chain.iterations", self.iterations)
        _positive_int("chain.lanes", self.lanes)
        _positive_int("chain.alu", self.alu, allow_zero=True)
        _positive_int("chain.cvt", self.cvt, allow_zero=True)
        _positive_int("chain.shuffles", self.shuffles, allow_zero=True)
        _positive_int("chain.cross_warps", self.cross_warps, allow_zero=True)


@dataclass(frozen=True)
class ScanCarry:
    """The carry chain of a prefix scan (a REDUCE action that scans) whose axis spans several warps.

    Triton lowers such a scan to per-thread and per-warp prefixes, then every thread reads the axis's chunk
    totals (one per warp-local chunk: the lanes and registers of one warp along the axis) from shared memory
    one after another, combining each into its running carry: ``steps`` chunk totals a scan, for each of the
    ``lines`` scan lines a thread holds (a ``[L, D]`` tile scanned along L with each thread on several columns
    has several), each combining ``operands`` values (2 for a linear recurrence's ``(a, x)`` pairs). The
    scan_chain probe times such a scan as ``steps x lines x operands`` dependent loads and combines, each at
    least a latency (the profile's ``scan_carry_latency_s``) and an issue slot time on its warp's scheduler
    (``scan_carry_issue_s``), whatever the split between steps and lines.
    """

    steps: int
    lines: int = 1
    operands: int = 1

    @property
    def loads(self) -> int:
        """Chunk totals a thread loads and combines one after another: ``steps x lines x operands``."""
        return self.steps * self.lines * self.operands

    def __post_init__(self) -> None:
        _positive_int("scan.steps", self.steps)
        _positive_int("scan.lines", self.lines)
        _positive_int("scan.operands", self.operands)


@dataclass(frozen=True)
class TileAction:
    """One node of a tile-action DAG.

    * LOAD / STORE / REMOTE move ``tensor`` (a :class:`TensorAccess` name) between its level and ``dst`` /
      ``src`` (the scratchpad level: registers, shared memory or TMEM).
    * DOT is a tensor-core matmul of ``shape = (m, n, k)`` on ``dtype`` operands read from ``src``;
      ``variant`` names the instruction family where the rate differs (``"wgmma"``, ``"mma"``).
    * A LOAD whose ``variant`` is :data:`SYNC_LOAD` is issued by the block's own threads as plain global loads
      that they wait for (not an asynchronous copy a pipeline runs ahead), one whose ``variant`` is
      :data:`ELEMENT_ASYNC_COPY` is an asynchronous copy of one element per instruction, one whose ``variant``
      is :data:`NARROW_ASYNC_COPY` one of less than 16 bytes a thread through L1; an atomic STORE
      whose ``variant`` is :data:`VECTOR_REDUCTION` adds ``vector_bytes`` per instruction.
    * ELEMENTWISE / SFU / REDUCE count ``flops`` element operations of that class per occurrence; of an
      ELEMENTWISE action's, ``alu_ops`` are compares, selects, minimums, maximums and bitwise logic, which
      issue on the SM's integer / logic units at the profile's ``alu_op_cost`` times the slot of a
      floating-point add, multiply or fused multiply-add, and ``routine_ops`` are the instructions of a
      straight-line math routine (libdevice's ``erf``, ``tanh``, ``log``: its SASS count), which issue at the
      profile's ``cuda_routine_flops_per_s`` where it gives one.

    ``smem_bytes`` optionally states the shared-memory traffic of one occurrence exactly (frontends that know
    the layout); otherwise it is derived from the operands. ``vector_bytes`` is what one thread moves per
    memory instruction for a LOAD / STORE (16 for fully vectorised accesses; an unaligned row stride forces
    element-wide ones); None means fully vectorised. On a DOT it says the warps fetch their operand
    fragments from shared memory with load instructions of that many bytes per thread (warp-level ``mma``
    reads them with ``ldmatrix``: 16); those ``smem_bytes`` then also cost load/store-unit issue slots.
    ``lane_stride_bytes`` (LOAD / STORE): how far apart neighbouring lanes' accesses lie where that exceeds
    ``vector_bytes`` (a mask that splits each thread's 16-byte vector into element-wide accesses leaves the
    lanes 16 bytes apart); None where the lanes' accesses are contiguous. A store narrower than a 4-byte word
    with its lanes apart writes part of every word it touches, which the L2 merges sector by sector.
    ``mma_n`` (DOT): the N of one tensor-core instruction (a warpgroup MMA covers 64 rows and up to 256
    columns of its warpgroup's share): narrow instructions (16, 32) run below the tensor cores' rate (the
    profile's ``[wgmma_n_efficiency]``); None for the rate as calibrated. ``mma_a_registers`` (DOT): the
    instructions take their A operand from the warps' registers (attention's ``P V``: P is the softmax's
    result), not from shared memory; their narrow-N rate is the profile's ``[wgmma_n_efficiency_registers]``,
    not ``[wgmma_n_efficiency]``, which is of instructions that read A from shared memory (see
    :func:`tilesight.model.resources.narrow_mma_rate`).
    ``warps`` (REDUCE): how many warps the reduced axis spans; above one the warps' partial results meet in
    shared memory behind a barrier, a latency the profile's ``[cross_warp_reduction]`` table gives.
    ``outputs`` (REDUCE): the values one occurrence reduces to (a row reduction of an [R, C] tile along C has
    R); a cross-warp reduction to one value also keeps the SM's load/store path busy for its shuffles,
    exchange and barriers, the profile's ``[cross_warp_reduction_sm]``.
    ``reverse`` (LOAD): the enclosing loop walks the tensor's blocks backwards (``(n - 1 - k) * BLOCK``: a
    second pass over a row that starts where the first ended, so its first blocks are the ones read last); it
    matters where an earlier read of the same blocks in the program makes them re-reads.
    ``rereads`` (LOAD): ``(gap, share)`` pairs: ``share`` of the bytes each occurrence of the load moves were
    moved by the same tile's occurrence ``gap`` occurrences earlier (a convolution's taps: the next filter
    column reads the input pixels of the previous one, shifted by one); the cache model gives that share the
    hit probability of what the tile's wave reads in between. Shares sum to at most 1; the occurrences
    before ``gap`` have no such earlier read. ``fresh_steps`` (LOAD with ``rereads``): the share of its
    occurrences that move any byte not re-read so (1: every one), where all its first reads sit: a
    convolution over whole-row tiles reads new input pixels only in its first filter row's steps.
    ``chain`` (ELEMENTWISE): the action's vector iterations run back to back in each thread
    (:class:`SerialChain`); their dependent latency is then a floor under its duration.
    ``scan`` (REDUCE): the action is a prefix scan whose carries cross warps (:class:`ScanCarry`).
    ``deps`` name sibling nodes (actions or loops in the same body) that must finish first.
    """

    name: str
    kind: ActionKind
    tensor: str | None = None
    dtype: str | None = None
    shape: tuple[int, ...] = ()
    flops: float = 0.0
    src: MemLevel = MemLevel.REG
    dst: MemLevel = MemLevel.REG
    deps: tuple[str, ...] = ()
    variant: str | None = None
    smem_bytes: float | None = None
    location: str | None = None
    vector_bytes: int | None = None
    lane_stride_bytes: int | None = None
    warps: int | None = None
    chain: SerialChain | None = None
    mma_n: int | None = None
    mma_a_registers: bool = False
    reverse: bool = False
    alu_ops: float = 0.0
    routine_ops: float = 0.0
    rereads: tuple[tuple[int, float], ...] = ()
    fresh_steps: float = 1.0
    outputs: int = 1
    scan: ScanCarry | None = None

    def __post_init__(self) -> None:
        if not self.name:
            raise PlanError("action.name", self.name, "must be a non-empty string")
        object.__setattr__(self, "rereads", _rereads(f"action[{self.name}].rereads", self.rereads))
        if self.vector_bytes is not None:
            _positive_int(f"action[{self.name}].vector_bytes", self.vector_bytes)
        if self.warps is not None:
            _positive_int(f"action[{self.name}].warps", self.warps)
        object.__setattr__(self, "kind", _member(f"action[{self.name}].kind", self.kind, ActionKind))
        if self.lane_stride_bytes is not None:
            where = f"action[{self.name}].lane_stride_bytes"
            _positive_int(where, self.lane_stride_bytes)
            if self.kind not in (ActionKind.LOAD, ActionKind.STORE) or not self.vector_bytes:
                raise PlanError(where, self.lane_stride_bytes, "only on a load or store with vector_bytes")
            if self.lane_stride_bytes <= self.vector_bytes:
                must = f"must exceed vector_bytes={self.vector_bytes} (or be None)"
                raise PlanError(where, self.lane_stride_bytes, must)
        if self.chain is not None and (
            not isinstance(self.chain, SerialChain) or self.kind is not ActionKind.ELEMENTWISE
        ):
            raise PlanError(
                f"action[{self.name}].chain", self.chain, "a SerialChain, on an elementwise action only"
            )
        object.__setattr__(self, "src", MemLevel(self.src))
        object.__setattr__(self, "dst", MemLevel(self.dst))
        object.__setattr__(self, "deps", tuple(self.deps))
        object.__setattr__(self, "shape", _int_tuple(f"action[{self.name}].shape", self.shape))
        if self.dtype is not None:
            object.__setattr__(self, "dtype", canonical_dtype(self.dtype))
        if self.kind in MEMORY_KINDS and not self.tensor:
            raise PlanError(
                f"action[{self.name}].tensor", self.tensor, f"a {self.kind.value} action names its tensor"
            )
        if self.kind is ActionKind.DOT:
            if len(self.shape) != 3:
                raise PlanError(f"action[{self.name}].shape", self.shape, "a dot needs (m, n, k)")
            if self.dtype is None:
                raise PlanError(f"action[{self.name}].dtype", None, "a dot needs its operand dtype")
            if not self.flops:
                m, n, k = self.shape
                object.__setattr__(self, "flops", 2.0 * m * n * k)
        if not (isinstance(self.flops, int | float) and math.isfinite(self.flops) and self.flops >= 0):
            raise PlanError(f"action[{self.name}].flops", self.flops, "must be a finite number >= 0")
        if not (isinstance(self.alu_ops, int | float) and 0 <= self.alu_ops <= self.flops):
            raise PlanError(
                f"action[{self.name}].alu_ops", self.alu_ops, f"must be a number in [0, flops={self.flops}]"
            )
        room = self.flops - self.alu_ops
        if not (isinstance(self.routine_ops, int | float) and 0 <= self.routine_ops <= room):
            raise PlanError(
                f"action[{self.name}].routine_ops",
                self.routine_ops,
                f"must be a number in [0, flops - alu_ops = {room}]",
            )
        if self.smem_bytes is not None and not (self.smem_bytes >= 0):
            raise PlanError(f"action[{self.name}].smem_bytes", self.smem_bytes, "must be >= 0")
        if self.mma_n is not None and not (isinstance(self.mma_n, int) and self.mma_n > 0):
            raise PlanError(f"action[{self.name}].mma_n", self.mma_n, "must be a positive integer")
        if self.mma_a_registers and self.kind is not ActionKind.DOT:
            raise PlanError(f"action[{self.name}].mma_a_registers", True, "only a dot takes an MMA operand")
        if self.rereads and self.kind is not ActionKind.LOAD:
            where = f"action[{self.name}].rereads"
            raise PlanError(where, self.rereads, "only a load re-reads its own blocks")
        where = f"action[{self.name}].fresh_steps"
        if not (isinstance(self.fresh_steps, int | float) and 0.0 < self.fresh_steps <= 1.0):
            raise PlanError(where, self.fresh_steps, "must be a number in (0, 1]")
        if self.fresh_steps < 1.0 and not self.rereads:
            raise PlanError(where, self.fresh_steps, "below 1 only for a load with rereads")
        _positive_int(f"action[{self.name}].outputs", self.outputs)
        if self.scan is not None and (
            not isinstance(self.scan, ScanCarry) or self.kind is not ActionKind.REDUCE
        ):
            raise PlanError(f"action[{self.name}].scan", self.scan, "a ScanCarry, on a reduce action only")
        if self.outputs != 1 and self.kind is not ActionKind.REDUCE:
            raise PlanError(f"action[{self.name}].outputs", self.outputs, "only a reduction has outputs")


@dataclass(frozen=True)
class Loop:
    """A loop in the per-tile program: ``trips`` iterations of ``body``, software-pipelined over ``stages``.

    ``reduction`` marks the reduction axis (a GEMM's K loop): the cache model samples reuse along it.
    ``mean_trips``: where the trip count differs between programs (causal attention's key loop runs
    ``q_block + 1`` times), its mean over the grid; the engine's time and work use it, while ``trips`` (its
    rounded value) names the blocks the cache model walks. None when every program runs ``trips``.
    ``trips_by_program``: for such a loop at the top of the tile program, every program's trip count in launch
    order (the engine schedules the unequal blocks over the SMs' slots: the last, long blocks of a causal
    kernel end after the mean-length ones would). None when not known.
    ``producer_loads``: the loop's global loads are issued by a producer warpgroup (warp specialisation),
    which refills a buffer as soon as the iteration's last consumer of it is done, not in program order.
    ``refill_after_compute``: the warps issue a later iteration's loads only after this iteration's compute
    (Triton's software pipeliner waits for the iteration's tiles, issues its dots and CUDA-core work, then
    the copies ``stages - 1`` iterations ahead), not at the iteration's start; the engine then counts the
    compute before them in the time those loads have to arrive (:func:`tilesight.model.tile.refill_span_s`).
    ``unroll``: iterations of an unpipelined loop whose loads the compiler issues together (ptxas unrolls a
    small loop and hoists the unrolled iterations' loads to the top); the engine overlaps that many
    iterations' loads, as software pipelining over as many stages would. 1: one iteration's at a time.
    ``waits_sync_loads``: a software-pipelined loop whose :data:`SYNC_LOAD` loads the pipeliner left in the
    iteration that uses them (Triton copies a GEMM's aligned operand ``stages - 1`` iterations ahead but
    loads one whose row stride it cannot prove 16-byte aligned with plain loads in the body): every
    iteration waits for them before its compute, whatever the stages (the engine puts their latency on the
    iteration's chain).
    ``reload_waits``, ``stored_reload_waits``: how many times a warp of the loop waits, in one iteration, for
    a register-spill reload from local memory, of a slot the loop only reads (a spilled address) and of one
    it also stores to (its changing state); read off the compiled kernel (``frontends/triton/sass.py``). The
    engine puts each wait's latency on the iteration's chain: from where the resident frames live for the
    first, from L2 for the second (:func:`tilesight.model.resources.reload_latency_s`). 0 where the kernel
    does not spill or its code was not read.
    """

    name: str
    trips: int
    body: tuple[Node, ...]
    stages: int = 1
    reduction: bool = False
    deps: tuple[str, ...] = ()
    location: str | None = None
    mean_trips: float | None = None
    trips_by_program: tuple[int, ...] | None = None
    producer_loads: bool = False
    refill_after_compute: bool = False
    unroll: int = 1
    waits_sync_loads: bool = False
    reload_waits: int = 0
    stored_reload_waits: int = 0

    @property
    def work_trips(self) -> float:
        """Iterations one program runs on average: ``mean_trips`` where given, else ``trips``."""
        return self.trips if self.mean_trips is None else self.mean_trips

    @property
    def ahead(self) -> int:
        """Iterations whose loads are in flight beyond the current one's: ``stages - 1`` of software
        pipelining and ``unroll - 1`` of loads an unrolled loop issues together."""
        return self.stages - 1 + self.unroll - 1

    def __post_init__(self) -> None:
        if not self.name:
            raise PlanError("loop.name", self.name, "must be a non-empty string")
        if isinstance(self.trips, bool) or not isinstance(self.trips, int | np.integer) or self.trips < 0:
            raise PlanError(f"loop[{self.name}].trips", self.trips, "trip count must be an integer >= 0")
        object.__setattr__(self, "trips", int(self.trips))
        if self.mean_trips is not None:
            if isinstance(self.mean_trips, bool) or not (
                isinstance(self.mean_trips, int | float | np.number) and 0 <= self.mean_trips < math.inf
            ):
                raise PlanError(
                    f"loop[{self.name}].mean_trips", self.mean_trips, "must be a finite number >= 0 or None"
                )
            object.__setattr__(self, "mean_trips", float(self.mean_trips))
        if self.trips_by_program is not None:
            seq = tuple(map(int, self.trips_by_program))
            if not seq or min(seq) < 0:
                raise PlanError(
                    f"loop[{self.name}].trips_by_program", len(seq), "must be non-empty, all >= 0"
                )
            object.__setattr__(self, "trips_by_program", seq)
        _positive_int(f"loop[{self.name}].stages", self.stages)
        _positive_int(f"loop[{self.name}].unroll", self.unroll)
        for field_name in ("reload_waits", "stored_reload_waits"):
            value = getattr(self, field_name)
            _positive_int(f"loop[{self.name}].{field_name}", value, allow_zero=True)
            object.__setattr__(self, field_name, int(value))
        object.__setattr__(self, "body", tuple(self.body))
        object.__setattr__(self, "deps", tuple(self.deps))


Node = TileAction | Loop


def walked_trips(mean: float) -> int:
    """The trip count (:attr:`Loop.trips`) the cache model walks for a loop whose programs run ``mean``
    iterations on average (:attr:`Loop.mean_trips`): the mean rounded to the nearest integer, and at least
    one where any program runs the loop at all. (A loop only some programs enter, a causal kernel's first
    query blocks' off-diagonal loop at a short sequence, would round to no trips: the cache model would then
    see none of the blocks the programs that do enter it read.)"""
    if not mean > 0:
        return 0
    return max(1, math.floor(mean + 0.5))


@dataclass(frozen=True)
class BlockResources:
    """Per-block resources that bound how many blocks reside on one SM.

    ``compute_groups``: groups of warps that run the tile's compute independently, each on its own rows
    (a warp-specialised kernel's consumer warpgroups, synchronised only through the producer's barriers):
    the in-order compute chain of a loop iteration is shared between them. 1 when the block's warps move in
    step (Triton's CTA-wide barrier at every pipelined iteration). ``group_split``: ``"rows"`` where each
    group owns rows of the tile (FlashAttention's consumer warpgroups, each on its own queries),
    ``"columns"`` where the groups share the tile's rows and each owns columns of them (TileLang's
    ``warp_partition`` of a 128 x 256 GEMM tile: 4 x 2 warps, two warpgroups on the two halves of N).

    ``spill_bytes_per_thread``: the local-memory frame register spills give a thread (the block's spilled
    bytes over its threads). ``spill_invariant_bytes``: how much of that frame holds state the loop does not
    change (reloaded each pass, never stored back); None for the engine's default
    (:data:`tilesight.model.resources.SPILLABLE_STATE_BYTES`: ptxas spills a Triton GEMM's addresses and
    bounds first). A frame of accumulators that every iteration updates has 0. ``spill_openers``: the
    actions around which the frame is reloaded and stored, once each time they run (a promoted accumulator
    that only its promotion touches); None for the engine's default (around every dot; in a plan without
    dots, at the first compute action of each pass over the tile). ``spill_pass_bytes``: the bytes a thread
    moves to and from its frame in one such pass where the machine code says so (the Triton frontend reads
    a spilled kernel's SASS: the distinct frame bytes its K loop reloads and stores an iteration, over the
    loop's dots); None for the engine's rule (the frame reloaded, its changing part stored back).
    """

    threads: int
    smem_bytes: int = 0
    regs_per_thread: int | None = None
    spill_bytes_per_thread: int = 0
    compute_groups: int = 1
    spill_invariant_bytes: int | None = None
    spill_openers: tuple[str, ...] | None = None
    group_split: GroupSplit = GroupSplit.ROWS
    spill_pass_bytes: int | None = None

    def __post_init__(self) -> None:
        _positive_int("resources.threads", self.threads)
        _positive_int("resources.compute_groups", self.compute_groups)
        object.__setattr__(
            self, "group_split", _member("resources.group_split", self.group_split, GroupSplit)
        )
        _positive_int("resources.smem_bytes", self.smem_bytes, allow_zero=True)
        if self.regs_per_thread is not None:
            _positive_int("resources.regs_per_thread", self.regs_per_thread)
        _positive_int("resources.spill_bytes_per_thread", self.spill_bytes_per_thread, allow_zero=True)
        if self.spill_invariant_bytes is not None:
            _positive_int("resources.spill_invariant_bytes", self.spill_invariant_bytes, allow_zero=True)
        if self.spill_pass_bytes is not None:
            _positive_int("resources.spill_pass_bytes", self.spill_pass_bytes, allow_zero=True)
        if self.spill_openers is not None:
            object.__setattr__(self, "spill_openers", tuple(self.spill_openers))


@dataclass(frozen=True)
class LockSection:
    """A critical section the programs enter one at a time: a spin lock (``while atomic_cas(lock, 0, 1) ==
    1: pass`` ... ``atomic_xchg(lock, 0)``, the layer-norm backward's partial-sum buffers).

    ``acquire`` and ``release`` name the two atomic actions, ``section`` the top-level body nodes between them
    (in program order), ``holders`` how many programs take each lock on average (programs over distinct lock
    addresses). The programs of one lock hold it one after another, so the kernel lasts at least ``holders``
    times one hold (the engine's lock floor).
    """

    acquire: str
    release: str
    section: tuple[str, ...]
    holders: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "section", tuple(self.section))
        if not (isinstance(self.holders, int | float | np.number) and 1.0 <= self.holders < math.inf):
            raise PlanError("lock.holders", self.holders, "programs per lock must be a number >= 1")
        if self.acquire == self.release:
            raise PlanError("lock.release", self.release, "must differ from lock.acquire")

    @property
    def nodes(self) -> tuple[str, ...]:
        """Every top-level node of one hold, in program order: acquire, section, release."""
        return (self.acquire, *self.section, self.release)


@dataclass(frozen=True)
class TilePlan:
    """A whole kernel as the model sees it. ``body`` is the program one tile runs.

    ``l2_warm``: ``(tensor, share)`` pairs, the share of each tensor's lines already in L2 when the kernel
    starts (an earlier kernel of the same program wrote them: :class:`KernelSequence`); the cache model lets
    that share of the kernel's first touches of the tensor hit. Empty for a kernel that starts cold.
    ``lock``: a critical section the programs take in turn (:class:`LockSection`), None for none.
    """

    name: str
    grid: TileGrid
    tensors: tuple[TensorAccess, ...]
    body: tuple[Node, ...]
    resources: BlockResources
    source: str | None = None
    notes: tuple[str, ...] = ()
    l2_warm: tuple[tuple[str, float], ...] = ()
    lock: LockSection | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "tensors", tuple(self.tensors))
        object.__setattr__(self, "body", tuple(self.body))
        object.__setattr__(self, "notes", tuple(self.notes))
        object.__setattr__(self, "l2_warm", tuple((str(n), float(w)) for n, w in self.l2_warm))
        names = [t.name for t in self.tensors]
        dup = {n for n in names if names.count(n) > 1}
        if dup:
            raise PlanError("tensors", sorted(dup), "tensor names must be unique")
        for n, w in self.l2_warm:
            if n not in names:
                raise PlanError("l2_warm", n, f"is not a tensor of the plan {sorted(names)}")
            if not 0.0 <= w <= 1.0:
                raise PlanError(f"l2_warm[{n}]", w, "a share of the tensor's lines must lie in [0, 1]")
        if not self.body:
            raise PlanError("body", (), "a tile program needs at least one action")
        tensors = set(names)
        seen: set[str] = set()
        for node in walk(self.body):
            if node.name in seen:
                raise PlanError("body", node.name, "action and loop names must be unique in a plan")
            seen.add(node.name)
            if isinstance(node, TileAction) and node.tensor is not None and node.tensor not in tensors:
                raise PlanError(
                    f"action[{node.name}].tensor",
                    node.tensor,
                    f"is not a tensor of the plan {sorted(tensors)}",
                )
        _check_dags(self.body, "body")
        for opener in self.resources.spill_openers or ():
            if opener not in seen:
                raise PlanError("resources.spill_openers", opener, "is not an action of the plan")
        if self.lock is not None:
            top = [n.name for n in self.body]
            where = [top.index(n) if n in top else -1 for n in self.lock.nodes]
            if -1 in where:
                missing = self.lock.nodes[where.index(-1)]
                raise PlanError("lock", missing, f"is not a top-level node of the body {top}")
            if where != list(range(where[0], where[0] + len(where))):
                raise PlanError(
                    "lock.section", self.lock.section, "must be the nodes between acquire and release"
                )

    # -- derived views -------------------------------------------------------------------------------------
    @functools.cached_property
    def has_dots(self) -> bool:
        """Whether any action is tensor-core work (worked out once per plan)."""
        return any(a.kind is ActionKind.DOT for a, _ in self.actions())

    def actions(self) -> Iterator[tuple[TileAction, tuple[Loop, ...]]]:
        """Every action with the loops enclosing it, outermost first."""
        yield from _actions(self.body, ())

    def loops(self) -> Iterator[Loop]:
        """Every loop of the tile program, each before the loops it holds."""
        yield from (n for n in walk(self.body) if isinstance(n, Loop))

    def tensor(self, name: str) -> TensorAccess:
        for t in self.tensors:
            if t.name == name:
                return t
        raise PlanError("tensor", name, f"not in the plan; tensors: {[t.name for t in self.tensors]}")

    def access_count(self, tensor: str) -> int:
        """How many times one tile accesses ``tensor`` (the product of trips around each action moving it)."""
        total = 0
        for act, loops in self.actions():
            if act.tensor == tensor:
                total += math.prod(lp.trips for lp in loops)
        return total

    def access_loops(self, tensor: str) -> tuple[Loop, ...]:
        """The loops around the (first) action that moves ``tensor``."""
        for act, loops in self.actions():
            if act.tensor == tensor:
                return loops
        return ()


@dataclass(frozen=True)
class KernelSequence:
    """Kernels one program launches back to back on one stream, each a :class:`TilePlan` (a TileLang
    ``prim_func`` with several ``T.Kernel`` blocks: a split-KV decode kernel and the kernel combining its
    partial results). Each starts when the one before it ends; its time includes its own launch overhead."""

    name: str
    plans: tuple[TilePlan, ...]
    notes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "plans", tuple(self.plans))
        object.__setattr__(self, "notes", tuple(self.notes))
        if not self.plans:
            raise PlanError("plans", (), "a kernel sequence needs at least one kernel")
        for i, p in enumerate(self.plans):
            if not isinstance(p, TilePlan):
                raise PlanError(f"plans[{i}]", type(p).__name__, "must be a TilePlan")
        names = [p.name for p in self.plans]
        dup = {n for n in names if names.count(n) > 1}
        if dup:
            raise PlanError("plans", sorted(dup), "kernel names must be unique in a sequence")


def walk(body: tuple[Node, ...]) -> Iterator[Node]:
    """Every node of ``body`` in program order, each loop before the nodes it holds."""
    for node in body:
        yield node
        if isinstance(node, Loop):
            yield from walk(node.body)


def _actions(
    body: tuple[Node, ...], loops: tuple[Loop, ...]
) -> Iterator[tuple[TileAction, tuple[Loop, ...]]]:
    for node in body:
        if isinstance(node, Loop):
            yield from _actions(node.body, (*loops, node))
        else:
            yield node, loops


def _structure(body: tuple[Node, ...]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """A body's dependency structure: ``(name, deps)`` per node, in order."""
    return tuple((n.name, tuple(n.deps)) for n in body)


def _graph(structure: tuple[tuple[str, tuple[str, ...]], ...]) -> nx.DiGraph:
    g = nx.DiGraph()
    g.add_nodes_from(name for name, _ in structure)
    g.add_edges_from((dep, name) for name, deps in structure for dep in deps)
    return g


def body_graph(body: tuple[Node, ...]) -> nx.DiGraph:
    """The dependency DAG of one body: an edge u -> v when v depends on u."""
    return _graph(_structure(body))


@functools.lru_cache(maxsize=1024)
def _cycle(structure: tuple[tuple[str, tuple[str, ...]], ...]) -> tuple[str, ...] | None:
    """A dependency cycle among a body's nodes (its :func:`_structure`), or None for a DAG. Kept per
    structure: a new shape of a kernel rebuilds the same bodies, which then skip the graph search."""
    g = _graph(structure)
    if nx.is_directed_acyclic_graph(g):
        return None
    return tuple(e[0] for e in nx.find_cycle(g))


def _check_dags(body: tuple[Node, ...], where: str) -> None:
    names = {n.name for n in body}
    for node in body:
        for dep in node.deps:
            if dep not in names:
                raise PlanError(
                    f"{where}[{node.name}].deps", dep, f"is not a sibling node; siblings: {sorted(names)}"
                )
            if dep == node.name:
                raise PlanError(f"{where}[{node.name}].deps", dep, "a node cannot depend on itself")
    cycle = _cycle(_structure(body))
    if cycle is not None:
        raise PlanError(f"{where}.deps", list(cycle), "dependency cycle")
    for node in body:
        if isinstance(node, Loop):
            if not node.body:
                raise PlanError(f"loop[{node.name}].body", (), "a loop needs at least one action")
            _check_dags(node.body, f"loop[{node.name}]")
