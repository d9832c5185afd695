"""Walk a TileLang ``PrimFunc``'s TIR into launch facts, buffer allocations and a tree of tile operators.

The walker knows the shape TileLang 0.1.15 gives a ``T.Kernel``: ``blockIdx`` thread-binding loops around a
``tilelang_root`` block that allocates the shared / fragment / local buffers and carries
``tl.launch_threads``; inside it tile operators are ``Evaluate(tl.tileop.*)`` calls on ``tl.region``
arguments, ``T.Pipelined`` is a serial loop annotated with ``num_stages``, ``T.Parallel`` is a nest of
parallel loops storing to buffers, and ``T.use_swizzle`` is a ``threadblock_swizzle_pattern`` attribute.
Anything else raises UnsupportedOpError naming it. The result is plain data for :mod:`.lower`.
"""

from __future__ import annotations

import dataclasses
import math
import os
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tilesight.dtypes import dtype_bytes
from tilesight.errors import FrontendError, UnsupportedOpError
from tilesight.model import banks

from ._tvm import arith, stmt_functor, structural_equal, tirx, tvm_ir
from .expr import copied_from, evaluate, free_vars, known_buffers

GLOBAL, SHARED, REGISTER = "global", "shared", "register"
_SCOPES = {
    "global": GLOBAL,
    "shared": SHARED,
    "shared.dyn": SHARED,
    "local.fragment": REGISTER,
    "local": REGISTER,
    "local.var": REGISTER,
    "local.reducer": REGISTER,  # T.alloc_reducer (v2); a v1 reducer is a fragment (see _Walker.reducers)
}
# The root block's annotations that name T.alloc_reducer buffers (v1: replication=..., v2: the default)
_REDUCER_ANNOTATIONS = ("reducer_info", "reducer_info_v2")
# T.reducer_update(acc[idx], value) inside T.Parallel: the combine each reducer op applies to an element
_REDUCER_COMBINE = {"max": tirx.Max, "min": tirx.Min}
_BLOCK_TAGS = ("blockIdx.x", "blockIdx.y", "blockIdx.z")
# Threads per block of a T.Kernel given no ``threads=`` (TileLang's T.Kernel docstring: "Defaults to 128 when
# omitted"; the launch attribute is then left out of the TIR and materialised by its CUDA pipeline).
DEFAULT_KERNEL_THREADS = 128
# Calls in a T.Parallel body that run on the special-function units (MUFU), one operation per element.
SFU_CALLS = frozenset(
    {"exp", "exp2", "exp10", "log", "log2", "log10", "rsqrt", "sqrt", "sin", "cos", "tanh", "sigmoid", "erf"}
)
# Calls in a T.Parallel body that are ordinary CUDA-core arithmetic, one operation per element.
ARITH_CALLS = frozenset(
    {
        "if_then_else",
        "fabs",
        "abs",
        "floor",
        "ceil",
        "round",
        "fmod",
        "pow",
        "shift_left",
        "shift_right",
        "bitwise_and",
        "bitwise_or",
        "bitwise_xor",
        "bitwise_not",
        "clamp",
        "reinterpret",
        "max_value",
        "min_value",
        "infinity",
    }
)
# CUDA-core operations per element of the calls above that take more than one (clamp: a max and a min).
CALL_OPS = {"clamp": 2}
# Warp shuffles (T.shfl_xor / shfl_down / shfl_up / shfl_sync, and TVM's T.tvm_warp_shuffle*: value second
# after the mask either way): one SHFL each, a dependent step of the thread's chain (its latency is what a
# warp reduction's tree step takes, see SerialChain.shuffles)
SHUFFLE_CALLS = frozenset(
    {
        "shfl_xor_sync",
        "shfl_down_sync",
        "shfl_up_sync",
        "shfl_sync",
        "tvm_warp_shuffle",
        "tvm_warp_shuffle_down",
        "tvm_warp_shuffle_up",
    }
)
# Calls that produce a constant (no per-element work once folded).
CONSTANT_CALLS = frozenset({"infinity", "max_value", "min_value"})
# Leaf nodes that are free in a T.Parallel expression (constants, reads).
_FREE_EXPR = (
    tirx.IntImm,
    tirx.FloatImm,
    tirx.StringImm,
    tirx.Var,
    tirx.BufferLoad,
    tirx.Broadcast,
    tirx.Ramp,
)
# Attributes the walker reads (swizzle) or that do not change the tile program.
SWIZZLE_ATTR = "threadblock_swizzle_pattern"
# T.gemm, and T.wgmma_gemm: the same tile GEMM (same arguments) on Hopper's warpgroup MMA with no wait after
# it (the kernel waits with T.wait_wgmma before it reads the accumulator, as the plan's dependences order it)
GEMM_OPS = frozenset({"tl.tileop.gemm", "tl.tileop.wgmma_gemm"})
_IGNORED_ATTRS = frozenset({"pragma_unroll_explicit", "tl.ws_op_id", "warp_specialize"})
# Evaluate() calls that synchronise or hint and carry no modelled work.
_IGNORED_CALLS = frozenset(
    {
        "tirx.tvm_storage_sync",
        "tl.sync_threads",
        # a hand-written warp-specialised pipeline's barriers (T.alloc_barrier: T.barrier_wait /
        # T.mbarrier_wait_parity, T.barrier_arrive / T.mbarrier_arrive): the hand-off the plan's loop
        # already orders (see _Walker._ws_threads)
        "tl.mbarrier_wait_parity",
        "tl.ptx_arrive_barrier",
        "tirx.ptx_arrive_barrier",
        "tl.mbarrier_expect_tx",
        "tl.ptx_arrive_barrier_expect_tx",
        # T.wait_wgmma(n) after T.wgmma_gemm: the accumulator's readers wait for the gemm (a dependence)
        "tl.wait_wgmma",
    }
)
# T.alloc_barrier's buffers: mbarriers, no data
_BARRIER_SCOPE = "shared.barrier"
# The attribute TileLang puts on each branch of a hand-written warp specialisation (``with T.ws(i)``: ``if
# tx in a warpgroup's range``)
WS_ATTR = "warp_specialize"
# Register-allocation hints (T.set_max_nreg, T.disable_warp_group_reg_alloc). TileLang 0.1.15's
# AnnotateWarpGroupRegAlloc pass (src/cuda/transform/annotate_warp_group_reg_alloc.cc) keeps a user's
# set_max_nreg where it stands and still injects its own producer / consumer pair (setmaxnreg 24 / 240) at
# the head of each warp-specialised branch, after it (lowered CUDA for sm_90a: ``warpgroup_reg_alloc<240>()``
# at the kernel's top, then ``warpgroup_reg_dealloc<24>()`` / ``warpgroup_reg_alloc<240>()`` in the
# branches); a no_set_max_nreg makes it inject none.
SET_MAX_NREG = "tl.set_max_nreg"
NO_SET_MAX_NREG = "tl.no_set_max_nreg"


@dataclass(frozen=True)
class Region:
    """A ``tl.region``: the buffer it views, its per-dimension start expressions and constant extents."""

    buffer: str
    scope: str
    dtype: str
    mins: tuple[Any, ...]
    extents: tuple[int, ...]
    # another region of the same global buffer that one T.Parallel nest reads or writes beside the first: its
    # start, in elements along each axis, from the nest's lowest region of that buffer (a rotary embedding's
    # second half ``X[..., j + half]``: (0, 0, half)); empty for the first or only one
    shift: tuple[int, ...] = ()

    @property
    def elements(self) -> int:
        return math.prod(self.extents)


@dataclass(frozen=True)
class OpNode:
    """One tile operator: ``op`` is copy / fill / gemm / reduce / scan (T.cumsum, T.cummax) / parallel /
    store / atomic_add (of a tile, or element-wise over a T.Parallel nest) / atomic_elem (a scalar
    ``T.atomic_add`` every thread of the block issues, ``elements`` of them)."""

    op: str
    reads: tuple[Region, ...]
    writes: tuple[Region, ...]
    location: str
    elements: int = 0  # elements the op touches (parallel: iterations of the nest)
    arith_ops: int = 0  # CUDA-core operations per element (parallel / store)
    sfu_ops: int = 0  # special-function operations per element (parallel)
    gemm: dict[str, Any] = field(default_factory=dict)
    dim: int = -1  # reduce: the axis reduced over; scan: the axis scanned along
    row_elements: int = 0  # scan: elements between a 2-D buffer's rows (the lowered call's stride)
    # parallel / store from shared memory into shared memory whose vector iterations the compiler keeps in
    # order (see :class:`Chain`); None otherwise
    chain: Chain | None = None
    # a per-thread statement every thread of the block runs, indexing global memory by the thread index
    # (walker._thread_store): the elements each thread moves (1 scalar, n for T.vectorized(n)); 0 otherwise
    per_thread: int = 0
    # parallel: the shared-memory wavefronts of the nest's shared accesses as bytes (128 a wavefront: bank
    # conflicts and part-used wavefronts counted; see _Walker._smem_wavefronts), and the shared buffers they
    # address; None where TileLang does not partition the loop itself (fragments, guards)
    smem_wavefront_bytes: float | None = None
    smem_buffers: tuple[str, ...] = ()
    # parallel: a copy from global into shared memory TileLang 0.1.15 cannot make asynchronous (an
    # ``if_then_else`` whose condition can fail, see _Walker._sync_copy): plain loads the threads wait for
    sync_copy: bool = False
    # parallel / store: bytes per element that go through local memory (an update of a T.alloc_reducer
    # buffer each thread indexes by its thread index, see _Walker._reducer_update_bytes); 0 otherwise
    local_bytes: float = 0.0
    # parallel / store: warp shuffles on the longest path of each element's expression (SHUFFLE_CALLS)
    shuffles: int = 0
    # copy from global: (gap, share) of each step's elements the same block read ``gap`` steps of the
    # enclosing loop earlier (T.im2col's taps, see im2col_rereads); () where none is known
    rereads: tuple[tuple[int, float], ...] = ()
    fresh: float = 1.0  # copy with rereads: the share of its steps that read any element for the first time


@dataclass(frozen=True)
class Chain:
    """One vector iteration of a shared-to-shared ``T.Parallel`` store, as TileLang 0.1.15 lowers it.

    ``lanes``: the vector width TileLang's loop vectoriser picks (16 bytes of the widest element accessed,
    at most ``d`` where the innermost loop variable is indexed ``j // d``, 1 where it is indexed any other
    way but ``j`` or ``start + j``; a divisor of the innermost extent). ``alu`` / ``cvt``: arithmetic ops
    and numeric conversions on the longest path from a shared-memory load to the store (a widening or
    narrowing cast between integer types is free: the byte or short load sign-extends). ``packed``: the
    arithmetic is on 16-bit floats; ``packed_cvt`` / ``narrow_cvt``: see :func:`cvt_packed` /
    :func:`cvt_narrow`. ``serial``: a vector iteration's load and store footprints differ
    (different element sizes, or a ``j // d`` source), so the compiler cannot tell a later iteration's load
    from an earlier iteration's store and keeps them in order (the smem_transform probe: a same-footprint
    half-precision loop is not serialised, every other shape measured is). An index of any other form
    (``2 * j``) leaves the strides unknown and the loop is not counted serial.
    """

    lanes: int
    alu: int
    cvt: int
    packed: bool
    serial: bool
    packed_cvt: bool = False  # a conversion on the path takes fp8 pairs (cvt_packed)
    narrow_cvt: bool = False  # a conversion on the path starts from an 8- or 16-bit integer (cvt_narrow)


@dataclass(frozen=True)
class Im2colReuse:
    """What one ``T.im2col`` tile's steps read again (:func:`im2col_rereads`): ``rereads``, ``(gap, share)``
    pairs (:attr:`~tilesight.plan.TileAction.rereads`), and ``fresh``, the share of its steps that gather any
    element not read before (:attr:`~tilesight.plan.TileAction.fresh_steps`)."""

    rereads: tuple[tuple[int, float], ...] = ()
    fresh: float = 1.0


def _im2col_tiles(rows: int, width: int, oh: int, ow: int, reach: int, stride: int) -> list[tuple[int, int]]:
    """Output-pixel origins ``(row, col)`` of an interior im2col tile (first) and of the tiles beside it whose
    input windows overlap its own (within ``reach`` input pixels): whole-row tiles above and below, part-row
    tiles left, right and in the rows above and below; never past the image (the tile sits at its middle)."""
    if width >= ow:  # whole output rows: neighbours are the row blocks above and below
        per_image = max(oh // rows, 1)
        near = -(-reach // (rows * stride)) if reach else 0
        lo, hi = max(-near, -((per_image - 1) // 2)), min(near, per_image // 2)
        return [(0, 0)] + [(t * rows, 0) for t in range(lo, hi + 1) if t]
    per_row = max(ow // width, 1)
    near_c = min(-(-reach // (width * stride)) if reach else 0, 1)
    near_r = -(-reach // stride) if reach else 0
    rlo, rhi = max(-near_r, -((oh - 1) // 2)), min(near_r, oh // 2)
    clo, chi = max(-near_c, -((per_row - 1) // 2)), min(near_c, per_row // 2)
    return [(0, 0)] + [
        (r, c * width) for r in range(rlo, rhi + 1) for c in range(clo, chi + 1) if (r, c) != (0, 0)
    ]


def im2col_rereads(
    steps: int,
    bk: int,
    chans: int,
    kk: int,
    stride: int,
    dil: int,
    rows: int,
    width: int,
    oh: int | None = None,
    ow: int | None = None,
) -> Im2colReuse:
    """What a ``T.im2col`` tile re-reads over its first ``steps`` steps (``bk`` columns of the ``(kh, kw, c)``
    axis a step, channels fastest, then ``kw``): step ``i`` reads, for each of the tile's ``rows x width``
    output pixels, the input pixel ``(row * stride + kh * dil, col * stride + kw * dil)`` at channels
    ``c .. c + bk``. An element counts as re-read ``gap`` steps later when the most recent earlier step that
    read it was ``gap`` steps back, in this tile or in a tile beside it (``oh x ow`` output pixels an image;
    None: the tile alone) that runs the same steps in lockstep, as the tiles of one wave do: the next filter
    column reads the previous one's pixels shifted by ``dil``, and the next filter row reads what the tile
    above read one filter row earlier. ``fresh`` is the share of steps with any element read for the first
    time (a 5 x 5 filter over whole-row tiles: only the first filter row's). Image edges (padding) are not
    told apart."""
    if steps <= 1 or rows <= 0 or width <= 0:
        return Im2colReuse()
    reach = (kk - 1) * dil
    tiles = _im2col_tiles(rows, width, oh or rows, ow or width, reach, stride) if oh and ow else [(0, 0)]
    r0 = min(r for r, _ in tiles) * stride
    c0 = min(c for _, c in tiles) * stride
    span_h = (max(r for r, _ in tiles) + rows - 1) * stride - r0 + reach + 1
    span_w = (max(c for _, c in tiles) + width - 1) * stride - c0 + reach + 1
    slices = chans // bk
    last = np.full(span_h * span_w * slices, -1, dtype=np.int64)
    r, c = np.meshgrid(np.arange(rows) * stride, np.arange(width) * stride, indexing="ij")
    pixels = [((r + tr * stride - r0) * span_w + c + tc * stride - c0).ravel() for tr, tc in tiles]
    gaps: Counter[int] = Counter()
    fresh = 0
    for i in range(steps):
        col = i * bk
        kh, kw, ch = col // (chans * kk), (col // chans) % kk, (col % chans) // bk
        shift = kh * dil * span_w + kw * dil
        ids = [(p + shift) * slices + ch for p in pixels]
        prev = last[ids[0]]
        seen = prev >= 0
        gaps.update((i - prev[seen]).tolist())
        fresh += not seen.all()
        for t in ids:
            last[t] = i
    total = steps * pixels[0].size
    pairs = tuple(sorted((int(g), n / total) for g, n in gaps.items()))
    return Im2colReuse(pairs, fresh / steps)


@dataclass(frozen=True)
class LoopNode:
    """A serial loop around tile operators; ``trips`` holds the trip count of every block."""

    var: str
    trips: np.ndarray
    stages: int
    body: tuple[OpNode | LoopNode, ...]
    location: str
    # a T.Pipelined loop with num_stages >= 1, which TileLang software-pipelines (warp-specialised with a TMA
    # producer on sm_90); T.serial and num_stages=0 loops run their copies in program order
    pipelined: bool = True
    # an ``if`` on the enclosing loop's counter (``if (k + 1) % 2 == 0``): a one-trip loop its body runs in
    # this share of the iterations (None for a loop)
    share: float | None = None


@dataclass(frozen=True)
class KernelIR:
    name: str
    grid_vars: tuple[str, ...]  # block index variable names, x first
    grid: tuple[int, ...]
    threads: int
    buffers: dict[str, tuple[str, str, tuple[int, ...]]]  # name -> (scope, dtype, shape)
    params: tuple[str, ...]  # global buffers in argument order
    swizzle: tuple[str, int] | None
    body: tuple[OpNode | LoopNode, ...]
    binds: dict[str, Any]  # let-bound variables -> their expressions
    programs: int | None = None  # a persistent kernel: blocks launched (grid is then its tile grid)
    sequence: np.ndarray | None = None  # ... and the tiles' coordinates in launch order
    notes: tuple[str, ...] = ()
    # TileLang gives a warp-specialised kernel's warpgroups their registers with setmaxnreg; False after
    # T.disable_warp_group_reg_alloc (every thread then keeps what ptxas gives it at the launch bounds)
    setmaxnreg: bool = True
    # a hand-written warp specialisation (T.ws): the threads of its branch that issues the tile loads (TMA
    # copies into shared memory), part of the launch; ``threads`` is then the other branches' (the
    # consumers'). 0 for none
    producer_threads: int = 0
    # T.set_max_nreg calls (a hand-written warp specialisation's register split)
    nreg_hints: int = 0


class _Walker:
    def __init__(
        self,
        func: tirx.PrimFunc,
        name: str,
        scratch: Mapping[str, tuple[str, str, tuple[int, ...]]] | None = None,
    ) -> None:
        self.func = func
        self.name = name
        self.buffers: dict[str, tuple[str, str, tuple[int, ...]]] = {}
        self.params: list[str] = []
        for handle in func.params:
            buf = func.buffer_map.get(handle)
            if buf is None:
                raise UnsupportedOpError(f"scalar kernel parameter {handle.name!r}", name)
            self.buffers[buf.name] = (GLOBAL, str(buf.dtype), self._shape(buf))
            self.params.append(buf.name)
        # global buffers the program allocates outside its kernels (T.alloc_global: a split kernel's partial
        # results, read by the kernel that combines them): tensors of every kernel, after the arguments
        for buf_name, spec in (scratch or {}).items():
            self.buffers[buf_name] = spec
            self.params.append(buf_name)
        self.grid_vars: list[str] = []
        self.grid: list[int] = []
        self.threads = 0
        self.swizzle: tuple[str, int] | None = None
        self.binds: dict[str, Any] = {}
        self.loop_vars: set[str] = set()  # serial / pipelined loop variables of the tile program
        # ... their (starts, trip counts) per block, flat (one entry when every block runs the same)
        self.loop_trips: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self.programs: int | None = None  # a persistent kernel's blocks (see _persistent)
        self.sequence: np.ndarray | None = None  # ... and its tiles' coordinates in launch order
        self.notes: list[str] = []
        self.setmaxnreg = True  # see KernelIR.setmaxnreg
        self.nreg_hints = 0  # T.set_max_nreg calls
        # thread index variables (T.get_thread_binding) -> their extents, and how many ifs on them enclose the
        # statement being walked (their values are 0 in ``env``: only a statement every thread runs is priced
        # per thread)
        self.thread_axes: dict[str, int] = {}
        self.thread_extents: dict[str, int] = {}
        self.thread_guards = 0
        self.env: dict[str, Any] = {}
        # shared buffers given a layout by T.annotate_layout (the root block's "layout_map"): their addresses
        # are not row-major
        self.laid_out: set[str] = set()
        # T.alloc_reducer buffers -> their combine op ("sum", "max", ...); TileLang 0.1.15 replicates each
        # over every thread of the block (FinalizeReducerOp: a replicate extent of 1 or the block's
        # threads; its lowered CUDA keeps a whole copy per thread, v1 and v2 alike)
        self.reducers: dict[str, str] = {}
        self.producer_threads = 0  # see KernelIR.producer_threads
        self.count = 0
        self.source = _source_of(func)  # "file.py:line" of the kernel's definition, where TVM kept it

    # -- helpers -------------------------------------------------------------------------------------------
    def _shape(self, buf: tirx.Buffer) -> tuple[int, ...]:
        return _fixed_shape(buf, self.name)

    def _where(self, text: str) -> str:
        self.count += 1
        at = f" ({self.source})" if self.source else ""
        return f"{self.name}{at}: op {self.count}: {text[:120]}"

    def _const(self, expr: Any, what: str) -> int:
        value = np.asarray(evaluate(expr, self.env, self.name))
        if value.size != 1 and not np.all(value == value.flat[0]):
            raise UnsupportedOpError(f"{what} that varies between blocks ({expr})", self.name)
        return int(value.flat[0])

    def _region(self, arg: Any) -> Region:
        if isinstance(arg, tirx.Call) and arg.op.name == "tl.region":
            load = arg.args[0]
            extents = tuple(self._const(e, "region extent") for e in arg.args[2:])
        elif isinstance(arg, tirx.BufferLoad):
            load, extents = arg, (1,) * len(arg.indices)
        else:
            raise UnsupportedOpError(f"tile-operator argument {type(arg).__name__} ({arg})", self.name)
        buf = load.buffer
        if buf.name not in self.buffers:
            self._alias(buf)
        if buf.name not in self.buffers:
            raise FrontendError(
                f"buffer {buf.name!r} is neither a kernel argument nor allocated in the kernel"
            )
        scope, dtype, shape = self.buffers[buf.name]
        mins = tuple(load.indices)
        if len(extents) < len(shape):
            extents = (1,) * (len(shape) - len(extents)) + extents
        return Region(buf.name, scope, dtype, mins, extents)

    def _alias(self, buf: tirx.Buffer) -> None:
        """A view of a kernel argument's memory under another shape (``T.Tensor(shape, dtype, arg.data)``
        inside the kernel: a convolution's weights or output as 2-D matrices): a global buffer of its own,
        after the arguments, as a tensor of the kernel."""
        for handle in self.func.params:
            arg = self.func.buffer_map.get(handle)
            if arg is not None and arg.data.same_as(buf.data):
                self.buffers[buf.name] = (GLOBAL, str(buf.dtype), self._shape(buf))
                self.params.append(buf.name)
                return

    def _whole(self, buf: tirx.Buffer) -> Region:
        scope, dtype, shape = self.buffers[buf.name]
        return Region(buf.name, scope, dtype, (0,) * len(shape), shape)

    # -- launch --------------------------------------------------------------------------------------------
    def walk(self, launch: Any = None, prelude: tuple[Any, ...] = ()) -> KernelIR:
        """The kernel whose launch statement is ``launch`` (the PrimFunc's body when None), after the
        program-level ``prelude`` statements (scalar binds before it)."""
        for stmt in prelude:
            self._launch(stmt)
        body = self._launch(self.func.body if launch is None else launch)
        if not self.grid_vars:
            raise UnsupportedOpError("a kernel without T.Kernel (no blockIdx binding)", self.name)
        if self.threads <= 0:
            raise UnsupportedOpError("a kernel without a thread count (tl.launch_threads)", self.name)
        return KernelIR(
            name=self.name,
            grid_vars=tuple(self.grid_vars),
            grid=tuple(self.grid),
            threads=self.threads,
            buffers=dict(self.buffers),
            params=tuple(self.params),
            swizzle=self.swizzle,
            body=tuple(body),
            binds=dict(self.binds),
            programs=self.programs,
            sequence=self.sequence,
            notes=tuple(self.notes),
            setmaxnreg=self.setmaxnreg,
            producer_threads=self.producer_threads,
            nreg_hints=self.nreg_hints,
        )

    def _launch(self, stmt: Any) -> list[OpNode | LoopNode]:
        if isinstance(stmt, tirx.SBlockRealize):
            return self._launch(stmt.block)
        if isinstance(stmt, tirx.SBlock):
            if stmt.name_hint == "tilelang_root":
                return self._root(stmt)
            return self._launch(stmt.body)
        if isinstance(stmt, tirx.For) and stmt.kind == tirx.ForKind.THREAD_BINDING:
            tag = stmt.thread_binding.thread_tag
            if tag not in _BLOCK_TAGS:
                raise UnsupportedOpError(f"thread binding {tag!r} outside the kernel root", self.name)
            axis = _BLOCK_TAGS.index(tag)
            if axis != len(self.grid_vars):
                raise UnsupportedOpError(f"block binding {tag} out of x, y, z order", self.name)
            extent = self._const(stmt.extent, f"grid extent of {tag}")
            if extent < 1:
                # a size of 0 or below (``M=0``) leaves T.Kernel no blocks to launch
                given = f"{stmt.extent} = {extent}" if str(stmt.extent) != str(extent) else str(extent)
                raise FrontendError(
                    f"kernel {self.name!r}: {tag} extent {given} launches no blocks; every grid extent must "
                    "be at least 1 (check the sizes the kernel was built or called with)",
                    construct="T.Kernel",
                )
            self.grid_vars.append(stmt.loop_var.name)
            self.grid.append(extent)
            return self._launch(stmt.body)
        if isinstance(stmt, tirx.SeqStmt):
            out: list[OpNode | LoopNode] = []
            for s in stmt.seq:
                out.extend(self._launch(s))
            return out
        if isinstance(stmt, tirx.Bind):
            value = stmt.value
            if isinstance(value, tirx.Call) and value.op.name == "tl.launch_thread_idx":
                self.env[stmt.var.name] = 0
                self.thread_axes[stmt.var.name] = int(value.args[0].value)
                return []
            return self._bind(stmt)
        raise UnsupportedOpError(f"{type(stmt).__name__} around the kernel root", self.name)

    def _root(self, block: tirx.SBlock) -> list[OpNode | LoopNode]:
        threads = block.annotations.get("tl.launch_threads")
        if threads is None:
            # T.Kernel(..., threads=None): TileLang's CUDA pipeline launches DEFAULT_KERNEL_THREADS
            threads = (DEFAULT_KERNEL_THREADS,)
            self.notes.append(
                f"T.Kernel without threads=: TileLang's default of {DEFAULT_KERNEL_THREADS} threads"
            )
        self.threads = math.prod(int(t) for t in threads)
        self.laid_out |= {buf.name for buf in block.annotations.get("layout_map", {})}
        reducer_vars = {}
        for key in _REDUCER_ANNOTATIONS:
            for var, info in block.annotations.get(key, {}).items():
                reducer_vars[var] = str(info.get("op", "sum"))
        dims = [int(t) for t in threads]
        self.thread_extents = {v: dims[a] if a < len(dims) else 1 for v, a in self.thread_axes.items()}
        for buf in block.alloc_buffers:
            if buf.scope() == _BARRIER_SCOPE:
                continue
            scope = _SCOPES.get(buf.scope())
            if scope is None:
                raise UnsupportedOpError(f"buffer scope {buf.scope()!r} ({buf.name})", self.name)
            self.buffers[buf.name] = (scope, str(buf.dtype), self._shape(buf))
            for var, op in reducer_vars.items():
                if buf.data.same_as(var):
                    self.reducers[buf.name] = op
        shape = [
            np.arange(n).reshape([-1 if i == a else 1 for i in range(len(self.grid))])
            for a, n in enumerate(self.grid)
        ]
        for var, values in zip(self.grid_vars, shape, strict=True):
            self.env[var] = values
        self._ws_threads(block.body)
        return self._body(block.body)

    def _ws_threads(self, root: Any) -> None:
        """A hand-written warp specialisation (``with T.ws(i)``: an ``if`` on the thread index around a
        ``warp_specialize`` attribute): its branch whose tile operators are TMA copies into shared memory is
        the producer. Its threads are taken out of :attr:`threads`, which then counts the consumers (who
        split every T.gemm), and kept in :attr:`producer_threads`, as TileLang's own warp specialisation
        keeps its producer warpgroup beside the user's threads (lower.WS_PRODUCER_THREADS)."""
        branches: list[tuple[Any, Any]] = []

        def visit(node: Any) -> None:
            body = _ws_branch(node)
            if body is not None:
                branches.append((node.condition, body))

        tirx.stmt_functor.post_order_visit(root, visit)
        if not branches:
            return
        tx = np.arange(self.threads)
        env = dict(self.env)
        for var in self.thread_extents:
            env[var] = tx  # the launch's threads along x (T.ws branches split threadIdx.x)
        producer = np.zeros(self.threads, dtype=bool)
        consumer = np.zeros(self.threads, dtype=bool)
        for cond, body in branches:
            ops = _call_names(body)
            taken = np.broadcast_to(np.asarray(evaluate(cond, env, self.name)).astype(bool), tx.shape)
            if ops & GEMM_OPS:
                consumer |= taken
            elif "tl.tileop.tma_copy" in ops:
                producer |= taken
        producer &= ~consumer  # threads that multiply are consumers, whatever else they copy
        if producer.any() and not producer.all():
            self.producer_threads = int(producer.sum())
            self.threads -= self.producer_threads
        else:
            self.notes.append(
                f"{len(branches)} T.ws branches but none of TMA copies apart from the gemm's threads: each "
                "branch's tile operators are priced on all the block's threads"
            )

    # -- tile program --------------------------------------------------------------------------------------
    def _bind(self, stmt: tirx.Bind) -> list[OpNode | LoopNode]:
        self.binds[stmt.var.name] = stmt.value
        if not str(stmt.value.dtype).startswith(("int", "uint", "bool")):
            return []  # a scalar of the computation (``inv_d = 1.0 / d``), never index math
        if free_vars(stmt.value) - set(self.env) - set(self.binds):
            # a value of a loop variable not yet bound: ``T.Persistent`` binds each tile's coordinates from
            # its wave counter before the wave loop (see :meth:`_persistent`); kept as an expression only
            return []
        self.env[stmt.var.name] = evaluate(stmt.value, self.env, self.name)
        return []

    def _body(self, stmt: Any) -> list[OpNode | LoopNode]:
        if isinstance(stmt, tirx.SeqStmt):
            out: list[OpNode | LoopNode] = []
            for s in stmt.seq:
                out.extend(self._body(s))
            return out
        if isinstance(stmt, tirx.AttrStmt):
            if stmt.attr_key == SWIZZLE_ATTR:
                func, panel = stmt.value.args
                self.swizzle = (str(func.value), int(panel.value))
            elif stmt.attr_key not in _IGNORED_ATTRS:
                raise UnsupportedOpError(f"attribute {stmt.attr_key!r}", self.name)
            return self._body(stmt.body)
        if isinstance(stmt, tirx.Bind):
            return self._bind(stmt)
        if isinstance(stmt, tirx.Evaluate):
            return self._evaluate(stmt.value)
        if isinstance(stmt, tirx.For):
            if stmt.kind == tirx.ForKind.PARALLEL:
                return self._parallel(stmt)
            if stmt.kind == tirx.ForKind.VECTORIZED:
                vector = self._thread_vector(stmt)
                if vector is not None:
                    return vector
            persistent = self._persistent(stmt)
            if persistent is not None:
                return persistent
            return [self._loop(stmt)]
        if isinstance(stmt, tirx.BufferStore):
            where = self._where(f"scalar store to {stmt.buffer.name!r}")
            spread = self._thread_store(stmt, {}, where)
            return [spread if spread is not None else self._store(stmt, 1, where)]
        if isinstance(stmt, tirx.IfThenElse):
            if (ws_body := _ws_branch(stmt)) is not None:
                # a T.ws branch: its warps' tile operators are the block's (one warpgroup loads, another
                # multiplies). TileLang 0.1.15 puts a __syncthreads() before each branch of a loop step
                # (lowered CUDA for sm_90a), so the producer issues step k+1's copies only after the
                # consumers' step k, however many buffers the kernel rotates: the loop runs as an
                # unpipelined one whose copies the block waits for
                return self._body(ws_body)
            if _sync_only(stmt):
                return []  # only barriers, whatever the condition: nothing to price
            return self._branch(stmt)
        raise UnsupportedOpError(f"statement {type(stmt).__name__}", self.name)

    def _branch(self, stmt: tirx.IfThenElse) -> list[OpNode | LoopNode]:
        """An ``if`` (:meth:`_block_branch`). One on a thread index (``if tk == 0``) is walked at thread 0, as
        every index expression is; a statement under it that is priced per thread (a scalar T.atomic_add) is
        refused there, as the threads that pass are not counted."""
        on_thread = bool(_vars_through(stmt.condition, self.binds) & set(self.thread_extents))
        if on_thread and not _sync_only(stmt.then_case) and not _sync_only(stmt.else_case):
            # ``if tx < 128: ... else: ...`` with work on both sides: the block's threads split into ranges
            # that each run their own part (a hand-written warp specialisation); walking thread 0's side
            # would drop the others' work without a word
            raise UnsupportedOpError(
                f"if/else on the thread index ({str(stmt.condition)[:60]}) with work on both sides (each "
                "range of threads runs its own branch: a hand-written warp specialisation; TileSight "
                "reads one written with T.ws)",
                self.name,
                self._where(f"if {str(stmt.condition)[:60]}"),
            )
        self.thread_guards += on_thread
        try:
            return self._block_branch(stmt)
        finally:
            self.thread_guards -= on_thread

    def _block_branch(self, stmt: tirx.IfThenElse) -> list[OpNode | LoopNode]:
        """An ``if`` around tile operators. A condition on block indices and constants only (a bounds guard
        such as ``if bx * block_M < M``) is evaluated for every block: true for all of them, the tile program
        is its ``then`` part; false for all, its ``else`` part; true for some, each part runs in its share of
        the blocks. A condition on a loop counter (or on data the caller gave) is a share of the loop's
        iterations (:meth:`_loop_guard`); one on data the kernel reads at run time is refused, naming it."""
        cond = stmt.condition
        where = self._where(f"if {str(cond)[:60]}")
        reads: list[str] = []
        tirx.stmt_functor.post_order_visit(
            cond, lambda n: reads.append(n.buffer.name) if isinstance(n, tirx.BufferLoad) else None
        )
        unknown = [r for r in reads if r not in known_buffers()]
        if unknown:
            what = f"if/else on data read from {unknown[0]!r} (data-dependent control flow)"
            raise UnsupportedOpError(what, self.name, where)
        looped = sorted(_vars_through(cond, self.binds) & self.loop_vars)
        if looped:
            return self._loop_guard(stmt, looped, where)
        value = np.asarray(evaluate(cond, self.env, self.name)).astype(bool)
        value = np.broadcast_to(value, tuple(self.grid))
        if value.all():
            return self._body(stmt.then_case)
        if not value.any():
            return self._body(stmt.else_case) if stmt.else_case is not None else []
        # some blocks take it (a last block's remainder, a head group's extra work): each branch as a one-trip
        # loop run by that share of the blocks, the mean block's cost (as the Triton frontend prices an ``if``
        # only some programs take)
        share = float(value.mean())
        self.notes.append(
            f"if at {where}: taken by {int(value.sum())} of {value.size} blocks; "
            "the plan prices the mean block"
        )
        out: list[OpNode | LoopNode] = []
        for label, branch, part in (("then", stmt.then_case, share), ("else", stmt.else_case, 1.0 - share)):
            body = tuple(self._body(branch)) if branch is not None else ()
            if body:
                out.append(_share_node(f"if_{label}", body, where, part))
        return out

    def _loop_guard(self, stmt: tirx.IfThenElse, looped: list[str], where: str) -> list[OpNode | LoopNode]:
        """An ``if`` on one enclosing loop's counter (fp8 GEMMs promoting their accumulator every other step:
        ``if (k + 1) % 2 == 0``), possibly through let-bindings, block-level values and elements of tensors
        whose contents the caller gave (a block-sparse mask ``if keep[k]:``): its body as a loop of one trip
        that runs in the share of all blocks' iterations that pass the condition (each block's own trip count
        where they differ), and an ``else`` body likewise in the rest. Any other condition on a loop counter
        is refused, naming it."""
        cond = stmt.condition
        var = looped[0]
        free = _vars_through(cond, self.binds)
        trips = self.loop_trips.get(var)
        # block-level values (block indices, what the kernel bound from them) may take part, and elements of
        # tensors whose contents the caller gave (a block-sparse mask), read at block-level positions
        outer = {
            v
            for v in self.env
            if v not in self.loop_vars
            and not (v in self.binds and _vars_through(self.binds[v], self.binds) & self.loop_vars)
        }
        if len(looped) > 1 or trips is None or free - {var} - outer - set(self.binds):
            what = f"if/else on the loop variable {var!r} (the loop's iterations differ)"
            raise UnsupportedOpError(what, self.name, where)
        starts, counts = trips  # one entry, or one per block: the share of all blocks' iterations
        space = tuple(self.grid)
        longest = int(counts.max()) if counts.size else 0
        steps = np.arange(longest)[None, :]  # (block, iteration)
        env: dict[str, Any] = {}
        for v in outer:  # one row per block
            value = np.asarray(self.env[v])
            env[v] = np.broadcast_to(value, space).reshape(-1, 1) if value.ndim == len(space) else value
        env[var] = starts[:, None] + steps
        # let-bound indices the condition reads through, each after the ones it reads (``needs_mask`` from
        # ``q_tile`` from ``clean_k``)
        pending = sorted(n for n in self.binds if n in free and n not in env)
        while pending:
            ready = [n for n in pending if not (free_vars(self.binds[n]) & set(pending))]
            for name in ready or pending[:1]:  # a cycle cannot occur in let-bindings; never loop forever
                env[name] = evaluate(self.binds[name], env, self.name)
            pending = [n for n in pending if n not in env]
        shape = (math.prod(space), longest)
        taken = np.broadcast_to(np.asarray(evaluate(cond, env, self.name), dtype=bool), shape)
        runs = np.broadcast_to(steps < counts[:, None], shape)
        share = float((taken & runs).sum() / runs.sum()) if runs.any() else 0.0
        out: list[OpNode | LoopNode] = []
        # each branch as a one-trip loop run in its share of the iterations (the else branch in the rest)
        for branch, part, label in ((stmt.then_case, share, "if"), (stmt.else_case, 1.0 - share, "else")):
            body = tuple(self._body(branch)) if branch is not None and part > 0 else ()
            if not body:
                continue
            if part >= 1.0:
                out.extend(body)
                continue
            note = f"{label} on loop variable {var} at {where}: its body runs in {part:.0%} of the iterations"
            self.notes.append(note)
            out.append(_share_node(f"{label}_{var}", body, where, part))
        return out

    def _persistent(self, stmt: tirx.For) -> list[OpNode | LoopNode] | None:
        """A persistent kernel's wave loop (``T.Persistent``, or its hand-written form ``for w in
        T.serial(waves): tile = w * programs + block_id; bx, by = ...; if bx * block_M < M ...:``): a serial
        loop at the top of the tile program, without ``num_stages``, whose body, past let-bindings and guards,
        moves tiles whose coordinates depend on the loop counter. Every (wave, block) pair the guards let
        through is a tile: the plan's grid becomes those coordinates (the let-bound variables the body
        indexes with), launched in the order ``wave x blocks + block`` by the kernel's blocks (a persistent
        :class:`~tilesight.plan.TileGrid`), and the guarded body is the tile program. None for any other
        loop."""
        if self.loop_vars or self.sequence is not None or "num_stages" in stmt.annotations:
            return None
        w = stmt.loop_var.name
        body: Any = stmt.body
        guards: list[Any] = []
        renamed: dict[Any, Any] = {}  # a let that shadows a name in use (TileLang names its block index "bx")

        def bind(var: Any, value: Any) -> None:
            value = stmt_functor.substitute(value, renamed) if renamed else value
            if var.name in self.env or var.name in self.binds:
                fresh = tirx.Var(f"{var.name}#{len(renamed) + 1}", var.dtype)
                renamed[var] = fresh
                var = fresh
            self.binds[var.name] = value

        while True:
            if (
                isinstance(body, tirx.SeqStmt)
                and body.seq
                and all(isinstance(x, tirx.Bind) for x in body.seq[:-1])
            ):
                for b in body.seq[:-1]:
                    bind(b.var, b.value)
                body = body.seq[-1]
            elif isinstance(body, tirx.IfThenElse) and body.else_case is None:
                guards.append(stmt_functor.substitute(body.condition, renamed) if renamed else body.condition)
                body = body.then_case
            else:
                break
        if renamed:
            body = stmt_functor.substitute(body, renamed)
        used: set[str] = set()
        tirx.stmt_functor.post_order_visit(
            body, lambda n: used.add(n.name) if isinstance(n, tirx.Var) else None
        )
        # a tile coordinate is computed from the wave counter and the block index together (a K offset
        # ``kk = k * block_K`` in an ordinary serial loop is not one)
        blocks = set(self.grid_vars)
        coords = sorted(
            v
            for v in used
            if v in self.binds and w in (deps := _vars_through(self.binds[v], self.binds)) and deps & blocks
        )
        if not coords:
            return None
        where = self._where(f"persistent loop over {w}")
        waves = self._const(stmt.extent, "persistent wave count")
        grid = tuple(self.grid)
        space = (waves, *grid)
        env = _GridEnv((w, *self.grid_vars), space, self.binds)
        try:
            ok = np.ones(space, dtype=bool)
            for g in guards:
                ok &= np.broadcast_to(np.asarray(evaluate(g, env, self.name)).astype(bool), space)
            values = [
                np.broadcast_to(np.asarray(evaluate(self.binds[c], env, self.name)), space) for c in coords
            ]
        except UnsupportedOpError as e:
            raise UnsupportedOpError(f"persistent loop over {w}: {e.construct}", self.name, where) from None
        # launch order: wave-major, blockIdx.x fastest within a wave
        order = np.transpose(ok, (0, *range(len(grid), 0, -1))).ravel()
        seq = np.stack(
            [np.transpose(v, (0, *range(len(grid), 0, -1))).ravel()[order] for v in values], axis=1
        )
        if seq.size == 0 or seq.min() < 0:
            raise UnsupportedOpError(
                f"persistent loop over {w} with no tile or a negative coordinate", self.name, where
            )
        if len({tuple(r) for r in seq.tolist()}) != len(seq):
            raise UnsupportedOpError(f"persistent loop over {w} visiting a tile twice", self.name, where)
        # a coordinate bound as an element offset (``row0 = tile_m * block_M``) counts tiles in its steps
        steps = np.gcd.reduce(seq, axis=0)
        seq = seq // np.maximum(steps, 1)
        shape = tuple(int(x) + 1 for x in seq.max(axis=0))
        self.programs = math.prod(grid)
        self.sequence = seq
        self.grid_vars, self.grid = list(coords), list(shape)
        for a, (var, n) in enumerate(zip(coords, shape, strict=True)):
            self.env[var] = np.arange(n).reshape([-1 if i == a else 1 for i in range(len(shape))])
        self.env[w] = 0
        self.notes.append(
            f"persistent kernel: {self.programs} blocks run {len(seq)} tiles of a {shape} grid in "
            f"{waves} waves over {w}"
        )
        return self._body(body)

    def _loop(self, stmt: tirx.For) -> LoopNode:
        where = self._where(f"for {stmt.loop_var.name} in range({stmt.extent})")
        # a negative extent runs no iteration (the lowered ``for (i = 0; i < n; ++i)``): blocks an enclosing
        # guard skips may compute one (a variable-length batch's blocks past a sequence's end)
        trips = np.maximum(np.asarray(evaluate(stmt.extent, self.env, self.name)), 0)
        if trips.size > 1:
            trips = np.broadcast_to(trips, tuple(self.grid))
        annotated = stmt.annotations.get("num_stages")
        stages = int(annotated) if annotated is not None else 1
        self.env[stmt.loop_var.name] = 0  # region starts are inspected symbolically, never by value
        self.loop_vars.add(stmt.loop_var.name)
        start = np.asarray(evaluate(stmt.min, self.env, self.name))
        if trips.size == 1 and start.size == 1:
            self.loop_trips[stmt.loop_var.name] = (start.reshape(1), trips.reshape(1))
        else:
            space = tuple(self.grid)
            self.loop_trips[stmt.loop_var.name] = (
                np.broadcast_to(start, space).ravel(),
                np.broadcast_to(trips, space).ravel(),
            )
        body = tuple(self._body(stmt.body))
        if not body:
            raise UnsupportedOpError(f"loop {stmt.loop_var.name!r} with no tile operators", self.name, where)
        return LoopNode(
            stmt.loop_var.name,
            trips,
            max(1, stages),
            body,
            where,
            pipelined=stages >= 1 and annotated is not None,
        )

    def _evaluate(self, call: Any) -> list[OpNode | LoopNode]:
        if not isinstance(call, tirx.Call):
            raise UnsupportedOpError(f"expression statement {call}", self.name)
        op = call.op.name
        where = self._where(f"{op}")
        if op in ("tl.tileop.copy", "tl.tileop.tma_copy"):
            src, dst = self._region(call.args[0]), self._region(call.args[1])
            if src.scope == GLOBAL and dst.scope != GLOBAL:
                copied_from(dst.buffer, src.buffer, src.mins, src.extents)  # its elements evaluate too
            return [OpNode("copy", (src,), (dst,), where, elements=dst.elements)]
        if op == "tl.tileop.atomicadd":  # T.atomic_add of a tile (a split-K epilogue): a store that adds
            src, dst = self._region(call.args[0]), self._region(call.args[1])
            return [OpNode("atomic_add", (src,), (dst,), where, elements=dst.elements)]
        if op == "tl.tileop.fill":
            dst = self._region(call.args[0])
            return [OpNode("fill", (), (dst,), where, elements=dst.elements)]
        if op in GEMM_OPS:
            a, b, c = (self._region(x) for x in call.args[:3])
            trans_a, trans_b = (bool(self._const(x, "gemm transpose")) for x in call.args[3:5])
            m, n, k = (self._const(x, "gemm shape") for x in call.args[5:8])
            policy = self._const(call.args[8], "gemm policy")
            clear = bool(self._const(call.args[9], "gemm clear_accum"))
            info = {"m": m, "n": n, "k": k, "trans_a": trans_a, "trans_b": trans_b, "policy": policy}
            info["wgmma_only"] = op == "tl.tileop.wgmma_gemm"
            reads = (a, b) if clear else (a, b, c)
            return [OpNode("gemm", reads, (c,), where, elements=m * n * k, gemm=info)]
        if op in ("tl.tileop.cumsum", "tl.tileop.cummax"):
            # T.cumsum / T.cummax (a fragment's is copied through shared memory by TileLang's own macro)
            src, dst = self._region(call.args[0]), self._region(call.args[1])
            dim = self._const(call.args[2], "scan dim")
            row = int(self.buffers[src.buffer][2][-1])
            return [OpNode("scan", (src,), (dst,), where, elements=src.elements, dim=dim, row_elements=row)]
        if op == "tl.tileop.im2col":
            return [self._im2col(call, where)]
        if op == "tl.tileop.reducer_init":  # T.reducer_init(acc[, value]): every thread's copy set
            dst = self._region(call.args[0])
            return [OpNode("fill", (), (dst,), where, elements=dst.elements)]
        if op in ("tl.tileop.finalize_reducer", "tl.tileop.finalize_reducer_v2"):
            # v1 finalises in place; v2 writes the result to a fragment of its own
            src = self._region(call.args[0])
            dst = self._region(call.args[1]) if op.endswith("_v2") else src
            return [OpNode("finalize", (src,), (dst,), where, elements=src.elements)]
        if op == "tl.tileop.reduce":
            src, dst = self._region(call.args[0]), self._region(call.args[1])
            dim = self._const(call.args[3], "reduce dim")
            clear = bool(self._const(call.args[4], "reduce clear"))
            reads = (src,) if clear else (src, dst)
            return [OpNode("reduce", reads, (dst,), where, elements=src.elements, dim=dim)]
        if op in _IGNORED_CALLS:
            return []
        if op in (SET_MAX_NREG, NO_SET_MAX_NREG):
            return self._register_hint(call, where)
        if op.endswith("atomic_add_elem_op"):
            return [self._scalar_atomic(tirx.Evaluate(call), where)]
        raise UnsupportedOpError(op, self.name, where)

    def _im2col(self, call: tirx.Call, where: str) -> OpNode:
        """``T.im2col(data, dst, nhw_step, c_step, kernel, stride, dilation, pad)``: a convolution's
        ``bm x bk`` tile of the implicit im2col matrix (rows: output pixels ``nhw_step * bm ...``, columns:
        ``(kh, kw, c)`` from ``c_step * bk``) gathered from an NHWC tensor into shared memory. TileLang 0.1.15
        lowers it on sm_90a to one TMA im2col load a step (``tl::tma_load_im2col``). A copy of the input
        pixels the tile's rows sit on, at the tap and channels of its columns: ``bm`` pixels of an output row
        (or whole output rows), ``bk`` channels; padding taps are clamped to the tensor's edge."""
        src, dst = self._region(call.args[0]), self._region(call.args[1])
        if len(src.extents) != 4 or len(dst.extents) != 2:
            dims = f"{len(src.extents)}-D tensor into a {len(dst.extents)}-D tile"
            what = f"T.im2col from a {dims} (it reads NHWC into 2-D)"
            raise UnsupportedOpError(what, self.name, where)
        kk, stride, dil, pad = (self._const(x, "im2col parameter") for x in call.args[4:8])
        n_img, h_in, w_in, chans = self.buffers[src.buffer][2]
        oh = (h_in + 2 * pad - dil * (kk - 1) - 1) // stride + 1
        ow = (w_in + 2 * pad - dil * (kk - 1) - 1) // stride + 1
        bm, bk = dst.extents
        if bm <= ow and ow % bm == 0:
            rows, width = 1, bm
        elif bm % ow == 0 and bm // ow <= oh and oh % (bm // ow) == 0:
            rows, width = bm // ow, ow
        else:
            what = f"T.im2col tile of {bm} output pixels across rows of {ow}"
            raise UnsupportedOpError(what, self.name, where)
        if chans % bk:
            raise UnsupportedOpError(f"T.im2col of {bk} columns over {chans} channels", self.name, where)
        m0 = call.args[2] * bm
        k0 = call.args[3] * bk
        zero = tirx.const(0, "int32")
        n = tirx.min(m0 // (oh * ow), n_img - 1)
        h = (m0 % (oh * ow)) // ow * stride - pad + k0 // (chans * kk) * dil
        w = m0 % ow * stride - pad + (k0 // chans) % kk * dil
        mins = (
            n,
            tirx.max(tirx.min(h, h_in - rows), zero),
            tirx.max(tirx.min(w, w_in - min(width, w_in)), zero),
            k0 % chans,
        )
        region = Region(src.buffer, src.scope, src.dtype, mins, (1, rows, min(width, w_in), bk))
        copied_from(dst.buffer, src.buffer, region.mins, region.extents)
        reuse = Im2colReuse()
        step = call.args[3]
        if isinstance(step, tirx.Var) and step.name in self.loop_trips:
            starts, trips = self.loop_trips[step.name]
            if starts.size == 1 and int(starts[0]) == 0:
                steps = min(int(trips[0]), kk * kk * chans // bk)
                reuse = im2col_rereads(steps, bk, chans, kk, stride, dil, rows, width, oh, ow)
                share = sum(s for _, s in reuse.rereads)
                self.notes.append(
                    f"T.im2col at {where}: {share:.0%} of each step's pixels were read a tap before (by the "
                    f"tile or the one beside it); first reads in {reuse.fresh:.0%} of the steps"
                )
        return OpNode(
            "copy", (region,), (dst,), where, elements=dst.elements, rereads=reuse.rereads, fresh=reuse.fresh
        )

    def _register_hint(self, call: tirx.Call, where: str) -> list[OpNode | LoopNode]:
        """``T.set_max_nreg(n, inc)`` / ``T.disable_warp_group_reg_alloc()``: hints to the register allocation
        of warp-specialised kernels (see SET_MAX_NREG), no tile work. A warp-specialised kernel's consumers
        already get the whole register budget in the plan (lower.WS_CONSUMER_MAX_REGS); after a user's
        set_max_nreg TileLang still sets its own pair, so the plan is unchanged; without the pair every thread
        keeps ptxas's launch-bounds allocation (KernelIR.setmaxnreg). Both at once leave the count to the
        user's hint, which is refused."""
        if call.op.name == NO_SET_MAX_NREG:
            self.setmaxnreg = False
            self.notes.append(
                f"T.disable_warp_group_reg_alloc at {where}: TileLang sets no setmaxnreg; a warp-specialised "
                "kernel's threads keep the registers ptxas gives them at its launch bounds"
            )
        else:
            count, inc = (self._const(a, "set_max_nreg argument") for a in call.args[:2])
            self.nreg_hints += 1
            self.notes.append(
                f"T.set_max_nreg({count}, {inc}) at {where}: a register hint; TileLang sets its own "
                "setmaxnreg pair in a warp-specialised kernel's branches after it, and the plan keeps its "
                "register budget"
            )
        if self.nreg_hints and not self.setmaxnreg:
            what = "T.set_max_nreg with T.disable_warp_group_reg_alloc (registers set by hand)"
            raise UnsupportedOpError(what, self.name, where)
        return []

    def _scalar_atomic(self, stmt: tirx.Evaluate, where: str) -> OpNode:
        """``T.atomic_add(C[bx * 128 + tx], acc[0])`` outside T.Parallel (TileLang's GEMV examples): every
        thread of the block adds its one value, ``threads`` adds per execution (TileLang 0.1.15 lowers it to
        ``AtomicAdd(&C[...], acc[0])``: on sm_90a one ``REDG.E.ADD.F32`` per thread into global memory, an
        ``LDS`` + ``ATOMS.CAST.SPIN`` compare-and-swap loop per thread into shared memory). Into global memory
        the thread indices are the lanes of an element-wise atomic add (:meth:`_atomic`): the target must be
        one element per thread (``start + tx``), the tile the block's threads cover; into shared memory it is
        an update of that buffer. The value is one on-chip buffer's element or a constant. Refused under an
        ``if`` on a thread index (its threads are not counted), or where threads share a global element."""
        elem = _atomic_elem(stmt)
        if elem is None:
            raise UnsupportedOpError(f"T.atomic_add of the form {stmt.value}", self.name, where)
        target, value = elem
        name = target.buffer.name
        if self.thread_guards:
            what = f"T.atomic_add to {name!r} under an if on the thread index"
            raise UnsupportedOpError(what, self.name, where)
        srcs: list[Region] = []
        global_reads: list[str] = []

        def operand(node: Any) -> None:
            if isinstance(node, tirx.BufferLoad):
                if self.buffers.get(node.buffer.name, (GLOBAL,))[0] == GLOBAL:
                    global_reads.append(node.buffer.name)
                else:
                    srcs.append(self._whole(node.buffer))

        tirx.stmt_functor.post_order_visit(value, operand)
        if global_reads or len(srcs) > 1:
            what = "T.atomic_add of a value that is not one on-chip buffer's element"
            raise UnsupportedOpError(what, self.name, where)
        scope = self.buffers.get(name, (GLOBAL,))[0]
        if scope == SHARED:
            dst = self._whole(target.buffer)
        elif scope == GLOBAL:
            dst = self._lane_region(target.buffer, target.indices, self._thread_lanes())
            if dst is None or dst.elements != self.threads:
                what = (
                    f"T.atomic_add to global {name!r} at [{', '.join(map(str, target.indices))}], not one "
                    f"element for each of the block's {self.threads} threads"
                )
                raise UnsupportedOpError(what, self.name, where)
        else:
            raise UnsupportedOpError(f"T.atomic_add to {name!r} in registers", self.name, where)
        return OpNode("atomic_elem", tuple(srcs), (dst,), where, elements=self.threads)

    # -- per-thread statements indexing global memory by the thread index ---------------------------------
    def _thread_vector(self, stmt: tirx.For) -> list[OpNode] | None:
        """``for k in T.vectorized(n)`` around scalar stores, one of which reads or writes global memory at an
        index of the thread index (TileLang's GEMV examples: ``B_l[k] = B[bn * BN + tn, bk * BK + tk * TILE_K
        + k]``): each thread moves ``n`` consecutive elements as one vector access (TileLang 0.1.15 lowers it
        to ``*(uint4*)(B_l + 0) = *(uint4*)(B + ...)``, one ``LDG.E.128`` on sm_90a), so each store is one
        statement of the block's threads x ``n`` elements over the region they cover together
        (:meth:`_thread_store`). None for any other vectorized loop (walked as a loop, as before), or where a
        store's global access does not cover a box."""
        extent = np.asarray(evaluate(stmt.extent, self.env, self.name))
        if extent.size != 1 or not self._thread_lanes():
            return None
        body = stmt.body
        stmts = list(body.seq) if isinstance(body, tirx.SeqStmt) else [body]
        if not stmts or not all(isinstance(s, tirx.BufferStore) for s in stmts):
            return None
        where = self._where(f"T.vectorized over {stmt.loop_var.name}")
        self.env[stmt.loop_var.name] = 0
        vec = {stmt.loop_var.name: int(extent.flat[0])}
        nodes = [self._thread_store(s, vec, where) for s in stmts]
        if any(n is None for n in nodes):
            return None
        return [n for n in nodes if n is not None]

    def _thread_lanes(self) -> dict[str, int]:
        """The block's thread index variables of more than one value, and their extents."""
        return {v: n for v, n in self.thread_extents.items() if n > 1}

    def _thread_store(self, stmt: tirx.BufferStore, vec: dict[str, int], where: str) -> OpNode | None:
        """A scalar store (``vec`` empty) or a T.vectorized loop's store (``vec``: its loop variable) that
        reads or writes global memory at an index of a thread index variable (``T.get_thread_binding``):
        every thread of the block runs it, so it moves the elements all threads touch together, not thread
        0's (the walker's env holds the thread indices at 0). Its global regions are found by evaluating each
        index over the thread extents (and the vector lanes), as :mod:`.expr` evaluates over the blocks
        (:meth:`_spread_region`); the statement counts threads x vector-lanes elements of work. None (the
        statement is then priced as before, for one thread) where no global access depends on a thread
        index, under an ``if`` on a thread index (only some threads run it), or where an access's elements
        are not one box the same for every block."""
        threads = self._thread_lanes()
        if not threads or self.thread_guards:
            return None
        lanes = {**threads, **vec}
        accesses: list[tuple[tirx.Buffer, Any]] = []

        def collect(node: Any) -> None:
            if isinstance(node, tirx.BufferLoad):
                accesses.append((node.buffer, node.indices))

        tirx.stmt_functor.post_order_visit(stmt.value, collect)
        accesses.append((stmt.buffer, stmt.indices))
        spread = False
        for buf, indices in accesses:
            if self.buffers.get(buf.name, (GLOBAL,))[0] != GLOBAL:
                continue
            used = set().union(*(_vars_through(i, self.binds) for i in indices))
            if used & set(threads):
                spread = True
            if self._spread_region(buf, indices, lanes) is None:
                return None
        if not spread:
            return None
        per_thread = math.prod(vec.values())
        node = self._store(stmt, self.threads * per_thread, where, lanes, spread=True)
        return dataclasses.replace(node, per_thread=per_thread)

    def _lane_env(self, values: Iterable[str], lanes: dict[str, int]) -> dict[str, Any]:
        """An environment that evaluates over the blocks and the ``lanes`` at once: the lanes on trailing axes
        after the grid's, each lane variable a range along its own, and the walker's ``values`` (block
        indices, what the kernel bound from them) given one axis of size 1 per lane where they vary by
        block."""
        nd, names = len(self.grid), list(lanes)
        env: dict[str, Any] = {}
        for v in values:
            value = np.asarray(self.env[v])
            env[v] = value.reshape(value.shape + (1,) * len(names)) if value.ndim == nd and nd else value
        for a, v in enumerate(names):
            env[v] = np.arange(lanes[v]).reshape([1] * nd + [-1 if k == a else 1 for k in range(len(names))])
        return env

    def _spread_region(self, buf: tirx.Buffer, indices: Any, lanes: dict[str, int]) -> Region | None:
        """The box of ``buf`` that the accesses at ``indices`` cover over every value of the ``lanes``
        (thread indices, vector lanes): each index, let-bound variables inlined, is evaluated over the blocks
        and the lanes (lanes on trailing axes after the grid's); its start is the index at lanes 0, and the
        lanes' offsets from it must be the same for every block. The region is the distinct elements the
        offsets reach when they form a box (``tn`` along rows and ``tk * 8 + k`` along columns: a 32 x 64
        tile); None otherwise (a strided ``2 * tx``, offsets that vary by block)."""
        env = self._lane_env(self.env, lanes)
        shape = (*self.grid, *lanes.values())
        mins: list[Any] = []
        offsets: list[np.ndarray] = []
        analyzer = arith.Analyzer()
        for idx in indices:
            expr = self._inlined(idx)
            zero: dict[Any, Any] = {}

            def lane_var(n: Any, zero: dict[Any, Any] = zero) -> None:
                if isinstance(n, tirx.Var) and n.name in lanes:
                    zero.setdefault(n, tirx.IntImm(n.dtype, 0))

            tirx.stmt_functor.post_order_visit(expr, lane_var)
            start = analyzer.simplify(stmt_functor.substitute(expr, zero)) if zero else expr
            try:
                value = np.broadcast_to(np.asarray(evaluate(expr, env, self.name)), shape)
                base = np.broadcast_to(np.asarray(evaluate(start, env, self.name)), shape)
            except (UnsupportedOpError, ValueError, TypeError):
                return None
            off = (value - base).reshape(-1, math.prod(lanes.values()))
            if not (off == off[:1]).all():
                return None
            low = int(off[0].min())
            mins.append(start if low == 0 else start + low)
            offsets.append(off[0] - low)
        extents = [int(o.max()) + 1 for o in offsets]
        distinct = len({tuple(t) for t in np.stack(offsets, axis=1).tolist()}) if offsets else 1
        boxed = all(len(np.unique(o)) == e for o, e in zip(offsets, extents, strict=True))
        if distinct != math.prod(extents) or not boxed:
            return None
        scope, dtype, _ = self.buffers[buf.name]
        return Region(buf.name, scope, dtype, tuple(mins), tuple(extents))

    # -- T.Parallel and scalar stores ----------------------------------------------------------------------
    def _parallel(self, stmt: tirx.For) -> list[OpNode]:
        where = self._where(f"T.Parallel over {stmt.loop_var.name}")
        iters = 1
        inner: Any = stmt
        lanes: dict[str, int] = {}
        while isinstance(inner, tirx.For):
            extent = self._const(inner.extent, "parallel extent")
            iters *= extent
            self.env[inner.loop_var.name] = 0
            lanes[inner.loop_var.name] = extent
            inner = inner.body
        stmts = list(inner.seq) if isinstance(inner, tirx.SeqStmt) else [inner]
        reads: list[Region] = []
        writes: list[Region] = []
        arith = sfu = 0
        local_bytes = 0.0
        shuffles = 0
        chains: list[Chain | None] = []
        # a local bound inside the nest (``q_idx = bx * block_M + i``, a LetStmt) stands for its value: it is
        # substituted into the statements after it, where the compiler folds it the same way
        local: dict[Any, Any] = {}
        body: list[Any] = []
        for s in stmts:
            if isinstance(s, tirx.Bind):
                local[s.var] = stmt_functor.substitute(s.value, local) if local else s.value
                continue
            body.append(stmt_functor.substitute(s, local) if local else s)
        # element-wise atomic adds (a split-K epilogue, a norm's backward adding its partial gradients) are
        # each the atomic add of a tile, after what the rest of the nest computes
        atomics: list[OpNode] = []
        rest: list[Any] = []
        for s in body:
            if _atomic_elem(s) is not None:
                atomics.append(self._atomic(s, iters, where, lanes))
            else:
                rest.append(s)
        if not rest:
            return atomics
        body = rest
        for s in body:
            guarded = None
            if isinstance(s, tirx.IfThenElse):
                try:
                    guarded = self._lane_guard(s, lanes, where)
                except UnsupportedOpError:
                    select = self._register_select(s)
                    if select is None:
                        raise
                    s = select  # noqa: PLW2901 (the guarded register store, as the select it compiles to)
                    guarded = (s,), lanes
                if guarded is None:
                    continue  # no lane passes the guard
                inner_stmts, stmt_lanes = guarded
                nodes = [
                    self._store(x, math.prod(stmt_lanes.values()), where, stmt_lanes) for x in inner_stmts
                ]
            else:
                nodes = [self._store(s, iters, where, lanes)]
            for node in nodes:
                reads.extend(node.reads)
                writes.extend(node.writes)
                arith += node.arith_ops
                sfu += node.sfu_ops
                local_bytes += node.local_bytes
                shuffles += node.shuffles
                chains.append(node.chain)
        if not reads and not writes:  # every statement under a guard no lane passes: the nest does nothing
            return atomics
        chain = None
        if chains and all(c is not None for c in chains):  # one vector iteration runs every store
            cs = [c for c in chains if c is not None]
            chain = Chain(
                lanes=min(c.lanes for c in cs),
                alu=sum(c.alu for c in cs),
                cvt=sum(c.cvt for c in cs),
                packed=all(c.packed for c in cs),
                serial=any(c.serial for c in cs),
                packed_cvt=any(c.packed_cvt for c in cs),
                narrow_cvt=any(c.narrow_cvt for c in cs),
            )
        reads, writes = self._side_by_side(reads, writes)
        waves = self._smem_wavefronts(body, lanes)
        node = OpNode(
            "parallel", tuple(reads), tuple(writes), where, iters, arith, sfu, chain=chain,
            smem_wavefront_bytes=waves[0] if waves else None, smem_buffers=waves[1] if waves else (),
            sync_copy=self._sync_copy(body, lanes), local_bytes=local_bytes, shuffles=shuffles,
        )  # fmt: skip
        return [node, *atomics]

    def _smem_wavefronts(
        self, stmts: list[Any], lanes: dict[str, int]
    ) -> tuple[float, tuple[str, ...]] | None:
        """Shared-memory wavefronts (as bytes, :data:`~tilesight.model.banks.WAVEFRONT_BYTES` each) of a
        T.Parallel nest's shared loads and stores, and the shared buffers they address.

        Only for a nest TileLang partitions by itself, as 0.1.15's ``PlanLoopPartition`` does when no fragment
        fixes the layout: the nest's iterations flattened row-major, cut into vectors of
        :meth:`_vector_lanes` elements, vector ``v`` run by thread ``v % threads`` in round ``v // threads``
        (the lowered CUDA of a 64 x 64 transpose through shared memory on 256 threads reads
        ``s[(tx & 63) * 64 + i * 4 + (tx >> 6)]``). A shared access contiguous along the innermost loop
        variable is one vector access per thread (split as the row's alignment requires); any other issues
        one access per distinct element. The lanes of each warp access then give the wavefronts
        (:func:`~tilesight.model.banks.wavefronts_many`) at row-major addresses. None for a nest with a
        guard, a fragment or local buffer, or no shared access, and for a buffer given a layout by
        ``T.annotate_layout``; the caller prices bytes then."""
        accesses: list[tuple[Any, Any]] = []

        def collect(node: Any) -> None:
            if isinstance(node, tirx.BufferLoad):
                accesses.append((node.buffer, node.indices))

        for s in stmts:
            if not isinstance(s, tirx.BufferStore):
                return None
            accesses.append((s.buffer, s.indices))
            tirx.stmt_functor.post_order_visit(s.value, collect)
        scopes = [self.buffers.get(buf.name, (GLOBAL,))[0] for buf, _ in accesses]
        if any(sc not in (GLOBAL, SHARED) for sc in scopes) or SHARED not in scopes:
            return None
        shared = [a for a, sc in zip(accesses, scopes, strict=True) if sc == SHARED]
        if any(buf.name in self.laid_out for buf, _ in shared):
            return None
        names = list(lanes)
        inner = names[-1]
        vec = self._vector_lanes(accesses, lanes)
        extents = tuple(lanes.values())
        total = math.prod(extents)
        flat = np.arange(total)
        env: dict[str, Any] = dict(zip(names, np.unravel_index(flat, extents), strict=True))
        threads = max(1, self.threads)
        vector = flat // vec
        thread, rnd, slot = vector % threads, vector // threads, flat % vec
        rounds, warps = int(rnd.max()) + 1, -(-threads // banks.WARP_SIZE)
        waves, seen = 0, set()
        for buf, indices in shared:
            key = (buf.name, tuple(str(i) for i in indices))
            if key in seen:  # the same element read twice in one iteration: one load
                continue
            seen.add(key)
            for v in set().union(*(free_vars(i) for i in indices)) - set(names):
                known = self.env.get(v)  # a block-level offset: the same for every lane
                env[v] = known if isinstance(known, int) else 0
            shape = self.buffers[buf.name][2]
            strides = [math.prod(shape[d + 1 :]) for d in range(len(shape))]
            elem = dtype_bytes(str(buf.dtype))
            if elem < 1 or elem != int(elem):
                return None  # sub-byte elements: packed, not addressed one by one
            elem = int(elem)
            offset = sum(
                np.broadcast_to(evaluate(i, env, self.name), flat.shape) * st
                for i, st in zip(indices, strides, strict=True)
            )
            offset = np.asarray(offset, dtype=np.int64)
            addr = np.full((rounds, warps * banks.WARP_SIZE, vec), -1, dtype=np.int64)
            addr[rnd, thread, slot] = offset * elem
            if vec > 1 and _inner_divisor(indices, inner, frozenset(names)) == 1:
                # vector accesses as wide as the row's alignment allows: a padded row (64 x 66 halves) keeps
                # the partition's 8 lanes a thread but moves them 2 at a time (TileLang's lowering: uint1)
                run = math.gcd(vec, int(np.gcd.reduce(offset - env[inner])))
                slots, width = [addr[:, :, e] for e in range(0, vec, run)], run * elem
            else:
                slots = [
                    addr[:, :, e]
                    for e in range(vec)
                    if e == 0 or not np.array_equal(addr[:, :, e], addr[:, :, e - 1])
                ]
                width = elem
            for a in slots:
                a, size = _merged_rounds(a, width)
                rows = a.reshape(-1, banks.WARP_SIZE)
                rows = rows[rows[:, 0] >= 0]  # warps with no iteration left in the last round
                rows = np.where(rows >= 0, rows, rows[:, :1])  # idle lanes: a copy of lane 0 (no new word)
                waves += banks.wavefronts_many(rows, size)
        return float(waves * banks.WAVEFRONT_BYTES), tuple(sorted({buf.name for buf, _ in shared}))

    def _sync_copy(self, stmts: list[Any], lanes: dict[str, int]) -> bool:
        """Whether a T.Parallel nest copies global memory into shared memory through an ``if_then_else``
        whose condition can fail: TileLang 0.1.15 lowers that copy to plain loads and shared stores the
        threads wait for, not a ``cp.async``, and a ``T.Pipelined`` loop whose every such copy is one is not
        multi-buffered at all (the lowered CUDA of a 128 x 128 x 32 GEMM at 4000^3, read on CPU, for each
        of four guards on each operand: ``by * 128 + i < 4000`` makes A's copy synchronous, ``k * 32 + j <
        4000``, always true over the loop, leaves it asynchronous; both operands guarded by conditions that
        can fail leave one buffer each and ``__syncthreads`` around every step). A condition TileLang's own
        analyzer proves over the lanes', blocks' and loops' ranges is dropped, and so is here, unless it joins
        comparisons with Python's ``&`` (a ``bitwise_and`` TileLang does not simplify)."""
        ranges: dict[str, tuple[int, int]] = {v: (0, n) for v, n in lanes.items()}
        ranges.update({v: (0, n) for v, n in zip(self.grid_vars, self.grid, strict=True)})
        for v, (starts, counts) in self.loop_trips.items():
            if starts.size and counts.size:
                lo = int(starts.min())
                ranges[v] = (lo, max(lo + 1, int((starts + counts).max())))
        found = False

        def can_fail(cond: Any) -> bool:
            analyzer = arith.Analyzer()
            bitwise = False

            def bind(n: Any) -> None:
                nonlocal bitwise
                if isinstance(n, tirx.Var) and n.name in ranges:
                    lo, hi = ranges[n.name]
                    analyzer.bind(n, tvm_ir.Range(lo, hi))
                elif isinstance(n, tirx.Call) and n.op.name.split(".")[-1].startswith("bitwise_"):
                    bitwise = True

            tirx.stmt_functor.post_order_visit(cond, bind)
            # comparisons joined with Python's ``&`` (``bitwise_and``) are never dropped by TileLang: the same
            # GEMM at 4096^3, every guard true, keeps ``(row < M) & (col < K)`` copies synchronous and its
            # loop unpipelined, where ``T.And`` of the same comparisons is proven and dropped
            return bitwise or not analyzer.can_prove(cond)

        def visit(node: Any) -> None:
            nonlocal found
            if not (isinstance(node, tirx.Call) and node.op.name.split(".")[-1] == "if_then_else"):
                return
            loads: list[Any] = []
            tirx.stmt_functor.post_order_visit(
                node.args[1], lambda n: loads.append(n) if isinstance(n, tirx.BufferLoad) else None
            )
            if any(self.buffers.get(ld.buffer.name, (GLOBAL,))[0] == GLOBAL for ld in loads):
                found = found or can_fail(self._inlined(node.args[0]))

        for s in stmts:
            if isinstance(s, tirx.BufferStore) and self.buffers.get(s.buffer.name, (GLOBAL,))[0] == SHARED:
                tirx.stmt_functor.post_order_visit(s.value, visit)
        return found

    def _vector_lanes(self, accesses: list[tuple[Any, Any]], lanes: dict[str, int]) -> int:
        """The vector width TileLang's loop vectoriser gives a T.Parallel nest over ``accesses`` (buffer,
        indices): 16 bytes of the widest element accessed, at most ``d`` where the innermost loop variable is
        indexed ``j // d``, 1 where it is indexed any other way but ``j`` or ``start + j`` (see
        :func:`_inner_divisor`); a divisor of the innermost extent."""
        inner, extent = list(lanes.items())[-1]
        widest = max(dtype_bytes(str(buf.dtype)) for buf, _ in accesses)
        vec = max(1, int(VECTOR_BYTES // widest))
        for _, indices in accesses:
            d = _inner_divisor(indices, inner, frozenset(lanes))
            if d == 0:
                vec = 1
            elif d > 1:
                vec = min(vec, d)
        return math.gcd(vec, extent)

    def _side_by_side(self, reads: list[Region], writes: list[Region]) -> tuple[list[Region], list[Region]]:
        """A T.Parallel nest's global regions, a global tile its statements read more than once read once, and
        the tiles of one global buffer it reads or writes at constant offsets from one another (a rotary
        embedding's ``X[..., j]`` and ``X[..., j + half]``) each given its :attr:`Region.shift` from the
        lowest of them: the plan moves each as a region of its own, as the Triton frontend does for ``x +
        half`` (two tensor accesses side by side), so together they are the tile read once. Tiles of one
        buffer whose offset is not constant (a case the walker refuses inside one statement) are left as they
        are."""
        distinct: dict[str, list[Region]] = {}
        for r in (*reads, *writes):
            if r.scope == GLOBAL and not any(_same_region(r, x) for x in distinct.setdefault(r.buffer, [])):
                distinct[r.buffer].append(r)
        placed: dict[str, list[Region]] = {}
        for name, regions in distinct.items():
            offsets = [_offset(regions[0], r) for r in regions]
            if len(regions) < 2 or any(o is None for o in offsets):
                continue
            shape = self.buffers[name][2]
            strides = [math.prod(shape[d + 1 :]) for d in range(len(shape))]
            flat = [sum(o * s for o, s in zip(off, strides, strict=True)) for off in offsets]
            low = offsets[flat.index(min(flat))]
            placed[name] = [
                dataclasses.replace(r, shift=tuple(o - b for o, b in zip(off, low, strict=True)))
                for r, off in zip(regions, offsets, strict=True)
            ]

        def place(r: Region) -> Region:
            for x in placed.get(r.buffer, ()):
                if _same_region(r, x):
                    return x
            return r

        kept: list[Region] = []
        for r in reads:
            r = place(r)
            if r.scope != GLOBAL or not any(_same_region(r, x) for x in kept):
                kept.append(r)
        return kept, [place(w) for w in writes]

    def _register_select(self, stmt: tirx.IfThenElse) -> Any:
        """A guard inside a T.Parallel nest around one store to a register buffer that :meth:`_lane_guard`
        cannot read as a box of lanes (``if i < j: A_frag[i, j] = 0``, a triangular mask), as the store of a
        select: ``A_frag[i, j] = (i < j) ? 0 : A_frag[i, j]``. A fragment's elements sit in its threads'
        registers, and each thread runs the compare and the predicated write for every element it holds,
        whichever lanes pass, so the nest costs its whole lanes, the condition's arithmetic and the select.
        None for any other guard (an ``else``, several statements, an access outside registers)."""
        then = stmt.then_case
        if stmt.else_case is not None or not isinstance(then, tirx.BufferStore):
            return None
        touched: list[str] = [then.buffer.name]
        for expr in (stmt.condition, then.value, *then.indices):
            tirx.stmt_functor.post_order_visit(
                expr, lambda n: touched.append(n.buffer.name) if isinstance(n, tirx.BufferLoad) else None
            )
        if any(self.buffers.get(name, (GLOBAL,))[0] != REGISTER for name in touched):
            return None
        old = tirx.BufferLoad(then.buffer, then.indices)
        return tirx.BufferStore(then.buffer, tirx.Select(stmt.condition, then.value, old), then.indices)

    def _lane_guard(
        self, stmt: tirx.IfThenElse, lanes: dict[str, int], where: str
    ) -> tuple[list[Any], dict[str, int]] | None:
        """The statements under an ``if`` inside a T.Parallel nest whose condition reads lane variables,
        constants and block-level values (``if i < valid_block_H``: the heads of a group a block holds; ``if
        bx * block_M + i < q_len``: a variable-length sequence's rows), with each lane's extent cut to the
        lanes that pass (``lane < n`` on each lane, the box TileLang's lowering masks; the mean block's box
        where blocks keep different ones); None when no lane passes. Any other guard is refused naming it."""
        cond = stmt.condition
        names = free_vars(cond)
        outer = names - set(lanes)  # block-level values: block indices and what the kernel bound from them
        if (
            stmt.else_case is not None
            or not outer <= set(self.env)
            or outer & self.loop_vars
            or not isinstance(stmt.then_case, tirx.Stmt)
        ):
            what = f"IfThenElse inside T.Parallel ({cond})"
            raise UnsupportedOpError(what, self.name, where)
        axes = list(lanes)
        env = self._lane_env(outer, lanes)
        shape = (*self.grid, *lanes.values())
        passed = np.broadcast_to(np.asarray(evaluate(cond, env, self.name), dtype=bool), shape)
        passed = passed.reshape(-1, *lanes.values())  # (blocks, lanes...)
        if not passed.any():
            return None
        counts: list[np.ndarray] = []
        for a, v in enumerate(lanes):
            along = passed.any(axis=tuple(1 + k for k in range(len(axes)) if k != a))  # (blocks, n_v)
            count = along.sum(axis=1)
            if not np.array_equal(along, np.arange(lanes[v])[None, :] < count[:, None]):
                raise UnsupportedOpError(
                    f"IfThenElse inside T.Parallel keeping lanes {v} not from 0 ({cond})", self.name, where
                )
            counts.append(count)
        box = np.ones_like(passed)
        for a, count in enumerate(counts):
            grid = np.arange(passed.shape[1 + a]).reshape([-1 if k == a else 1 for k in range(len(axes))])
            box &= grid[None] < count.reshape((-1,) + (1,) * len(axes))
        if not np.array_equal(box, passed):
            what = f"IfThenElse inside T.Parallel keeping lanes that are not a box from 0 ({cond})"
            raise UnsupportedOpError(what, self.name, where)
        # blocks keeping different boxes (a variable-length sequence's last rows, nothing past its end): a box
        # of the mean block's lanes, the other axes at their mean over the blocks that keep any
        active = passed.reshape(passed.shape[0], -1).any(axis=1)
        mean_lanes = float(np.prod(np.stack(counts), axis=0).mean())
        rest = {
            v: max(1, round(float(c[active].mean()))) for v, c in list(zip(lanes, counts, strict=True))[1:]
        }
        first = max(1, round(mean_lanes / math.prod(rest.values())))
        cut = {axes[0]: min(first, lanes[axes[0]]), **rest}
        if outer and any(c.min() != c.max() for c in counts):
            kept = ", ".join(
                f"{v} {int(c.min())}..{int(c.max())}" for v, c in zip(lanes, counts, strict=True)
            )
            self.notes.append(
                f"{where}: the lanes `{cond}` keeps vary by block ({kept}); the plan stores the mean "
                f"block's {' x '.join(map(str, cut.values()))}"
            )
        then = stmt.then_case
        return (list(then.seq) if isinstance(then, tirx.SeqStmt) else [then]), cut

    def _atomic(self, stmt: tirx.Evaluate, iters: int, where: str, lanes: dict[str, int]) -> OpNode:
        """``T.atomic_add(C[start + i, start + j], x[i, j])`` over a T.Parallel nest: the element-wise form of
        a tile's atomic add (a split-K epilogue), the same action as ``T.atomic_add`` of the whole tile."""
        target, value = _atomic_elem(stmt)
        dst = self._lane_region(target.buffer, target.indices, lanes)
        if dst is None or self.buffers.get(target.buffer.name, (GLOBAL,))[0] != GLOBAL:
            what = f"T.atomic_add to {target.buffer.name!r} at an index that is not start + lane"
            raise UnsupportedOpError(what, self.name, where)
        srcs: list[Region] = []

        def on_chip(node: Any) -> None:
            if not isinstance(node, tirx.BufferLoad):
                return
            if self.buffers.get(node.buffer.name, (GLOBAL,))[0] != GLOBAL:
                srcs.append(self._whole(node.buffer))

        tirx.stmt_functor.post_order_visit(value, on_chip)
        if len(srcs) != 1:
            what = "T.atomic_add of a value that is not one on-chip buffer's element"
            raise UnsupportedOpError(what, self.name, where)
        return OpNode("atomic_add", (srcs[0],), (dst,), where, elements=iters)

    def _lane_region(
        self, buf: tirx.Buffer, indices: Any, lanes: dict[str, int], gather: bool = False
    ) -> Region | None:
        """The tile of a global buffer a T.Parallel nest reads or writes element by element: each index is
        uniform (extent 1 at that start), a lane variable, or uniform + a lane variable (that lane's extent
        from the uniform start), each lane used once. A read (``gather``) may also divide such an index by a
        constant, ``[u +] (start + lane) // d`` (a group-wise dequantisation scale ``S[row, (k * block_K +
        j) // group_size]``): several lanes then read one element, and the tile is the distinct elements the
        lane's range meets (:meth:`_divided`). None for any other index (``2 * i``, ``i % 8``)."""
        mins: list[Any] = []
        extents: list[int] = []
        used: set[str] = set()
        for idx in indices:
            names = free_vars(idx) & set(lanes)
            if not names:
                mins.append(idx)
                extents.append(1)
                continue
            term = _lane_term(idx, lanes)
            if term is not None:
                lane, start = term
                extent = lanes[lane]
            else:
                divided = self._divided(idx, lanes) if gather else None
                if divided is None:
                    return None
                lane, start, extent = divided
            if lane in used:
                return None
            used.add(lane)
            mins.append(start)
            extents.append(extent)
        scope, dtype, _ = self.buffers[buf.name]
        return Region(buf.name, scope, dtype, tuple(mins), tuple(extents))

    def _divided(self, idx: Any, lanes: dict[str, int]) -> tuple[str, Any, int] | None:
        """(lane, first element, elements) of a read index ``[u +] (start + lane) // d``: ``floor((start +
        lane) / d)`` over the lane's ``n`` values meets ``(r + n - 1) // d + 1`` elements from ``start // d``,
        where ``r = start mod d`` is the same for every block and iteration (TVM's modular-set analysis of
        ``start``, let-bound variables inlined: ``k * 128`` is 0 mod 128). None for any other index, or a
        start whose remainder varies (the count would differ between blocks)."""
        outer = None
        if isinstance(idx, tirx.Add):
            for v, u in ((idx.a, idx.b), (idx.b, idx.a)):
                if isinstance(v, tirx.FloorDiv) and not free_vars(u) & set(lanes):
                    idx, outer = v, u
                    break
        if not isinstance(idx, tirx.FloorDiv) or not isinstance(idx.b, tirx.IntImm) or idx.b.value <= 0:
            return None
        term = _lane_term(idx.a, lanes)
        if term is None:
            return None
        lane, start = term
        d = int(idx.b.value)
        known = arith.Analyzer().modular_set(self._inlined(start))
        if int(known.coeff) % d:
            return None
        residue = int(known.base) % d
        first = tirx.floordiv(start, idx.b)
        return lane, first if outer is None else outer + first, (residue + lanes[lane] - 1) // d + 1

    def _inlined(self, expr: Any) -> Any:
        """``expr`` with the kernel's let-bound variables replaced by their values, transitively."""
        return inline_binds(expr, self.binds)

    def _store(
        self, stmt: Any, iters: int, where: str, lanes: dict[str, int] | None = None, spread: bool = False
    ) -> OpNode:
        """One element-wise store: its loads and its CUDA-core / SFU operations per element.

        Counted as the compiler emits them (``lanes``: the T.Parallel loop variables; empty for a scalar
        store; ``spread``: the thread indices and vector lanes of a per-thread statement, whose global
        regions :meth:`_spread_region` finds): a subexpression that reads no buffer and no lane variable is
        the same for every element and is computed once (``bx * block_M``, ``k * block_N``), so it costs no
        per-element operation; an add or subtract of a product is one fused multiply-add (nvcc contracts
        ``a * b + c`` by default).
        """
        stmt = self._reducer_store(stmt, where)
        if not isinstance(stmt, tirx.BufferStore):
            raise UnsupportedOpError(f"{type(stmt).__name__} inside T.Parallel", self.name, where)
        lanes = lanes or {}
        lane_names = frozenset(lanes)

        def global_tile(buf: tirx.Buffer, indices: Any, what: str, gather: bool = False) -> Region:
            # a scalar store (no lanes) reads or writes one element of a global buffer at its indices
            if spread:
                region = self._spread_region(buf, indices, lanes)
            else:
                region = self._lane_region(buf, indices, lanes, gather)
            if region is None:
                at = ", ".join(map(str, indices))
                raise UnsupportedOpError(
                    f"element-wise {what} global buffer {buf.name!r} at [{at}]", self.name, where
                )
            return region

        if self.buffers.get(stmt.buffer.name, (GLOBAL,))[0] == GLOBAL:
            out = global_tile(stmt.buffer, stmt.indices, "store to")
        else:
            out = self._whole(stmt.buffer)
        counts = {"arith": 0, "sfu": 0, "shuffles": 0}
        loads: dict[str, Region] = {}

        def visit(node: Any) -> None:
            # index arithmetic inside a load is address math the compiler folds into the unrolled access
            if isinstance(node, tirx.BufferLoad):
                name = node.buffer.name
                if self.buffers.get(name, (GLOBAL,))[0] == GLOBAL:
                    tile = global_tile(node.buffer, node.indices, "load from", gather=True)
                    same = [r for r in loads.values() if r.buffer == name]
                    if any(_same_region(r, tile) for r in same):
                        return
                    # another tile of the buffer (a rotary embedding's ``X[..., j + half]`` beside
                    # ``X[..., j]``): a region of its own where it sits a constant offset from the first
                    # (see :meth:`_side_by_side`), one TileSight cannot place otherwise
                    if same and (not lane_names or _offset(same[0], tile) is None):
                        raise UnsupportedOpError(
                            f"two element-wise tiles of global buffer {name!r} not a constant offset apart",
                            self.name,
                            where,
                        )
                    loads[name if not same else f"{name}#{len(same)}"] = tile
                    return
                loads[name] = self._whole(node.buffer)
                return
            if isinstance(node, tirx.Call):
                short = node.op.name.split(".")[-1]
                if short in SFU_CALLS:
                    counts["sfu"] += 1
                elif short in SHUFFLE_CALLS:
                    counts["shuffles"] += 1
                    visit(node.args[1])  # the value; the mask, lane or offset and width are uniform
                    return
                elif short in ARITH_CALLS:
                    counts["arith"] += CALL_OPS.get(short, 1)
                else:
                    raise UnsupportedOpError(node.op.name, self.name, where)
                for arg in node.args:
                    visit(arg)
                return
            if isinstance(node, _FREE_EXPR):
                return
            if not isinstance(node, tirx.PrimExpr):
                raise UnsupportedOpError(
                    f"{type(node).__name__} in an element-wise expression", self.name, where
                )
            if lane_names and _uniform(node, lane_names):
                return
            fused = isinstance(node, tirx.Add | tirx.Sub) and any(
                isinstance(x, tirx.Mul) and not (lane_names and _uniform(x, lane_names))
                for x in (node.a, node.b)
            )
            counts["arith"] += 0 if fused else 1
            for child in (
                getattr(node, f, None) for f in ("a", "b", "value", "condition", "true_value", "false_value")
            ):
                if child is not None:
                    visit(child)

        visit(stmt.value)
        # an element-wise op that only moves data still issues one instruction per element
        arith = max(1, counts["arith"]) if not counts["sfu"] else counts["arith"]
        chain = self._chain(stmt, lanes) if lanes and out.scope == SHARED else None
        local = 0.0
        if lanes and stmt.buffer.name in self.reducers:
            vec = self._vector_lanes(self._accesses(stmt), lanes)
            local = self._reducer_update_bytes(stmt, lanes, vec)
        if local:
            # each thread's updates of its copy's element run back to back through local memory
            chain = Chain(lanes=vec, alu=arith, cvt=0, packed=False, serial=True, packed_cvt=False,
                          narrow_cvt=False)  # fmt: skip
        return OpNode(
            "store", tuple(loads.values()), (out,), where, iters, arith, counts["sfu"], chain=chain,
            local_bytes=local, shuffles=counts["shuffles"],
        )  # fmt: skip

    @staticmethod
    def _accesses(stmt: tirx.BufferStore) -> list[tuple[Any, Any]]:
        """(buffer, indices) of a store and of every load its value reads."""
        out = [(stmt.buffer, stmt.indices)]

        def collect(node: Any) -> None:
            if isinstance(node, tirx.BufferLoad):
                out.append((node.buffer, node.indices))

        tirx.stmt_functor.post_order_visit(stmt.value, collect)
        return out

    def _reducer_store(self, stmt: Any, where: str) -> Any:
        """``T.reducer_update(acc[idx], value)`` as the store TileLang lowers it to, ``acc[idx] = acc[idx] op
        value`` on the thread's copy (one combine an element); any other statement as it is."""
        if not (isinstance(stmt, tirx.Evaluate) and isinstance(stmt.value, tirx.Call)):
            return stmt
        call = stmt.value
        if call.op.name != "tl.reducer_update":
            return stmt
        target, value = call.args[0], call.args[1]
        op = self.reducers.get(target.buffer.name)
        if op is None:
            what = f"T.reducer_update of {target.buffer.name!r}, not a reducer"
            raise UnsupportedOpError(what, self.name, where)
        combine = _REDUCER_COMBINE.get(op, tirx.Add)
        return tirx.BufferStore(target.buffer, combine(target, value), target.indices)

    def _reducer_update_bytes(self, stmt: tirx.BufferStore, lanes: dict[str, int], vec: int) -> float:
        """Bytes per element a T.Parallel update of a reducer moves through local memory: its load and its
        store, where the element a thread updates depends on the thread (the nest's lanes go to threads
        innermost first, a vector of them a thread, and the reducer is indexed by a lane that is spread
        over threads). Each thread keeps a whole copy of the reducer (see :attr:`reducers`) as an array its
        thread index indexes, which nvcc places in local memory (TileLang 0.1.15's lowered CUDA for a column
        sum: ``r[(threadIdx.x & 31) * 4]``). 0 for any other store, or where every thread updates elements
        it can name at compile time. ``vec``: the nest's vector width (:meth:`_vector_lanes`)."""
        if stmt.buffer.name not in self.reducers:
            return 0.0
        used = set().union(*(free_vars(i) for i in stmt.indices))
        remaining = self.threads
        names = list(lanes)
        for pos, var in enumerate(reversed(names)):
            extent = lanes[var] // vec if pos == 0 else lanes[var]
            spread = max(1, min(remaining, extent))
            if spread > 1 and var in used:
                return 2.0 * dtype_bytes(str(stmt.buffer.dtype))
            remaining = max(1, remaining // spread)
        return 0.0

    def _chain(self, stmt: Any, lanes: dict[str, int]) -> Chain | None:
        """The :class:`Chain` of a store into shared memory that reads shared memory only; None for any other
        store, or one whose expression calls a special function (its latency is not probed)."""
        inner, extent = list(lanes.items())[-1]
        lane_names = frozenset(lanes)
        dst_bytes = dtype_bytes(str(stmt.buffer.dtype))
        accesses = [(stmt.buffer, stmt.indices)]
        loads: list[Any] = []
        casts: list[tuple[str, str]] = []

        def collect(node: Any) -> None:
            if isinstance(node, tirx.BufferLoad):
                loads.append(node)
            elif isinstance(node, tirx.Cast):
                casts.append((str(node.value.dtype), str(node.dtype)))

        tirx.stmt_functor.post_order_visit(stmt.value, collect)
        if not loads or any(self.buffers.get(ld.buffer.name, (GLOBAL,))[0] != SHARED for ld in loads):
            return None
        accesses += [(ld.buffer, ld.indices) for ld in loads]
        vec = self._vector_lanes(accesses, lanes)
        divisors = [_inner_divisor(indices, inner, lane_names) for _, indices in accesses]
        store_footprint = vec * dst_bytes
        # an index of another form (``2 * j``) leaves the per-thread stride unknown: not counted serial
        serial = 0 not in divisors and any(
            vec * dtype_bytes(str(ld.buffer.dtype)) / min(d, vec) != store_footprint
            for ld, d in zip(loads, divisors[1:], strict=True)
        )
        path = _chain_ops(stmt.value, lane_names)
        if path is None:
            return None
        alu, cvt, _, half = path
        return Chain(
            lanes=vec,
            alu=alu,
            cvt=cvt,
            packed=half and alu > 0,
            serial=serial,
            packed_cvt=any(cvt_packed(s, d) for s, d in casts),
            narrow_cvt=any(cvt_narrow(s, d) for s, d in casts),
        )


def _ws_branch(stmt: Any) -> Any:
    """The body of a ``with T.ws(i)`` branch (an ``if`` on the thread index around a ``warp_specialize``
    attribute); None for any other statement."""
    if isinstance(stmt, tirx.IfThenElse) and isinstance(stmt.then_case, tirx.AttrStmt):
        if stmt.then_case.attr_key == WS_ATTR:
            return stmt.then_case.body
    return None


def _sync_only(stmt: Any) -> bool:
    """Whether ``stmt`` does nothing the plan prices: sequences of the barrier and hint calls the walker
    ignores (:data:`_IGNORED_CALLS`), possibly under further ``if``s. A hand-written pipeline's ``if i != 0:
    T.barrier_arrive(...); T.barrier_wait(...)`` is such a statement."""
    if stmt is None:
        return True
    if isinstance(stmt, tirx.SeqStmt):
        return all(_sync_only(s) for s in stmt.seq)
    if isinstance(stmt, tirx.IfThenElse):
        return _sync_only(stmt.then_case) and _sync_only(stmt.else_case)
    if isinstance(stmt, tirx.Evaluate):
        call = stmt.value
        return isinstance(call, tirx.Call) and getattr(call.op, "name", None) in _IGNORED_CALLS
    return False


def _call_names(stmt: Any) -> set[str]:
    """Names of the operators ``stmt`` calls."""
    names: set[str] = set()

    def visit(node: Any) -> None:
        if isinstance(node, tirx.Call) and hasattr(node.op, "name"):
            names.add(node.op.name)

    tirx.stmt_functor.post_order_visit(stmt, visit)
    return names


def _merged_rounds(addr: np.ndarray, width: int) -> tuple[np.ndarray, int]:
    """A thread's accesses of successive rounds (``addr``: rounds x threads byte addresses, -1 where idle)
    that lie side by side, aligned, as nvcc merges them in the unrolled loop: ``k`` rounds become one access
    of ``k * width`` bytes (at most 16) where every thread's ``k`` addresses run on contiguously from one
    aligned to ``k * width``. A 128 x 32 fp16 tile read ``s[j, i]`` on 128 threads (thread ``j`` reads its row
    ``i = 0, 1, ...`` round by round) is then 16-byte reads: 16 instead of 2-byte reads 16 ways conflicted,
    which the H200 timed at the DRAM bound."""
    rounds = addr.shape[0]
    k = banks.MAX_VECTOR_BYTES // width
    while k >= 2:
        if rounds % k == 0:
            blocks = addr.reshape(rounds // k, k, -1)
            first = blocks[:, :1, :]
            step = np.arange(k)[None, :, None] * width
            idle = blocks < 0
            if (
                np.all((blocks == first + step) | idle)
                and np.all(idle == idle[:, :1, :])
                and np.all((first < 0) | (first % (k * width) == 0))
            ):
                return np.ascontiguousarray(blocks[:, 0, :]), k * width
        k //= 2
    return addr, width


def _source_of(func: Any) -> str:
    """``file.py:line`` of a PrimFunc's Python definition (TVMScript keeps a span on the function, not on its
    statements); empty when the function has none."""
    span = getattr(func, "span", None)
    source = getattr(getattr(span, "source_name", None), "name", None)
    line = getattr(span, "line", None)
    if not source or not line:
        return ""
    return f"{os.path.basename(str(source))}:{int(line)}"


# TileLang vectorises a T.Parallel loop to 128-bit accesses of its widest element at most.
VECTOR_BYTES = 16
_INT_PREFIXES = ("int", "uint", "bool")


def _is_half(dtype: str) -> bool:
    return dtype in ("float16", "bfloat16")


def cvt_packed(src: str, dst: str) -> bool:
    """A conversion TileLang issues two lanes at a time: fp8 to a 16-bit float (``cvt.rn.f16x2.e4m3x2``)."""
    return src.startswith("float8") and _is_half(dst)


def cvt_narrow(src: str, dst: str) -> bool:
    """A conversion from an 8- or 16-bit integer to a float (its lane is extracted, then converted)."""
    return src in ("int8", "uint8", "int16", "uint16") and dst.startswith(("float", "bfloat"))


# _inner_divisor of an access that does not depend on the innermost loop variable: one element per vector.
BROADCAST = 1 << 30


def _inner_divisor(indices: Any, inner: str, lanes: frozenset[str]) -> int:
    """How an access indexes the innermost loop variable ``inner``: 1 as ``inner`` or ``start + inner`` in
    its last index, ``d`` as ``(start + inner) // d`` (``d`` lanes read one element), :data:`BROADCAST`
    not at all, 0 any other way (the vectoriser then gives up: one lane)."""
    *outer, last = indices
    if any(inner in free_vars(i) for i in outer):
        return 0
    if inner not in free_vars(last):
        return BROADCAST
    expr, div = last, 1
    if isinstance(expr, tirx.FloorDiv) and isinstance(expr.b, tirx.IntImm):
        expr, div = expr.a, int(expr.b.value)
    if isinstance(expr, tirx.Var) and expr.name == inner:
        return div
    if isinstance(expr, tirx.Add):
        for v, u in ((expr.a, expr.b), (expr.b, expr.a)):
            if isinstance(v, tirx.Var) and v.name == inner and not free_vars(u) & lanes:
                return div
    return 0


def _chain_ops(node: Any, lanes: frozenset[str]) -> tuple[int, int, bool, bool] | None:
    """(arithmetic ops, conversions, reads a buffer, every op on 16-bit floats) on the longest path from a
    buffer load to ``node``'s value; None where a special function lies on it. Subexpressions of neither a
    load nor a lane variable are computed once, and an add or subtract of a product is one fused
    multiply-add (as ``_store`` counts them)."""
    if isinstance(node, tirx.BufferLoad):
        return 0, 0, True, True
    if isinstance(node, _FREE_EXPR) or _uniform(node, lanes):
        return 0, 0, False, True
    if isinstance(node, tirx.Call):
        short = node.op.name.split(".")[-1]
        if short in SFU_CALLS:
            return None
        own_alu, own_cvt, children = CALL_OPS.get(short, 1), 0, list(node.args)
    elif isinstance(node, tirx.Cast):
        src, dst = str(node.value.dtype), str(node.dtype)
        ints = src.startswith(_INT_PREFIXES) and dst.startswith(_INT_PREFIXES)
        own_alu, own_cvt, children = 0, 0 if ints or src == dst else 1, [node.value]
    else:
        fields = ("a", "b", "value", "condition", "true_value", "false_value")
        children = [c for c in (getattr(node, f, None) for f in fields) if c is not None]
        fused = isinstance(node, tirx.Add | tirx.Sub) and any(
            isinstance(x, tirx.Mul) and not _uniform(x, lanes) for x in (node.a, node.b)
        )
        own_alu, own_cvt = (0 if fused else 1), 0
    best: tuple[int, int, bool, bool] = (0, 0, False, True)
    for child in children:
        sub = _chain_ops(child, lanes)
        if sub is None:
            return None
        if sub[2] and (not best[2] or (sub[0] + sub[1], sub[1]) > (best[0] + best[1], best[1])):
            best = sub
    if not best[2]:  # depends on a lane variable only: address or pattern math folded by the unrolled loop
        return 0, 0, False, True
    half = best[3] and (own_alu == 0 or _is_half(str(node.dtype)))
    return best[0] + own_alu, best[1] + own_cvt, True, half


def _uniform(expr: Any, lanes: frozenset[str]) -> bool:
    """Whether ``expr`` is plain arithmetic (no buffer load, no call but constants) on no lane variable."""
    found = {"other": False}

    def visit(node: Any) -> None:
        if isinstance(node, tirx.BufferLoad) or (
            isinstance(node, tirx.Call) and node.op.name.split(".")[-1] not in CONSTANT_CALLS
        ):
            found["other"] = True

    tirx.stmt_functor.post_order_visit(expr, visit)
    return not found["other"] and not (free_vars(expr) & lanes)


def _share_node(name: str, body: tuple[OpNode | LoopNode, ...], where: str, share: float) -> LoopNode:
    """The body of an ``if`` as a one-trip loop run in ``share`` of the blocks or iterations."""
    return LoopNode(name, np.asarray(1), 1, body, where, pipelined=False, share=share)


def _fixed_shape(buf: tirx.Buffer, kernel: str) -> tuple[int, ...]:
    """``buf``'s extents; a symbolic one is refused, naming it (bind it first: frontends.tilelang.bind)."""
    shape = []
    for s in buf.shape:
        if not isinstance(s, tirx.IntImm):
            raise UnsupportedOpError(f"symbolic shape {s} of buffer {buf.name!r}", kernel)
        shape.append(int(s.value))
    return tuple(shape)


def program_name(func: tirx.PrimFunc, name: str | None = None) -> str:
    """``name``, else the PrimFunc's ``global_symbol``, else ``"kernel"``."""
    if name is not None:
        return name
    attrs = func.attrs
    return str(attrs["global_symbol"]) if attrs is not None and "global_symbol" in attrs else "kernel"


def walk(func: tirx.PrimFunc, name: str | None = None) -> KernelIR:
    """The launch facts and tile-operator tree of a TileLang ``PrimFunc`` holding one ``T.Kernel``
    (:func:`walk_all` for a program of several)."""
    kernels = walk_all(func, name)
    if len(kernels) != 1:
        raise FrontendError(
            f"{program_name(func, name)} launches {len(kernels)} kernels (T.Kernel blocks); walk_all() walks "
            "each of them"
        )
    return kernels[0]


def walk_all(func: tirx.PrimFunc, name: str | None = None) -> tuple[KernelIR, ...]:
    """Every ``T.Kernel`` of a TileLang ``PrimFunc``, in launch order. One kernel keeps the program's name;
    several are named ``<name>.kernel<i>``. Global buffers the program allocates outside its kernels
    (``T.alloc_global``) are tensors of each kernel."""
    if not isinstance(func, tirx.PrimFunc):
        raise FrontendError(f"expected a TileLang PrimFunc, got {type(func).__qualname__}")
    name = program_name(func, name)
    source = _source_of(func)
    scratch: dict[str, tuple[str, str, tuple[int, ...]]] = {}
    kernel = name
    try:
        launches = _launches(func.body, scratch, name)
        out = []
        for i, (prelude, stmt) in enumerate(launches):
            kernel = f"{name}.kernel{i}" if len(launches) > 1 else name
            out.append(_Walker(func, kernel, scratch).walk(stmt, prelude))
        return tuple(out)
    except UnsupportedOpError as e:
        if e.location is None and source:  # a construct with no operator position: the kernel's line
            raise UnsupportedOpError(str(e.construct), kernel, f"{kernel} ({source})") from None
        raise


def _launches(
    stmt: Any, scratch: dict[str, tuple[str, str, tuple[int, ...]]], name: str
) -> list[tuple[tuple[Any, ...], Any]]:
    """The program's kernel launches in order, each with the program-level scalar binds before it:
    ``(prelude, launch statement)``. Descends through the program's root block (recording the global
    buffers it allocates in ``scratch``) and its statement sequence; a launch is a ``blockIdx`` binding loop,
    any other statement is handed to the walker as it stands (which names what it cannot read)."""
    out: list[tuple[tuple[Any, ...], Any]] = []
    binds: list[Any] = []

    def visit(s: Any) -> None:
        if isinstance(s, tirx.SBlockRealize):
            visit(s.block)
        elif isinstance(s, tirx.SBlock) and s.name_hint != "tilelang_root":
            for buf in s.alloc_buffers:
                scope = _SCOPES.get(buf.scope())
                if scope != GLOBAL:
                    raise UnsupportedOpError(
                        f"buffer {buf.name!r} of scope {buf.scope()!r} allocated outside T.Kernel", name
                    )
                scratch[buf.name] = (GLOBAL, str(buf.dtype), _fixed_shape(buf, name))
            visit(s.body)
        elif isinstance(s, tirx.SeqStmt):
            for inner in s.seq:
                visit(inner)
        elif isinstance(s, tirx.Bind):
            binds.append(s)
        else:
            out.append((tuple(binds), s))

    visit(stmt)
    return out


def _atomic_elem(stmt: Any) -> tuple[tirx.BufferLoad, Any] | None:
    """(the global element, the value added) of an element-wise ``T.atomic_add`` statement, else None."""
    if not isinstance(stmt, tirx.Evaluate) or not isinstance(stmt.value, tirx.Call):
        return None
    call = stmt.value
    if not call.op.name.endswith("atomic_add_elem_op") or len(call.args) < 2:
        return None
    ptr = call.args[0]
    if isinstance(ptr, tirx.Call) and ptr.args and isinstance(ptr.args[0], tirx.BufferLoad):
        ptr = ptr.args[0]
    if not isinstance(ptr, tirx.BufferLoad):
        return None
    return ptr, call.args[1]


def _lane_term(idx: Any, lanes: Mapping[str, int]) -> tuple[str, Any] | None:
    """(lane, start) of an index that is a lane variable (start 0) or uniform + a lane variable; else None."""
    if isinstance(idx, tirx.Var) and idx.name in lanes:
        return idx.name, tirx.IntImm(idx.dtype, 0)
    if isinstance(idx, tirx.Add):
        for v, u in ((idx.a, idx.b), (idx.b, idx.a)):
            if isinstance(v, tirx.Var) and v.name in lanes and not free_vars(u) & set(lanes):
                return v.name, u
    return None


def _same_region(a: Region, b: Region) -> bool:
    """Whether two regions view the same elements (their starts structurally equal)."""
    return (
        a.buffer == b.buffer
        and a.extents == b.extents
        and len(a.mins) == len(b.mins)
        and all(structural_equal(x, y) for x, y in zip(a.mins, b.mins, strict=True))
    )


def _offset(a: Region, b: Region) -> tuple[int, ...] | None:
    """How many elements along each axis ``b`` starts after ``a`` where that is one constant for every block,
    iteration and lane (``j + 64`` after ``j``) and the two have the same extents; else None."""
    if a.buffer != b.buffer or a.extents != b.extents or len(a.mins) != len(b.mins):
        return None
    analyzer = arith.Analyzer()
    out = []
    for x, y in zip(a.mins, b.mins, strict=True):
        diff = analyzer.simplify(y - x)
        if not isinstance(diff, tirx.IntImm):
            return None
        out.append(int(diff.value))
    return tuple(out)


def inline_binds(expr: Any, binds: Mapping[str, Any]) -> Any:
    """``expr`` with the let-bound variables ``binds`` names replaced by their values, transitively."""
    bound: dict[Any, Any] = {}

    def collect(node: Any) -> None:
        if isinstance(node, tirx.Var) and node.name in binds:
            bound.setdefault(node, binds[node.name])

    for _ in range(len(binds) + 1):
        bound.clear()
        tirx.stmt_functor.post_order_visit(expr, collect)
        if not bound:
            break
        expr = stmt_functor.substitute(expr, bound)
    return expr


def _vars_through(expr: Any, binds: dict[str, Any]) -> frozenset[str]:
    """Variables ``expr`` reads, and those its let-bound variables read, transitively."""
    seen: set[str] = set()
    todo = list(free_vars(expr))
    while todo:
        v = todo.pop()
        if v in seen:
            continue
        seen.add(v)
        if v in binds:
            todo.extend(free_vars(binds[v]))
    return frozenset(seen)


def block_vars_of(
    exprs: tuple[Any, ...],
    binds: dict[str, Any],
    grid_vars: tuple[str, ...],
    grid: tuple[int, ...] | None = None,
) -> frozenset[str]:
    """Block index variables the expressions depend on, following let-bound variables.

    With the ``grid``, a variable the expressions name but whose value does not change them over its
    range is dropped: the MLA decode example's ``cur_kv_head = hid // (kv_group_num // block_H)`` names the
    head block ``hid`` and is 0 for every head block of its grid (one KV head shared by all)."""
    used = frozenset(set().union(*(_vars_through(e, binds) for e in exprs)) & set(grid_vars))
    if not used or grid is None:
        return used
    env = _GridEnv(grid_vars, grid, binds)
    try:
        values = [np.broadcast_to(np.asarray(evaluate(e, env, "kernel")), grid) for e in exprs]
    except (UnsupportedOpError, ValueError, TypeError, ZeroDivisionError, RecursionError):
        return used  # not evaluable on CPU: keep what the expressions name
    return frozenset(
        v for axis, v in enumerate(grid_vars) if v in used and any(np.ptp(x, axis=axis).any() for x in values)
    )


class _GridEnv(Mapping[str, Any]):
    """Variables of a region start for :func:`block_vars_of`: block indices as broadcastable ranges over
    the grid, let-bound variables evaluated on demand, loop and lane variables at their first value 0."""

    def __init__(self, grid_vars: tuple[str, ...], grid: tuple[int, ...], binds: dict[str, Any]) -> None:
        self.values: dict[str, Any] = {
            v: np.arange(n).reshape([-1 if i == a else 1 for i in range(len(grid))])
            for a, (v, n) in enumerate(zip(grid_vars, grid, strict=True))
        }
        self.binds = binds

    def __getitem__(self, name: str) -> Any:
        if name not in self.values:
            self.values[name] = evaluate(self.binds[name], self, "kernel") if name in self.binds else 0
        return self.values[name]

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str)

    def __iter__(self):
        return iter(self.values)

    def __len__(self) -> int:
        return len(self.values)
