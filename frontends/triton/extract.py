"""Walk a kernel's TTIR and recover its TilePlan.

One pass over the op tree, vectorised over every launched program (:mod:`.interp`), recovers

* tile actions: loads/stores (pointer tensors, block pointers, TMA descriptors) with tile shapes, dtypes and
  masks; ``tt.dot`` shapes; elementwise, SFU and reduction work (tensor element counts);
* the loop nest with trip counts from the actual scalar arguments. A trip count that differs between
  programs (causal attention) becomes the mean over programs, rounded to the nearest integer; the maximum is
  reported in the plan notes;
* the program-id to tile-coordinate map: every pid-dependent scalar that feeds an address (through
  ``tt.splat``, a scalar ``tt.addptr``, or TMA/block-pointer offsets), followed back through affine ops with
  a uniform operand, is a coordinate candidate; the grid dimensions are a minimal set of candidates of which
  every other is a function. Each tensor's reuse dims are the grid dims its address does not depend on;
* a loop whose nested loops take bounds from its counter (triangular loops) is walked with one lane per
  (program, iteration), so those bounds are exact per iteration; the inner loop's plan trip count is
  the mean over live (program, iteration) pairs;
* ``scf.if``: a condition known before launch takes the branch most programs take (a note says when
  programs differ); a data-dependent condition takes the then-branch, with a note;
* a persistent tile loop (an ``scf.for`` whose lower bound depends on the program id and that holds memory
  actions) is unrolled over lanes: program ``p``'s iteration ``i`` is launch index ``i * programs + p``.

Ops the walker does not model raise :class:`UnsupportedOpError` naming the op and its source line.
"""

from __future__ import annotations

import collections
import functools
import math
import re
from dataclasses import dataclass, field

import numpy as np

from tilesight.dtypes import dtype_bytes
from tilesight.errors import FrontendError, UnsupportedOpError
from tilesight.plan import (
    DESCRIPTOR_LOAD,
    ELEMENT_ASYNC_COPY,
    NARROW_ASYNC_COPY,
    SCATTER_ATOMIC,
    SYNC_LOAD,
    AccessMode,
    ActionKind,
    MemLevel,
    ScanCarry,
    walked_trips,
)
from tilesight.tensorspec import TensorSpec

from . import interp, strides
from .banks import staged_store_bytes
from .compile import CompiledIR
from .ir import (
    BLOCK_LABEL,
    Function,
    Op,
    at_op,
    counted_while,
    depends_on,
    located,
    op_axis,
    parse_module,
    tensor_type,
    walk_ops,
)
from .layouts import (
    access_rows,
    access_widths,
    async_copies,
    dot_a_registers,
    dot_instr_n,
    dot_replication,
    element_replication,
    fma_dots,
    lane_strides,
    mma_passes,
    pipelined,
    reduce_warps,
    scan_carries,
    scattered_atomics,
    scattered_copies,
    sync_loads_in_pipelined_loops,
    warp_local_gathers,
)

_ELEM = {
    "f16": "float16",
    "bf16": "bfloat16",
    "f32": "float32",
    "f64": "float64",
    "tf32": "tfloat32",
    "f8E4M3FN": "float8_e4m3fn",
    "f8E5M2": "float8_e5m2",
    "f8E4M3FNUZ": "float8_e4m3fnuz",
    "f8E5M2FNUZ": "float8_e5m2fnuz",
    "i1": "bool",
    "i8": "int8",
    "i16": "int16",
    "i32": "int32",
    "i64": "int64",
}
# PTX instructions the special-function units execute (MUFU): an inline-asm statement with one of them
_SFU_PTX = frozenset({"tanh", "ex2", "lg2", "rcp", "rsqrt", "sqrt", "sin", "cos"})
_SFU_MATH = frozenset({"exp", "exp2", "log", "log2", "sqrt", "rsqrt", "sin", "cos", "tanh", "erf", "tan"})
_SFU_EXTERN = re.compile(r'symbol = "__nv_(\w*?)(?:f)?"')
_SFU_EXTERN_NAMES = ("exp", "log", "sqrt", "rsqrt", "sin", "cos", "tan", "erf", "pow", "rcp")
# Math functions that compile to a straight-line software routine rather than one special-function
# instruction: (other instructions, MUFU instructions) per element, as ptxas emits them for sm_90 (the SASS
# of one fp32 call an element less a copy kernel's: ``python benchmarks/triton_sweep/sass_routines.py``,
# benchmarks/data/sass_routines_triton.json). Each instruction takes one CUDA-core issue slot (the profile's
# CUDA-core rate is one of issued instructions; ``alu_op_cost`` prices IR-level compares and selects, which
# expand to several instructions, not these). ``tl.exp``, ``exp2``, ``sqrt``, ``rsqrt`` and division stay
# one special-function operation: the softmax, normalisation and attention probes the profile's rates come
# from time them with their few scaling multiplies. Routines with a rarely taken branch (sin, cos, tan: a
# slow argument reduction; pow) keep the one operation too, their static instruction counts not being what
# runs.
LIBDEVICE_ROUTINES = {"erf": (27.375, 1), "tanh": (14.75, 2), "log": (25.5, 0), "log2": (27.5, 0)}
# Layout and bookkeeping ops: no arithmetic of their own at tile level.
_LAYOUT = frozenset(
    {
        "tt.splat",
        "tt.broadcast",
        "tt.expand_dims",
        "tt.reshape",
        "tt.trans",
        "tt.make_range",
        "tt.addptr",
        "tt.join",
        "tt.split",
        "tt.cat",
        "tt.bitcast",
        "tt.int_to_ptr",
        "tt.ptr_to_int",
        "tt.advance",
        "tt.make_tensor_ptr",
        "tt.assert",
        "tt.print",
        "ttg.convert_layout",
        "tt.unsplat",
        "ub.poison",
    }
)
# A warp shuffle in CUDA-core operations: 32 results a clock per SM against 128 for an add or compare on
# compute capability 9.0 (CUDA C++ Programming Guide, arithmetic instruction throughput).
SHUFFLE_ALU_OPS = 4
# tl.histogram's counters: int32 bins (Walker.histogram)
HISTOGRAM_BIN_BYTES = 4
# A cp.async may bypass L1 (``cp.async.cg``) at 16 bytes a thread only; an 8-byte one is ``cp.async.ca``, the
# width the ``warps`` probe's small set measured (4-byte ones into a transposed tile: ELEMENT_ASYNC_COPY)
NARROW_COPY_BYTES = 8
_DENSE_INT = re.compile(r"^\s*dense<(-?\d+)>\s*:")
_NUM_STAGES = re.compile(r"tt\.num_stages = (\d+)")
# Largest lane count (programs x iterations) over which a loop whose nested loop bounds use its counter is
# walked per iteration; beyond it the counter stays unknown and the inner bound raises. 2**22 int64 lanes are
# 32 MiB per live scalar.
MAX_LANES = 1 << 22
_TERMINATORS = frozenset({"scf.yield", "tt.return", "tt.reduce.return", "tt.scan.return", "scf.condition"})
# Block-wide barriers (``tl.debug_barrier()``): a synchronisation the tile program already implies between its
# dependent actions; no work of their own.
_BARRIERS = frozenset({"ttg.barrier", "gpu.barrier"})
# Facts the kernel states for the compiler (``tl.assume(pid_m >= 0)``, as the matrix-multiplication tutorial
# writes): no work, and nothing for the walker to learn that the argument values do not already say.
_HINTS = frozenset({"llvm.intr.assume"})
# Steps a ``while`` over scalars (a binary search) may run in a program before the walker gives up on it.
SCALAR_WHILE_STEPS = 64
SCALAR_WHILE_UNKNOWN = (
    "scf.while over scalars whose steps read data without given contents (pass that tensor's values: a numpy "
    "array, a CPU tensor or TensorSpec(..., values=...))"
)
# Programmatic dependent launch (``tl.extra.cuda.gdc_wait`` / ``gdc_launch_dependents``, griddepcontrol): a
# wait for the kernel launched before this one, and a signal that the next may start. Alone, as a prediction
# times a launch, there is no kernel before it to wait for (the instruction is a no-op without PDL too), and
# the overlap with a next kernel is not this launch's time: no work, and a note says so.
_GRID_DEPENDENCY = frozenset({"tt.grid_dependency_wait", "tt.grid_dependency_launch_dependents"})
_TENSOR_EW_PREFIX = ("arith.", "math.")
# Ops that hand a value on unchanged, in another shape, layout or type of the same bits (no instruction of
# their own): a def-chain walk for the work behind a value (:meth:`Walker.value_work`) passes through them.
# Triton 3.6 reinterprets ``tl.rand``'s integers with a ``tt.bitcast`` (i32 to i32) before converting them
# to float, where 3.9 folds it away: without it the walk stopped there and priced Philox's rounds at nothing.
_VALUE_PASSTHROUGH = frozenset(
    ("tt.broadcast", "tt.expand_dims", "ttg.convert_layout", "tt.splat", "tt.bitcast", "arith.bitcast")
)
# conversions of integer tensors to floating point: their integer inputs are values (Walker.value_work), and
# the conversion itself is SFU-pipe work (see Walker.step)
_INT_TO_FLOAT = frozenset({"arith.uitofp", "arith.sitofp"})
# float -> integer conversions: one F2I a lane, at the rate of the I2F above
_FLOAT_TO_INT = frozenset({"arith.fptosi", "arith.fptoui"})
# Floating-point element ops that issue on the SM's ALU (compares, selects, minimum / maximum), not its FMA
# units: TileAction.alu_ops, priced at the profile's alu_op_cost. Integer element ops the walker counts (on
# loaded values, a select's condition, an RNG's rounds) are ALU ops too.
_FLOAT_ALU_OPS = frozenset(
    {
        "arith.select",
        "arith.cmpf",
        "arith.maxnumf",
        "arith.minnumf",
        "arith.maximumf",
        "arith.minimumf",
    }
)


@dataclass(slots=True)
class V:
    """What the walker knows of one SSA value."""

    val: np.ndarray | None = None  # per-lane scalar value, when computable
    pid: bool = False  # depends on the program id
    cands: frozenset[str] = frozenset()  # coordinate candidates reaching it
    base: str | None = None  # pointer base argument
    loaded: bool = False  # derived from loaded data
    prods: frozenset[str] = frozenset()  # producing actions / loops in the current body
    axes: strides.Axes = None  # per-axis element strides of an index or pointer tensor
    scale: int | None = None  # the value of a splat (or dense constant) of a known uniform integer
    # pointer: elements added to the base argument as a scalar the same for every program and iteration
    # (``x_ptr + n``: a second region of one tensor); None where such an offset is not known
    shift: int | None = 0
    # scalar pointer: per-lane elements added to the base argument (None where not known); a scalar load
    # through it reads the argument's values where the caller gave them (TensorSpec.values)
    off: np.ndarray | None = None
    # the candidates among ``cands`` that reach the value only through data read from memory (a MoE block's
    # expert id read at ``pid_m``): where that data's values are known, the block an address selects follows
    # them, not these coordinates (``Walker.memory``'s direct candidates)
    via: frozenset[str] = frozenset()


def _produced(vin: V, action: str) -> V:
    """The value an element-wise op leaves once grouped into ``action``: its inputs' provenance and, for an
    integer index tensor, its per-axis strides (:meth:`Walker.strides`), produced by that action alone."""
    return V(
        loaded=vin.loaded,
        prods=frozenset({action}),
        cands=vin.cands,
        base=vin.base,
        via=vin.via,
        axes=vin.axes,
    )


# Ops whose result's constant term (Walker.const_part) is their first operand's
_CONST_PASSTHROUGH = frozenset(
    {
        "tt.splat",
        "tt.broadcast",
        "tt.expand_dims",
        "tt.reshape",
        "ttg.convert_layout",
        "arith.extsi",
        "arith.extui",
        "arith.trunci",
        "arith.index_cast",
        "arith.index_castui",
        "tt.bitcast",
    }
)

# The key suffix of a one-element access of an argument that also has wider accesses (see Walker.memory)
ELEMENT_ACCESS_SUFFIX = "[element]"


@dataclass
class _Body:
    nodes: list[dict] = field(default_factory=list)
    index: dict[str, dict] = field(default_factory=dict)
    # the last reduction so far whose axis spans several warps: its partials meet behind a block barrier,
    # which no later load or loop of the body passes before every warp reaches it (see assemble._nodes)
    barrier: str | None = None

    def close_at_barrier(self, name: str) -> None:
        """``name`` (a cross-warp reduction) is a barrier: later operations start a new fused group."""
        self.barrier = name
        for node in self.nodes:
            node.pop("fusable", None)

    def add(self, node: dict) -> None:
        self.nodes.append(node)
        self.index[node["name"]] = node

    def depends_on(self, a: str, b: str) -> bool:
        """True when node ``a`` depends (transitively) on ``b``."""
        seen, todo = set(), [a]
        while todo:
            n = todo.pop()
            if n == b:
                return True
            if n in seen or n not in self.index:
                continue
            seen.add(n)
            todo.extend(self.index[n]["deps"])
        return False


def _descriptor_indices(op: Op) -> list[str]:
    """The SSA index operands of a tensor-descriptor load or store (``tt.descriptor_load %d[%i, %j]``)."""
    idx = re.search(r"\[([^\]]*)\]", op.text)
    return re.findall(r"%[\w.$-]+", idx.group(1)) if idx else []


class Walker:
    def __init__(
        self,
        ir: CompiledIR,
        scalars: dict,
        tensors: dict[str, TensorSpec],
        grid: tuple[int, int, int],
        params: tuple[str, ...] | None = None,
    ):
        """``params``: the kernel's parameters that are arguments of the compiled function (not constexprs,
        nor integers Triton folded to constants), in order. The TTIR names an argument after the last local
        variable that held it (``in_ptr = in_ptr_c`` makes ``%in_ptr_1``), so the arguments are matched to
        the launch's by position where the counts agree, else by their SSA names."""
        self.ir = ir
        self.widths = access_widths(ir.ttgir)
        self.lane_strides = lane_strides(ir.ttgir)
        self.scattered = scattered_copies(ir.ttgir)
        self.scattered_atomics = scattered_atomics(ir.ttgir)
        self.async_copies = async_copies(ir.ttgir)
        self.sync_in_pipeline = sync_loads_in_pipelined_loops(ir.ttgir)
        self.fma_dots = fma_dots(ir.ttgir)
        self.rows = access_rows(ir.ttgir)
        self.staged = staged_store_bytes(ir.ttgir)
        self.replicated = dot_replication(ir.ttgir)
        self.element_copies = element_replication(ir.ttgir)
        self.instr_n = dot_instr_n(ir.ttgir)
        self.mma_passes = mma_passes(ir.ttgir, ir.ttir)
        self.a_registers = dot_a_registers(ir.ttgir)
        self.staged_charged: set[str] = set()  # staged-store locations already charged to an action
        # (location, address) -> the first atomic there: a float max / min's second half joins it
        self.atomic_pairs: dict[tuple[str, str], Op] = {}
        # load action name -> row addresses per thread of its pointer tensor (layouts.access_rows)
        self.pointer_rows: dict[str, int] = {}
        self.reduce_warps = reduce_warps(ir.ttgir)
        self.scan_carries = scan_carries(ir.ttgir)
        self.warp_local_gathers = warp_local_gathers(ir.ttgir)
        self.fn, self.fused = _module(ir.ttir)
        self.arg_types = dict(self.fn.args)  # kernel argument SSA name -> type
        positional = params is not None and len(params) == len(self.fn.args)
        # kernel argument SSA name -> the launch argument's name
        self.arg_names = {
            arg: (params[i] if positional else arg[1:])  # type: ignore[index]
            for i, (arg, _) in enumerate(self.fn.args)
        }
        self.kernel = self.fn.name
        self.scalars = scalars
        self.tensors = tensors
        self.grid = grid
        self.programs = grid[0] * grid[1] * grid[2]
        idx = np.arange(self.programs, dtype=np.int64)
        self.pid = [idx % grid[0], (idx // grid[0]) % grid[1], idx // (grid[0] * grid[1])]
        self.lanes = self.programs
        self.valid = np.ones(self.programs, dtype=bool)
        # the labelled blocks of the kernel's unstructured control flow (early returns), by label, and the
        # ones being walked (a branch back to one of them would be a loop)
        self.cfg_blocks: dict[str, list[Op]] = {}
        self.cfg_walking: list[str] = []
        self.env: dict[str, V] = {}
        self.defs: dict[str, Op] = {}
        self.ivs: list[str] = []  # induction variables of the loops being walked, innermost last
        # per loop being walked (innermost last): its loop-carried block arguments and its rounded mean trips
        self.carried: list[frozenset[str]] = []
        self.loop_trips: list[int] = []
        self._const_memo: dict[str, int | None] = {}  # Walker.const_part, by SSA value
        self.cands: dict[str, np.ndarray] = {}
        # coordinates a loop counter took from a program-dependent start (see loop())
        self.start_cands: set[str] = set()
        # coordinates derived from values read from memory (coords.tile_coordinates: never a grid dimension)
        self.data_cands: set[str] = set()
        # integer results already counted as value work (value_work)
        self.value_ops: set[str] = set()
        self.cand_valid: dict[str, np.ndarray] = {}
        self.accesses: dict[str, dict] = {}
        self.notes: list[str] = []
        self.names: set[str] = set()
        self.persistent = False
        self.tiles_in_flight = 1  # tiles a persistent program keeps in flight (pipelined_tiles)
        # (first, end) top-level node indices of a persistent tile loop's work, and its location
        self.persistent_span: tuple[int, int, str | None] | None = None
        # a spin lock being held (see :meth:`spin_lock`), and the section of the lock once released
        self.held: dict | None = None
        self.lock: dict | None = None
        self.top_nodes: list[dict] = []

    # -- helpers -------------------------------------------------------------------------------------------
    def unsupported(self, op: Op) -> UnsupportedOpError:
        return UnsupportedOpError(op.name, self.kernel, op.loc)

    def get(self, name: str) -> V:
        v = self.env.get(name)
        if v is None:
            return V()
        return v

    def fresh(self, stem: str) -> str:
        stem = re.sub(r"[^\w]", "_", stem)
        name, i = stem, 1
        while name in self.names:
            i += 1
            name = f"{stem}_{i}"
        self.names.add(name)
        return name

    def lane_array(self, value: float | int | bool) -> np.ndarray:
        """A value the same in every lane: one entry, broadcast by numpy against per-lane arrays."""
        return np.full(1, value)

    def merged(self, names: list[str]) -> V:
        env = self.env
        vs = [env[n] for n in names if n in env]
        if not vs:
            return V()
        if len(vs) == 1:
            v = vs[0]
            return V(
                pid=v.pid,
                cands=v.cands,
                base=v.base,
                loaded=v.loaded,
                prods=v.prods,
                shift=v.shift,
                via=v.via,
            )
        # one pass (this runs for every op of the walk): the first operand with a base gives base and shift
        pid = loaded = False
        cands: frozenset[str] = frozenset()
        direct: frozenset[str] = frozenset()  # candidates some operand carries other than through data
        prods: frozenset[str] = frozenset()
        base, shift = None, 0
        for v in vs:
            pid = pid or v.pid
            loaded = loaded or v.loaded
            if v.cands:
                cands = cands | v.cands
                direct = direct | (v.cands - v.via if v.via else v.cands)
            if v.prods:
                prods = prods | v.prods
            if base is None and v.base:
                base, shift = v.base, v.shift
        return V(pid=pid, cands=cands, base=base, shift=shift, loaded=loaded, prods=prods, via=cands - direct)

    def candidate(self, name: str) -> frozenset[str]:
        """Follow a pid-dependent scalar back through affine ops; record the coordinate it carries."""
        v = self.get(name)
        if not v.pid or v.val is None:
            return v.cands
        while True:
            op = self.defs.get(name)
            if op is None or op.name not in interp.AFFINE:
                break
            dep = [o for o in op.operands if self.get(o).pid]
            if len(dep) != 1 or self.get(dep[0]).val is None:
                break
            name = dep[0]
        val = self.get(name).val
        assert val is not None
        if self.get(name).loaded:
            self.data_cands.add(name)
        self.cands[name] = np.broadcast_to(val, (self.lanes,)).copy()
        self.cand_valid[name] = self.valid.copy()
        return v.cands | {name}

    # -- the walk ------------------------------------------------------------------------------------------
    def run(self) -> tuple[list[dict], dict]:
        for arg, ty in self.fn.args:
            key = self.arg_names[arg]
            if "ptr" in ty or "tensordesc" in ty:
                self.env[arg] = V(base=key, off=self.lane_array(0))
            elif key in self.scalars:
                self.env[arg] = V(val=self.lane_array(self.scalars[key]))
            else:
                self.env[arg] = V()
        body = _Body()
        self.top_nodes = body.nodes
        self.walk(self.fn.body, body)
        nodes = self.per_program(body.nodes)
        if self.held is not None:
            raise UnsupportedOpError(
                "scf.while (a spin lock the kernel never releases with an atomic on the lock)",
                self.kernel,
                self.held["loc"],
            )
        for acc in self.accesses.values():
            if acc.pop("shared_loop", False):
                acc["cands"] -= self.start_cands
        self._merge_element_accesses(nodes)
        return nodes, self.accesses

    def _merge_element_accesses(self, nodes: list[dict]) -> None:
        """Give a one-element access back its argument's name where the argument has no wider access (a
        label vector read one element a program stays ``labels``); where it has one, the element access keeps
        its own entry and the note says so."""
        renamed = {}
        for key in [k for k in self.accesses if k.endswith(ELEMENT_ACCESS_SUFFIX)]:
            main = key[: -len(ELEMENT_ACCESS_SUFFIX)]
            if main in self.accesses:
                self.notes.append(
                    f"{main}: its one-element accesses move one element each, apart from its "
                    f"{'x'.join(map(str, self.accesses[main]['tile']))} tiles"
                )
                continue
            self.accesses[main] = self.accesses.pop(key)
            renamed[key] = main
        if renamed:
            for node in _walk_nodes(nodes):
                if node.get("tensor") in renamed:
                    node["tensor"] = renamed[node["tensor"]]

    def walk(self, ops: list[Op], body: _Body) -> None:
        memo = self._const_memo
        for i, op in enumerate(ops):
            for r in op.results:
                self.defs[r] = op
                # the printed IR reuses a name in sibling regions (one per unrolled step's ``if``): a value's
                # constant term is the one of its latest definition
                memo.pop(r, None)
            if op.name == "cf.cond_br":
                self.early_exit(op, ops[i + 1 :], body)
                return
            if op.name == BLOCK_LABEL:
                continue
            self.step(op, body)

    def early_exit(self, op: Op, rest: list[Op], body: _Body) -> None:
        """``cf.cond_br``: the one form of unstructured control flow Triton emits for a kernel, a ``return``
        under an ``if``. An early return (``if row >= n_rows: return``): one target block holds only the
        return; the programs that branch there stop, the others run the other block, walked as a guard
        (:meth:`guarded`) taken by that share of the programs. Work and then a return (``if label ==
        ignore_index: <zero the row's gradient>; return``): both blocks run to a return, each in the share of
        the programs that take it (with the condition unknown before launch, the fall-through block: the
        kernel's main path, and a note says so). Any other branching is refused, naming it."""
        targets = re.findall(r"\^bb\d+", op.text)
        label = None
        for o in rest:  # the blocks after the first branch (a branch inside them finds its targets here)
            if o.name == BLOCK_LABEL:
                label = o.text
                self.cfg_blocks.setdefault(label, [])
            elif label is not None:
                self.cfg_blocks[label].append(o)
        blocks = self.cfg_blocks
        exits = [t for t in targets if [o.name for o in blocks.get(t, [])] == ["tt.return"]]
        # a block that runs to a return, or on to a branch of its own (a second early return after the first:
        # fused MoE's ``if pid_m * BLOCK_M >= num_tokens_post_padded: return`` then ``if expert == -1: ...``)
        ending = [t for t in targets if blocks.get(t) and blocks[t][-1].name in ("tt.return", "cf.cond_br")]
        other_cf = any(
            o.name.startswith("cf.") and o.name != "cf.cond_br" for t in targets for o in blocks.get(t, [])
        )
        if len(targets) != 2 or targets[0] == targets[1] or other_cf:
            what = "cf.cond_br (branching other than early returns)"
            raise UnsupportedOpError(what, self.kernel, op.loc)
        if set(targets) & set(self.cfg_walking):
            what = "cf.cond_br back to a block being walked (a loop in unstructured control flow)"
            raise UnsupportedOpError(what, self.kernel, op.loc)
        if len(exits) != 1:
            if len(ending) != 2:
                what = "cf.cond_br (branching other than early returns)"
                raise UnsupportedOpError(what, self.kernel, op.loc)
            self.two_returns(op, targets, body)
            return
        stay = targets[1] if exits[0] == targets[0] else targets[0]
        cond = self.get(op.operands[0]).val if op.operands else None
        if cond is None:
            self.notes.append(
                f"early return at {op.loc}: condition unknown before launch; the plan runs every program on"
            )
            self.walk_block(stay, body)
            return
        runs = np.broadcast_to(cond, (self.lanes,)).astype(bool)
        if exits[0] == targets[0]:
            runs = ~runs
        self.run_block(op, stay, runs, "the code past an early return", body, empty=1.0)

    def two_returns(self, op: Op, targets: list[str], body: _Body) -> None:
        """``if cond: <work>; return`` followed by more work: the two blocks of :meth:`early_exit`, each run
        by the programs that take it."""
        cond = self.get(op.operands[0]).val if op.operands else None
        if cond is None:
            self.notes.append(
                f"branch at {op.loc}: condition unknown before launch (it reads data without given "
                "contents); the plan runs every program on the fall-through path"
            )
            self.walk_block(targets[1], body)
            return
        taken = np.broadcast_to(cond, (self.lanes,)).astype(bool)
        self.run_block(op, targets[0], taken, "the branch that returns", body, empty=0.0)
        self.run_block(op, targets[1], ~taken, "its fall-through", body, empty=0.0)

    def walk_block(self, label: str, body: _Body) -> None:
        """The labelled block ``label`` of the kernel's unstructured control flow, walked in place."""
        self.cfg_walking.append(label)
        try:
            self.walk(self.cfg_blocks[label], body)
        finally:
            self.cfg_walking.pop()

    def run_block(self, op: Op, label: str, runs: np.ndarray, what: str, body: _Body, empty: float) -> None:
        """The block ``label`` of ``cf.cond_br`` (``op``) that the lanes ``runs`` marks run: walked as is
        where every program runs it, as a guard in their share (:meth:`guarded`) where some do (``empty``: the
        share taken where no lane is valid)."""
        ops = self.cfg_blocks[label]
        live = runs[self.valid]
        share = float(live.mean()) if live.size else empty
        if share >= 1.0:
            self.walk_block(label, body)
        elif share > 0.0:
            guard = Op(
                "scf.if",
                [],
                [op.operands[0]],
                op.text,
                "",
                op.loc,
                regions=[ops],
                where=op.where,
                line=op.line,
            )
            self.cfg_walking.append(label)
            try:
                self.guarded(guard, body, runs, share, what)
            finally:
                self.cfg_walking.pop()

    def set_results(self, op: Op, v: V) -> None:
        for r in op.results:
            self.env[r] = v

    def step(self, op: Op, body: _Body) -> None:
        n = op.name
        if n in _TERMINATORS or n in _BARRIERS or n in _HINTS:
            return
        if n in _GRID_DEPENDENCY:
            note = (
                "programmatic dependent launch (gdc_wait / gdc_launch_dependents): the prediction is of this "
                "launch alone, with no kernel before it to wait for and no overlap with the next"
            )
            if note not in self.notes:
                self.notes.append(note)
            return
        if n == "arith.constant":
            c = interp.constant(op.text)
            if c is None:
                m = _DENSE_INT.match(op.text)
                shape = tensor_type(op.rtype)
                dense = int(m.group(1)) if m and shape else None
                axes = (0,) * len(shape[0]) if dense is not None and shape else None
                self.set_results(op, V(scale=dense, axes=axes))
            else:
                self.set_results(op, V(val=self.lane_array(c)))
            return
        if n in ("tt.get_program_id", "tt.get_num_programs"):
            axis = {"x": 0, "y": 1, "z": 2}[op.text.split()[0].strip()]
            if n == "tt.get_program_id":
                self.set_results(op, V(val=self.expand(self.pid[axis]), pid=True))
                if self.grid[axis] > 1 and sum(g > 1 for g in self.grid) > 1:
                    # each axis of a multi-axis grid is a coordinate of its own, so an address that mixes
                    # two (``(b * H + kvh * GROUP) * D``) is seen as a function of both, not a third axis
                    self.candidate(op.results[0])
            else:
                self.set_results(op, V(val=self.lane_array(self.grid[axis])))
            return
        shape = tensor_type(op.rtype)
        vin = self.merged(op.operands)
        if n in interp.SCALAR_OPS and shape is None:
            if n == "arith.select" and len(op.operands) == 3:
                bases = {self.get(o).base for o in op.operands[1:]}
                if len(bases) > 1:  # one of two pointer arguments, by a condition
                    c = self.get(op.operands[0]).val
                    live = None if c is None else np.broadcast_to(c, (self.lanes,))[self.valid]
                    if live is None or not live.size or (live != live[0]).any():
                        raise self._chosen_pointer(op, *(self.get(o).base for o in op.operands[1:]))
                    # the same choice in every program: that argument
                    self.set_results(op, self.get(op.operands[1] if live[0] else op.operands[2]))
                    return
            args = [self.get(o).val for o in op.operands]
            val = interp.evaluate(n, op.text, args) if all(a is not None for a in args) else None  # type: ignore
            if val is None and vin.pid:
                # a known coordinate meets a value the walker cannot evaluate (a page index read in a loop:
                # ``page * page_stride + kvh * head_stride``): the result still carries that coordinate
                for o in op.operands:
                    if self.get(o).pid and self.get(o).val is not None:
                        vin.cands = vin.cands | self.candidate(o)
            if val is not None and vin.pid and val.size > 1 and (val == val.flat[0]).all():
                # the same value for every program (a coordinate times a stride of 0: a broadcast operand's
                # ``row * stride`` with the stride 0) carries no coordinate: its address is every program's
                vin.pid, vin.cands, vin.via = False, frozenset(), frozenset()
                val = val.flat[:1].copy()
            vin.val = val
            vin.prods = frozenset()
            self.set_results(op, vin)
            return
        if n == "scf.for":
            self.loop(op, body)
            return
        if n == "scf.while":
            counted = counted_while(op)
            if counted is None:
                if not self.scalar_while(op):
                    self.spin_lock(op, body)
                return
            loop, counter = counted
            self.loop(loop, body)
            self.env[counter] = V()  # the counter's value after the loop: not followed
            return
        if n == "scf.if":
            self.branch(op, body)
            return
        if n in (
            "tt.load",
            "tt.descriptor_load",
            "tt.store",
            "tt.descriptor_store",
            "tt.atomic_rmw",
            "tt.atomic_cas",
        ):
            self.memory(op, body, vin)
            if self.held is not None and n.startswith("tt.atomic") and body.nodes is self.top_nodes:
                self.release(op, body)
            return
        if n == "tt.make_tensor_descriptor":
            for o in op.operands[1:]:
                if self.get(o).pid:
                    vin.cands = vin.cands | self.candidate(o)
            vin.base = self.get(op.operands[0]).base
            self.set_results(op, vin)
            return
        if n in ("tt.dot", "tt.dot_scaled"):
            self.dot(op, body, vin)
            return
        if n == "tt.gather" and shape is not None:
            self.gather(op, body, vin, shape)
            return
        if n == "tt.histogram" and shape is not None:
            self.histogram(op, body, vin, shape)
            return
        if n in ("tt.reduce", "tt.scan"):
            src = tensor_type(self._operand_type(op)) or ((1,), "f32")
            self.compute(op, body, vin, ActionKind.REDUCE, math.prod(src[0]))
            warps = at_op(self.reduce_warps, op) if n == "tt.reduce" else None
            axis = op_axis(op.text) if n == "tt.reduce" else None
            if axis is not None and axis < len(src[0]):
                # the values it reduces to: the source's elements over its reduced axis's length
                body.nodes[-1]["outputs"] = max(1, math.prod(src[0]) // max(src[0][axis], 1))
            if warps is not None:
                body.nodes[-1]["warps"] = warps
                if warps > 1:
                    body.close_at_barrier(body.nodes[-1]["name"])
            carry = at_op(self.scan_carries, op) if n == "tt.scan" else None
            if carry is not None:
                body.nodes[-1]["scan"] = ScanCarry(*carry)
            return
        if n == "tt.splat" or (n in ("tt.addptr", "tt.make_tensor_ptr") and op.operands):
            for o in op.operands[1:] if n != "tt.splat" else op.operands:
                if self.get(o).pid and self.get(o).val is not None:
                    vin.cands = vin.cands | self.candidate(o)
            if n == "tt.addptr" and shape is None:
                vin.val = None
                vin.shift = self.scalar_shift(op)
                base_off, step = self.get(op.operands[0]).off, self.get(op.operands[1]).val
                vin.off = None if base_off is None or step is None else base_off + step
            elif n == "tt.addptr":
                # a pointer tensor moved by a uniform constant (``x + half`` of a rotary embedding's second
                # half, a packed tensor's next region): its accesses are a region of their own
                ptr, step = self.get(op.operands[0]), self.get(op.operands[1]).scale
                vin.shift = None if ptr.shift is None else ptr.shift + step if step is not None else ptr.shift
            self.strides(op, shape, vin)
            self.set_results(op, vin)
            return
        if n in _LAYOUT:
            if n == "tt.print":
                self.notes.append(
                    f"tl.device_print at {op.loc}: the device's printf is not modelled; it can take far "
                    "longer than the kernel (the survey's kernel whose first program prints 1,024 values "
                    "ran 358 us on the H200, where TileSight, leaving the print out, predicts 75)"
                )
            vin.val = None
            self.strides(op, shape, vin)
            self.set_results(op, vin)
            return
        if n == "tt.elementwise_inline_asm":
            self.inline_asm(op, body, vin, shape)
            return
        if n.startswith(_TENSOR_EW_PREFIX) or n in (
            "tt.extern_elementwise",
            "tt.precise_sqrt",
            "tt.precise_divf",
            "tt.fp_to_fp",
            "tt.clampf",
            "tt.mulhiui",
        ):
            numel = math.prod(shape[0]) if shape else 1
            kind = ActionKind.ELEMENTWISE
            short = n.split(".", 1)[1]
            # the math function called: ``math.erf``'s, or an extern call's (``__nv_erff``: erf)
            function = short if n.startswith("math.") else None
            if n == "tt.extern_elementwise" and (m := _SFU_EXTERN.search(op.text)):
                function = m.group(1)
            if (
                n.startswith("math.")
                and short in _SFU_MATH
                or n in ("arith.divf", "tt.precise_sqrt", "tt.precise_divf")
            ):
                kind = ActionKind.SFU
            elif n == "tt.extern_elementwise" and function and function.startswith(_SFU_EXTERN_NAMES):
                kind = ActionKind.SFU
            if shape is None or (_is_int(shape[1]) and not vin.loaded):
                # scalar math, or index/mask arithmetic on integer tensors (address generation): no tile cost
                vin.val = None
                vin.prods = frozenset()
                self.strides(op, shape, vin)
                self.set_results(op, vin)
                return
            if _is_int(shape[1]):
                # index arithmetic on loaded data still walks the tile affinely where the loaded part is
                # uniform over it (``seq_start + offs``: a varlen sequence's start; a MoE block's expert
                # offset), so its access's tile lands on the tensor dimensions it spans; a gathered index
                # tensor (token ids) stays non-affine
                self.strides(op, shape, vin)
            alu = (
                numel if kind is ActionKind.ELEMENTWISE and (n in _FLOAT_ALU_OPS or _is_int(shape[1])) else 0
            )
            if n == "arith.select" and op.operands:
                work = self.mask_work(op.operands[0])
                numel, alu = numel + work, alu + work
            if n in _INT_TO_FLOAT and op.operands:
                # the integer rounds whose result it converts (value_work) at the FMA rate, then the
                # conversion itself on the SFU pipe: an I2F issues on the unit that runs the MUFU
                # instructions, 16 a clock an SM on compute capability 9.0 (the CUDA guide's throughput
                # table), an eighth of the FMA rate, as the TileLang frontend prices its conversions
                # (resources.CVT_OVER_SFU_ISSUE_RATE)
                work = self.value_work(op.operands[0])
                if work:
                    self.group(op, body, vin, ActionKind.ELEMENTWISE, work, 0)
                    vin = self.get(op.results[0])
                self.group(op, body, vin, ActionKind.SFU, numel, 0)
                return
            if n in _FLOAT_TO_INT:
                # an F2I a lane (``.to(tl.int8)``, ``.to(tl.int32)`` of a float: ``F2I.S16.TRUNC.NTZ`` /
                # ``F2I.TRUNC.NTZ`` in the SASS compiled here), on the unit its I2F twin issues on
                self.group(op, body, vin, ActionKind.SFU, numel, 0)
                return
            if id(op) in self.fused:
                numel = alu = 0  # issued with its multiply, as one fused multiply-add
            routine = LIBDEVICE_ROUTINES.get(function) if function else None
            if routine is not None:
                # a software routine (LIBDEVICE_ROUTINES): its arithmetic on the CUDA cores, then its MUFU
                # instructions on the special-function units
                instructions, mufu = routine
                count = round(numel * instructions)
                self.group(op, body, vin, ActionKind.ELEMENTWISE, count, 0, routine=count)
                if mufu:
                    vin = self.get(op.results[0])
                    self.group(op, body, vin, ActionKind.SFU, numel * mufu, 0)
                return
            self.group(op, body, vin, kind, numel, alu)
            return
        raise self.unsupported(op)

    def inline_asm(self, op: Op, body: _Body, vin: V, shape: tuple | None) -> None:
        """``tl.inline_asm_elementwise``: its PTX instructions (``;``-separated, register declarations and
        braces aside) run once per ``packed_element`` elements: on the special-function units where any is a
        MUFU-class instruction (``tanh.approx``, ``ex2``, ``lg2``, ``rcp``, ``rsqrt``, ``sqrt``, ``sin``,
        ``cos``), else on the CUDA cores. The assembly is not otherwise interpreted (a note says so)."""
        m = re.match(r'\s*"((?:[^"\\]|\\.)*)"', op.text)  # the op's text starts at its assembly string
        if m is None or shape is None:
            raise self.unsupported(op)
        instrs = [
            i.strip()
            for i in m.group(1).replace("{", ";").replace("}", ";").split(";")
            if i.strip() and not i.strip().startswith(".reg")
        ]
        packed = re.search(r"packed_element = (\d+)", op.text)
        per = max(1, int(packed.group(1))) if packed else 1
        numel = math.prod(shape[0]) * max(1, len(instrs)) // per
        mnemonics = {i.split()[0].split(".")[0] for i in instrs}
        kind = ActionKind.SFU if mnemonics & _SFU_PTX else ActionKind.ELEMENTWISE
        self.notes.append(
            f"inline asm at {op.loc}: {len(instrs)} instruction(s) per {per} element(s) "
            f"on the {'special-function units' if kind is ActionKind.SFU else 'CUDA cores'}"
        )
        self.group(op, body, vin, kind, numel)

    def value_work(self, name: str) -> int:
        """Element operations of integer arithmetic whose result becomes a value, not an address: the
        integer tensor ops on the def chain of an int -> float conversion (a counter-based random number
        generator's rounds of multiplies, high multiplies and xors under ``tl.rand``), each at its result's
        element count and once. Integer tensor math is otherwise taken for address and mask generation, which
        costs no tile work (see :meth:`step`).

        They are priced as element operations at the calibrated FMA rate, not as ALU ops at the profile's
        ``alu_op_cost``: such rounds are independent across a thread's elements, so they issue at the ALU and
        integer-multiply pipes' full rate (64 an SM a clock, the CUDA guide's throughput table for compute
        capability 9.0), which is 1.34x the calibrated FMA-chain rate's per-element time (44.7 of a 66.9
        TFLOP/s FP32 peak), and ptxas issues 0.72 instructions for each op counted here (three-input
        ``LOP3`` xors, ``IMAD`` taking adds and the high and low halves of a product: the survey's
        ``dropout_rand``, 49 ``IMAD`` + ``LOP3`` per element in its SASS against 68 ops); 1.34 x 0.72 is
        about one FMA slot an op. At ``alu_op_cost`` (calibrated on attention masks' dependent compares and
        selects) the survey's two dropout kernels were predicted 1.95x their measured time; at one slot,
        1.07x (``benchmarks/survey_triton/score.py --now``)."""
        total, todo = 0, [name]
        while todo:
            n = todo.pop()
            if n in self.value_ops:
                continue
            self.value_ops.add(n)
            d = self.defs.get(n)
            if d is None:
                continue
            shape = tensor_type(d.rtype)
            if d.name in _VALUE_PASSTHROUGH:
                todo.extend(d.operands[:1])
            elif (d.name.startswith("arith.") or d.name == "tt.mulhiui") and shape and _is_int(shape[1]):
                if d.name != "arith.constant":
                    total += math.prod(shape[0])
                    todo.extend(d.operands)
        return total

    def mask_work(self, cond: str) -> int:
        """Element operations that compute a select's condition afresh in every iteration of the innermost
        loop: integer compares and logic on the def chain of ``cond`` that depend on that loop's counter (a
        causal mask ``rows[:, None] >= keys[None, :]`` and its ``&``), each at its own result's element count.
        Address and mask arithmetic is otherwise free (it feeds loads, or the compiler hoists it), and a
        condition that does not vary with the counter is computed once, outside the loop."""
        if not self.ivs:
            return 0
        iv = self.ivs[-1]
        total, seen, todo = 0, set(), [cond]
        while todo:
            name = todo.pop()
            if name in seen:
                continue
            seen.add(name)
            d = self.defs.get(name)
            if d is None:
                continue
            shape = tensor_type(d.rtype)
            if d.name in ("tt.broadcast", "tt.expand_dims", "ttg.convert_layout"):
                todo.extend(d.operands[:1])
            elif d.name.startswith("arith.") and shape is not None and _is_int(shape[1]):
                if depends_on(name, frozenset({iv}), self.defs):
                    total += math.prod(shape[0])
                    todo.extend(d.operands)
        return total

    def address_shift(self, pointer: str, ptr: V) -> int | None:
        """Elements the addresses of ``pointer`` sit from their argument beyond the tile's coordinates: the
        additive constant of the address expression (:meth:`const_part`), where it can be read; else the
        shift the scalar ``tt.addptr`` chain carried (:attr:`V.shift`)."""
        part = self.const_part(pointer)
        return ptr.shift if part is None else part

    def const_part(self, value: str, depth: int = 0) -> int | None:
        """The constant term of an integer or pointer value's expression (elements, for a pointer counted
        from its argument): what is left with the program ids and the counters of the loops being walked set
        to zero. ``offs + HALF`` has ``HALF``, ``k0 + tl.arange(0, BK)`` at an unrolled step ``k0``,
        ``pid * BLOCK + tl.arange(0, BLOCK)`` none (0). Sums, differences, products with a known uniform
        value, splats, broadcasts, casts and ``tl.arange`` are followed; anything else (a remainder, a select,
        a loaded value, a loop-carried value) gives None: not known."""
        if depth > 64:
            return None
        memo = self._const_memo
        if value in memo:
            return memo[value]
        part = self._const_part(value, depth)
        memo[value] = part
        return part

    def _uniform(self, value: str) -> int | None:
        """``value``'s integer value where it is the same for every program, lane and loop iteration."""
        v = self.get(value)
        if v.pid or v.loaded or v.val is None or value in self.ivs:
            return None
        if self.ivs and depends_on(value, frozenset(self.ivs), self.defs):
            return None
        flat = np.asarray(v.val).ravel()
        if not flat.size or not np.all(flat == flat[0]) or not float(flat[0]).is_integer():
            return None
        return int(flat[0])

    def _const_part(self, value: str, depth: int) -> int | None:
        op = self.defs.get(value)
        v = self.get(value)
        if op is None:  # a block argument: a kernel argument or a loop's counter or carried value
            if value in self.ivs or v.pid:
                return 0
            if v.base is not None and value in self.arg_types:  # a pointer argument itself
                return 0
            return self._uniform(value)
        n = op.name
        if n in ("tt.get_program_id", "tt.load"):
            # a program id, or an index read from memory (a gather's row): what varies between the accesses,
            # like a coordinate, with no constant term of its own
            return 0
        if n == "arith.constant":
            m = _DENSE_INT.match(op.text)
            return int(m.group(1)) if m else self._uniform(value)
        if n == "tt.make_range":
            m = re.search(r"start = (-?\d+)", op.text)
            return int(m.group(1)) if m else None
        if n in _CONST_PASSTHROUGH:
            return self.const_part(op.operands[0], depth + 1) if op.operands else None
        if n in ("arith.addi", "arith.subi", "tt.addptr") and len(op.operands) == 2:
            a, b = (self.const_part(o, depth + 1) for o in op.operands)
            if a is None or b is None:
                return None
            return a - b if n == "arith.subi" else a + b
        if n == "arith.muli" and len(op.operands) == 2:
            for this, other in (op.operands, op.operands[::-1]):
                scalar = tensor_type(self._type_of(other)) is None
                c = self._uniform(other) if scalar else self._splat_uniform(other)
                if c is not None:
                    part = self.const_part(this, depth + 1)
                    return None if part is None else part * c
            return None
        return self._uniform(value) if tensor_type(op.rtype) is None else None

    def _splat_uniform(self, value: str) -> int | None:
        """The uniform value a tensor ``value`` holds in every element (a splat of a uniform scalar, a dense
        constant), or None."""
        op = self.defs.get(value)
        if op is None:
            return None
        if op.name == "arith.constant":
            m = _DENSE_INT.match(op.text)
            return int(m.group(1)) if m else None
        if op.name in ("tt.splat", "tt.broadcast", "tt.expand_dims") and op.operands:
            inner = op.operands[0]
            inner_op = self.defs.get(inner)
            if inner_op is not None and tensor_type(inner_op.rtype) is not None:
                return self._splat_uniform(inner)
            return self._uniform(inner)
        return None

    def _type_of(self, value: str) -> str:
        op = self.defs.get(value)
        return op.rtype if op is not None else self.arg_types.get(value, "")

    def scalar_shift(self, op: Op) -> int | None:
        """The pointer's :attr:`V.shift` after a scalar ``tt.addptr``: the base's plus an offset known to be
        the same for every program, lane and loop iteration. An offset that depends on the program or a loop
        counter (``x_ptr += row * stride``) is the tile's coordinate, which the access's candidates carry:
        the shift stays. None where the offset is not known."""
        ptr, off = self.get(op.operands[0]), op.operands[1]
        v = self.get(off)
        if ptr.shift is None or v.loaded:
            return None
        if v.pid or (self.ivs and depends_on(off, frozenset(self.ivs), self.defs)):
            return ptr.shift
        step = self._uniform(off)
        return None if step is None else ptr.shift + step

    def strides(self, op: Op, shape: tuple | None, vin: V) -> None:
        """Per-axis address strides of a tensor result (see :mod:`.strides`)."""
        if shape is None or not _is_int(shape[1]):
            return  # only integer index and pointer tensors carry address strides
        if op.name == "tt.splat":
            v = self.get(op.operands[0]).val if op.operands else None
            # (one lane, the common case, is uniform without a numpy comparison)
            uniform = v is not None and v.size and (v.size == 1 or np.all(v == v.flat[0]))
            if uniform and float(v.flat[0]).is_integer():
                vin.scale = int(v.flat[0])
        args = [self.get(o) for o in op.operands[:2]]
        vin.axes = strides.propagate(
            op.name, op.text, shape[0], [a.axes for a in args], [a.scale for a in args]
        )

    def expand(self, arr: np.ndarray) -> np.ndarray:
        """A per-program array in the current lane space (tiled over persistent-loop iterations)."""
        return np.tile(arr, self.lanes // arr.shape[0])

    def _operand_type(self, op: Op) -> str:
        m = re.search(r":\s*\((tensor<[^)]*?>)[,)]", op.text)
        return m.group(1) if m else ""

    def stage(self, op: Op, node: dict) -> None:
        """Charge ``node`` (the action ``op`` made or joined) with the shared-memory stores that put the
        tile it produces into shared memory for a consumer (:func:`.banks.staged_store_bytes`: a loaded
        operand the pipeliner did not copy asynchronously, a dequantised operand), once per location."""
        key = next((k for k in (op.where, op.line) if k is not None and k in self.staged), None)
        if key is None or key in self.staged_charged:
            return
        self.staged_charged |= op.keys
        node["smem_bytes"] = node.get("smem_bytes", 0.0) + self.staged[key]

    # -- actions -------------------------------------------------------------------------------------------
    def deps_in(self, body: _Body, v: V) -> list[str]:
        return sorted(p for p in v.prods if p in body.index)

    def memory(self, op: Op, body: _Body, vin: V) -> None:
        if op.name == "tt.atomic_rmw" and op.where is not None and op.operands:
            first = self.atomic_pairs.get((op.where, op.operands[0]))
            if first is not None and first is not op:
                # the other half of a float tl.atomic_max / tl.atomic_min: Triton lowers it to an integer
                # max on the lanes whose value is non-negative and an unsigned min on the rest (or the
                # reverse), two atomics at one location and address, each lane making one of them
                if op.results and first.results:
                    self.set_results(op, self.get(first.results[0]))
                return
            self.atomic_pairs[(op.where, op.operands[0])] = op
        ptr = self.get(op.operands[0])
        base = ptr.base
        if base is None:
            raise FrontendError(
                f"kernel {self.kernel!r}: {op.name} through a pointer not derived from a kernel argument",
                construct=op.name,
                location=op.loc,
            )
        cands = set(ptr.cands)
        if op.name.startswith("tt.descriptor"):
            for o in _descriptor_indices(op):
                if self.get(o).pid and self.get(o).val is not None:
                    cands |= self.candidate(o)
        store = op.name in ("tt.store", "tt.descriptor_store", "tt.atomic_rmw", "tt.atomic_cas")
        if op.name == "tt.descriptor_store":
            tt = tensor_type(op.text.rsplit(" : ", 1)[-1].split(", ")[-1]) or tensor_type(op.text)
        elif store:
            tt = tensor_type(op.text.rsplit(" : ", 1)[-1]) or None
        else:
            tt = tensor_type(op.rtype)
        if tt:
            tile, elem = tt[0] or (1,), tt[1]
        else:  # a scalar access: its own type (a loaded value's, a stored pointer's)
            scalar = (op.text.rsplit(" : ", 1)[-1] if store else op.rtype).split(",")[0].strip()
            tile, elem = (1,), scalar or "f32"
        elem = re.sub(r"!tt\.ptr<([^>]+)>", r"\1", elem)
        masked = op.name in ("tt.load", "tt.store") and len(op.operands) > (2 if store else 1)
        mode = (
            AccessMode.ATOMIC
            if op.name.startswith("tt.atomic")
            else AccessMode.WRITE
            if store
            else AccessMode.READ
        )
        # a second region of the same argument (``x_ptr + n``, ``x_ptr + offs + HALF``, one unrolled step of a
        # ``tl.static_range`` loop) is its own tensor access: no reuse between them
        shift = self.address_shift(op.operands[0], ptr)
        key = base if not shift else f"{base}+{shift}"
        if math.prod(tile) == 1:
            # a one-element access (a row's logit at its label, a per-channel weight) moves one element, not
            # the tile another access of the argument moves: its own access, merged back into the argument's
            # where no wider access of it exists (:meth:`_merge_element_accesses`)
            key += ELEMENT_ACCESS_SUFFIX
        acc = self.accesses.setdefault(
            key,
            {
                "arg": base,
                "shift": shift or 0,
                "tile": tile,
                "elem": elem,
                "modes": set(),
                "cands": set(),
                "direct": set(),  # the candidates that reach the address other than through loaded data
                "masked": False,
                "indirect": False,
                "tma": False,
                "axes": ptr.axes if not op.name.startswith("tt.descriptor") else None,
            },
        )
        acc["modes"].add(mode)
        if math.prod(tile) > math.prod(acc["tile"]):
            # the tensor's footprint is its widest access (a row's scalar read at a label, then its tiles)
            acc["tile"] = tile
            if not op.name.startswith("tt.descriptor"):
                acc["axes"] = ptr.axes
        if acc["axes"] is None and not op.name.startswith("tt.descriptor"):
            acc["axes"] = ptr.axes
        acc["cands"] |= cands
        acc["direct"] |= cands - ptr.via
        if self.ivs and not cands & self.start_cands:
            # read in a loop whose counter starts at the same place in every program: the slices of such a
            # tensor are shared between programs (the off-diagonal loop of a causal attention), so a
            # coordinate another loop's start brings (its diagonal block) does not separate them
            acc["shared_loop"] = True
        acc["masked"] |= masked
        acc["indirect"] |= ptr.loaded
        acc["tma"] |= op.name.startswith("tt.descriptor")
        if ptr.loaded:
            self.notes.append(f"{op.name} on {base} at {op.loc}: indirect (data-dependent) addressing")
        name = self.fresh(f"{'store' if store else 'load'}_{base}")
        deps = self.deps_in(body, vin)
        kind = ActionKind.STORE if store else ActionKind.LOAD
        level = MemLevel.SMEM if acc["tma"] else MemLevel.REG
        node = {
            "name": name,
            "kind": kind,
            "tensor": key,
            "deps": set(deps),
            "loc": op.loc,
            "src": level if store else MemLevel.DDR,
            "dst": MemLevel.DDR if store else level,
            "vector_bytes": at_op(self.widths, op),
        }
        width, apart = node["vector_bytes"], at_op(self.lane_strides, op)
        if width and apart and apart > width:
            node["lane_stride_bytes"] = apart  # a mask split the layout's vector: lanes stay that far apart
        if not store and body.barrier is not None:
            node["barrier"] = body.barrier
        period = self.address_period(op) if not store else None
        if period is not None and self.loop_trips[-1] > period:
            # the same block again every `period` steps of the innermost loop: a re-read of its own (its first
            # `period` steps read it afresh)
            node["rereads"] = ((period, 1.0),)
            node["fresh_steps"] = period / self.loop_trips[-1]
            again = "the same block every step" if period == 1 else f"{period} blocks in turn"
            self.notes.append(f"{op.name} on {base} at {op.loc}: {again} of its loop: read again from L2")
        if not store and located(op, self.scattered):
            node["variant"] = ELEMENT_ASYNC_COPY  # one element per cp.async into a transposed shared tile
        elif not store and (op.where or op.line) in self.sync_in_pipeline:
            node["variant"] = SYNC_LOAD  # left synchronous in a pipelined loop: each iteration waits for it
        elif not store and op.name == "tt.descriptor_load":
            node["variant"] = DESCRIPTOR_LOAD  # a TMA copy warp 0 issues, the warps meeting around it
        elif not store and width == NARROW_COPY_BYTES and located(op, self.async_copies):
            node["variant"] = NARROW_ASYNC_COPY  # an 8-byte cp.async: through L1 (.ca), not around it (.cg)
        elif mode is AccessMode.ATOMIC and located(op, self.scattered_atomics):
            node["variant"] = SCATTER_ATOMIC  # each lane's element its own read-modify-write at the L2
        if mode is AccessMode.ATOMIC:
            # the elements it adds: a small target's footprint (its tile, clipped to the tensor: a bincount's
            # 1,024 lanes into 32 bins) says how many words it touches, not how many atomics it makes
            node["shape"] = tuple(tile)
        if not store:
            self.stage(op, node)
        body.add(node)
        rows = at_op(self.rows, op) if not store else None
        if rows is not None:
            self.pointer_rows[name] = rows
        # loaded data depends on its address: an index loaded here carries this tile's coordinates onward
        out = V(
            loaded=True, prods=frozenset({name}), pid=vin.pid, cands=frozenset(cands), via=frozenset(cands)
        )
        if not store and tt is not None and elem.startswith(("i", "ui")) and elem != "i1":
            # an index tile read from memory: an address built from it gathers a row per lane (strides)
            out.axes = (strides.Gathered(),) * len(tile)
        if not store and tt is None:
            out.val = self.given_values(base, ptr.off)  # off counts from the argument itself
        self.set_results(op, out)

    def address_period(self, op: Op) -> int | None:
        """In how many steps of the innermost loop being walked the addresses of memory op ``op`` come back:
        1 where they do not depend on the loop's counter or on a value it carries (a tile re-loaded every
        step), ``p`` where they depend on them only through remainders by the uniform ``p`` (``(i % p) *
        BK``: the loop re-walks ``p`` blocks), None otherwise (a new block every step, or not known). A
        descriptor access is read through its index operands."""
        if not self.ivs:
            return None
        steps = frozenset({self.ivs[-1]}) | self.carried[-1]
        roots = (
            [*_descriptor_indices(op), op.operands[0]]
            if op.name.startswith("tt.descriptor")
            else [op.operands[0]]
        )
        periods: set[int] = set()
        seen: set[str] = set()
        todo = list(roots)
        while todo:
            name = todo.pop()
            if name in seen:
                continue
            seen.add(name)
            if name in steps:
                return None  # reached the counter (or a carried value) other than through a remainder
            d = self.defs.get(name)
            if d is None:
                continue
            if d.name in ("arith.remsi", "arith.remui") and len(d.operands) == 2:
                divisor = self._uniform(d.operands[1])
                if divisor is not None and divisor > 0 and depends_on(d.operands[0], steps, self.defs):
                    if depends_on(d.operands[1], steps, self.defs):
                        return None
                    periods.add(divisor)
                    continue
            todo.extend(d.operands)
        if not periods:
            return 1
        return periods.pop() if len(periods) == 1 else None

    def given_values(self, tensor: str, off: np.ndarray | None) -> np.ndarray | None:
        """The per-lane values a scalar load reads from ``tensor`` at element offsets ``off``, where the
        caller gave the tensor's contents (``TensorSpec.values``: a variable-length batch's lengths); None
        else, or where an offset falls outside the tensor (a masked-off lane)."""
        spec = self.tensors.get(tensor)
        values = getattr(spec, "values", None)
        if values is None or off is None:
            return None
        flat = np.asarray(values).reshape(-1)
        idx = np.asarray(off, dtype=np.int64)
        live = np.broadcast_to(idx, (self.lanes,))[self.valid] if idx.size > 1 else idx
        if live.size and (live.min() < 0 or live.max() >= flat.size):
            return None
        return flat[np.clip(idx, 0, flat.size - 1)].astype(np.int64)

    def dot(self, op: Op, body: _Body, vin: V) -> None:
        signature = op.text.rsplit(" : ", 1)[-1]
        scaled = op.name == "tt.dot_scaled"
        # tt.dot_scaled's types: ``a[, a_scale] * b[, b_scale] -> c``; tt.dot's ``a * b -> c``
        sides = signature.split(" * ", 1) if scaled else [signature]
        types = [t for side in sides for t in re.findall(r"tensor<[^>]*>", side)[: 1 if scaled else 2]]
        if len(types) < 2:
            raise FrontendError(f"cannot read {op.name} operand types", construct=op.name, location=op.loc)
        a, b = tensor_type(types[0]), tensor_type(types[1])
        assert a is not None and b is not None
        m, k = a[0][-2], a[0][-1]
        nn = b[0][-1]
        batch = math.prod(a[0][:-2]) if len(a[0]) > 2 else 1
        dtype = _ELEM.get(a[1], a[1])
        if scaled:
            k, dtype = self.scaled_dot(op, body, vin, m * batch, nn, k, dtype)
        if located(op, self.fma_dots):
            # lowered to CUDA-core fused multiply-adds (an fp32 dot in IEEE precision): m x n x k of them
            self.compute(op, body, vin, ActionKind.ELEMENTWISE, m * batch * nn * k)
            return
        variant = {3: "wgmma", 2: "mma"}.get(self.ir.mma_version or 0)
        name = self.fresh("dot")
        node = {
            "name": name,
            "kind": ActionKind.DOT,
            "shape": (m * batch, nn, k),
            "dtype": dtype,
            "variant": variant,
            "deps": set(self.deps_in(body, vin)),
            "loc": op.loc,
            "src": MemLevel.SMEM,
        }
        if variant == "wgmma":
            node["mma_n"] = at_op(self.instr_n, op)
        copies = at_op(self.replicated, op)
        # tf32x3: three TF32 MMAs for the one dot (layouts.mma_passes), each its own tensor-core work and
        # shared-memory operand reads; the split of the operands into high and low parts is element work
        passes = at_op(self.mma_passes, op) or 1
        if copies or passes > 1:
            # the MMA layout's warps cover the result more than once: each copy is computed (layouts)
            node["flops"] = 2.0 * m * batch * nn * k * (copies or 1) * passes
        if variant == "wgmma" and node["mma_n"]:
            # Every warpgroup MMA instruction (m64 x mma_n x k16) reads its A rows and B columns from shared
            # memory itself: B once for each 64 rows of the tile, A once for each mma_n columns (and again for
            # each copy of a replicated layout); an A computed in registers (attention's P) is not read. The
            # SM's shared-memory data stage follows these reads: over the sixteen GEMM configs of
            # benchmarks/data/ncu_warps it counts 1.05-1.10 wavefronts of 128 B per 128 B of them (the rest
            # is the copies), against 1.08-2.10 per 128 B of each operand read once
            # (`python benchmarks/ncu_diag/warps.py --operands benchmarks/data/ncu_warps`).
            elem = dtype_bytes(node["dtype"])
            a_in_regs = self._a_in_registers(op, body)
            b_reads = -(-m // WGMMA_ROWS) * (copies or 1)
            a_reads = -(-nn // node["mma_n"]) * (copies or 1)
            a_bytes = 0 if a_in_regs else a_reads * m * k
            node["smem_bytes"] = float(batch * elem * (a_bytes + b_reads * k * nn) * passes)
            node["mma_a_registers"] = a_in_regs
        warps = _mma_v2_warps(self.ir.ttgir) if variant == "mma" else None
        if warps is not None:
            # Warp-level mma: warp (i, j) of the wm x wn grid loads its A rows (m / wm x k) and B columns
            # (k x n / wn) from shared memory with ldmatrix (16 bytes per thread), so every A row is fetched
            # by wn warps and every B column by wm; an A computed in registers (attention's P) is not fetched.
            wm, wn = warps
            elem = dtype_bytes(node["dtype"])
            a_in_regs = self._a_in_registers(op, body)
            node["smem_bytes"] = float(
                batch * elem * ((0 if a_in_regs else wn * m * k) + wm * k * nn) * passes
            )
            node["vector_bytes"] = LDMATRIX_BYTES_PER_THREAD
        if passes > 1:
            # each operand split into a high part and the remainder (a conversion and a subtraction an
            # element), before the MMAs
            self.compute(op, body, vin, ActionKind.ELEMENTWISE, 2 * batch * (m * k + k * nn))
            node["deps"].add(body.nodes[-1]["name"])
        body.add(node)
        self.set_results(op, V(loaded=vin.loaded, prods=frozenset({name})))

    def _a_in_registers(self, op: Op, body: _Body) -> bool:
        """Whether a dot's A operand is in the warps' registers, not read from shared memory: as the TTGIR's
        warpgroup MMA there takes it (:func:`~.layouts.dot_a_registers`: attention's P, an A cast in
        registers before the loop), else where it is computed in ``body`` rather than loaded."""
        found = at_op(self.a_registers, op)
        if found is not None:
            return bool(found)
        a_prods = [p for p in self.get(op.operands[0]).prods if p in body.index]
        return any(body.index[p]["kind"] is not ActionKind.LOAD for p in a_prods)

    def scaled_dot(self, op: Op, body: _Body, vin: V, m: int, n: int, k: int, dtype: str) -> tuple[int, str]:
        """``tl.dot_scaled``: its K (an ``e2m1`` operand packs two values a byte along K) and the dtype its
        MMA runs in. Where the target has no scaled MMA (TTGIR without ``tt.dot_scaled``: Hopper), Triton
        decomposes it (DecomposeScaledBlocked): each operand upcast to bf16 in registers (``tt.fp_to_fp``)
        and multiplied by its scales broadcast along K, B stored back to shared memory for the warpgroup
        MMA, then a bf16 dot. That upcast is an element-wise action before the dot: a conversion and a
        multiply an element of both operands, and B's bf16 tile stored to shared memory."""
        fmt = dict(re.findall(r"\b(lhs|rhs) = (\w+)", op.text))
        if fmt.get("lhs") == "e2m1":
            k *= 2
        if "tt.dot_scaled" in self.ir.ttgir:
            return k, dtype  # a native scaled MMA
        up = {"fp16": "float16"}.get(fmt.get("lhs", ""), "bfloat16")
        self.compute(op, body, vin, ActionKind.ELEMENTWISE, 2 * (m * k + k * n))
        body.nodes[-1]["smem_bytes"] = float(k * n * dtype_bytes(up))
        vin.prods = frozenset({body.nodes[-1]["name"]})
        self.notes.append(
            f"tt.dot_scaled at {op.loc}: no scaled MMA on this target; Triton upcasts both operands to {up} "
            f"in registers (a conversion and a scale multiply an element) and runs a {up} dot"
        )
        return k, up

    def copies(self, op: Op) -> int:
        """How many times the warps compute each element ``op`` works on: more than 1 where its tile lies in
        an MMA layout that wraps around it (:func:`.layouts.element_replication`), each copy computed."""
        return at_op(self.element_copies, op) or 1

    def compute(self, op: Op, body: _Body, vin: V, kind: ActionKind, numel: int) -> None:
        numel *= self.copies(op)
        name = self.fresh(kind.value)
        node = {
            "name": name,
            "kind": kind,
            "flops": float(numel),
            "deps": set(self.deps_in(body, vin)),
            "loc": op.loc,
        }
        self.stage(op, node)
        body.add(node)
        self.set_results(
            op, V(loaded=vin.loaded, prods=frozenset({name}), cands=vin.cands, base=vin.base, via=vin.via)
        )

    def gather(self, op: Op, body: _Body, vin: V, shape: tuple) -> None:
        """``tl.gather(src, index, axis)``: a gather inside a tile (not a memory access), priced as Triton
        lowers it (GatherOpToLLVM). Where its layout pass made the gather warp-local (``efficient_layout``:
        the axis lies within one warp), each output element takes one index shuffle per source register of
        its column (``K``, the layout's elements a thread holds along the axis) and a compare and select to
        keep the right one: ``K`` shuffles and ``2K`` operations an element, a shuffle counted as
        :data:`SHUFFLE_ALU_OPS` operations. Otherwise ``src`` goes to shared memory and each thread reads
        its elements back at their indices behind a barrier: that round trip (``src``'s bytes stored, the
        result's read) plus an index computation per element; the indexed reads' bank conflicts depend on
        the index values and are not counted."""
        numel = math.prod(shape[0])
        k = at_op(self.warp_local_gathers, op)
        if k:
            self.compute(op, body, vin, ActionKind.ELEMENTWISE, numel * k * (SHUFFLE_ALU_OPS + 2))
            how = f"warp-local: {k} index shuffles and selects an element"
        else:
            src = tensor_type(self._operand_type(op)) or ((1,), "f32")
            elem = dtype_bytes(_ELEM.get(src[1], "float32"))
            self.compute(op, body, vin, ActionKind.ELEMENTWISE, numel)
            body.nodes[-1]["smem_bytes"] = float((math.prod(src[0]) + numel) * elem)
            how = "a round trip through shared memory; index-dependent bank conflicts not counted"
        self.notes.append(f"tt.gather at {op.loc}: priced as Triton lowers it, {how}")

    def histogram(self, op: Op, body: _Body, vin: V, shape: tuple) -> None:
        """``tl.histogram(x, bins)`` as Triton lowers it (HistogramOpToLLVM): per input element a thread
        tests each of the ``log2(bins)`` index bits and ballots it (3 ops a bit), folds its lane's bits into
        a mask (5 ops for each of the 5 lane bits), ballots the input mask, then for each of its
        ``bins / 32`` bins combines the remaining bits (2 ops each), counts and adds (2 ops); the warps then
        merge through shared memory: the bins zeroed, every warp's counts added atomically (a read and a
        write each), the bins read back. Priced as that CUDA-core work and those shared-memory bytes."""
        # ``tt.histogram %x, %mask : tensor<4096xi32, ...> -> tensor<64xi32, ...>``: the input type leads
        m = re.search(r":\s*(tensor<[^>]*>)", op.text)
        src = tensor_type(m.group(1)) if m else None
        if src is None:
            what = f"kernel {self.kernel!r}: tt.histogram input type unreadable"
            raise FrontendError(what, construct="tt.histogram", location=op.loc)
        numel = math.prod(src[0])
        warp = self.ir.threads_per_warp
        bins = max(math.prod(shape[0]), warp)
        bits, lane_bits = max(bins.bit_length() - 1, 0), warp.bit_length() - 1
        per_element = 3 * bits + 5 * lane_bits + 1 + (bins // warp) * (2 * (bits - lane_bits) + 2)
        self.compute(op, body, vin, ActionKind.ELEMENTWISE, numel * per_element)
        warps = self.ir.num_warps
        body.nodes[-1]["smem_bytes"] = float(HISTOGRAM_BIN_BYTES * bins * (2 + 2 * warps))

    def group(
        self, op: Op, body: _Body, vin: V, kind: ActionKind, numel: int, alu: int = 0, routine: int = 0
    ) -> None:
        """Fuse chains of same-kind elementwise ops into one action (keeps the body DAG small); ``alu`` of
        the ``numel`` operations are ALU ops (:data:`_FLOAT_ALU_OPS`, integer ops), ``routine`` a software
        math routine's instructions (:data:`LIBDEVICE_ROUTINES`)."""
        copies = self.copies(op)
        numel, alu, routine = numel * copies, alu * copies, routine * copies
        deps = set(self.deps_in(body, vin))
        # candidates in program order (the earliest group first), not in set order: which group absorbs the
        # op shapes the DAG, and set order changes with the interpreter's hash seed
        same = [n["name"] for n in body.nodes if n["name"] in deps and n["kind"] is kind and "fusable" in n]
        for g in same:
            others = deps - {g}
            if not any(body.depends_on(o, g) for o in others):
                node = body.index[g]
                node["flops"] += float(numel)
                node["alu_ops"] = node.get("alu_ops", 0.0) + float(alu)
                node["routine_ops"] = node.get("routine_ops", 0.0) + float(routine)
                node["deps"] |= others
                self.stage(op, node)
                self.set_results(op, _produced(vin, g))
                return
        name = self.fresh(kind.value)
        node = {
            "name": name,
            "kind": kind,
            "flops": float(numel),
            "alu_ops": float(alu),
            "routine_ops": float(routine),
            "deps": deps,
            "loc": op.loc,
            "fusable": True,
        }
        self.stage(op, node)
        body.add(node)
        self.set_results(op, _produced(vin, name))

    # -- control flow --------------------------------------------------------------------------------------
    def loop(self, op: Op, body: _Body) -> None:
        lb, ub, step, *inits = op.operands
        vals = [self.get(x).val for x in (lb, ub, step)]
        iv, *iter_args = op.block_args[0]
        if any(v is None for v in vals):
            loaded = any(self.get(x).loaded for x in (lb, ub, step))
            hint = (
                " (values it loads from memory: pass that tensor's contents, as a numpy array, a CPU tensor"
                " or TensorSpec(..., values=...))"
                if loaded
                else ""
            )
            raise FrontendError(
                f"kernel {self.kernel!r}: loop trip count depends on values the walker cannot evaluate{hint}",
                construct="scf.for",
                location=op.loc,
            )
        lbv, ubv, stv = (np.broadcast_to(v, (self.lanes,)) for v in vals)  # type: ignore[arg-type]
        trips = interp.trip_counts(lbv, ubv, stv)
        distributing = self.get(lb).pid and _has_store(op.regions[0]) and not self.persistent
        vin = self.merged([lb, ub, step, *inits])
        if distributing:
            self.persistent_loop(op, body, lbv, stv, trips, iter_args, inits)
            return
        live = trips[self.valid] if self.valid.any() else trips
        mean = float(live.mean()) if live.size else 0.0
        n_trips = walked_trips(mean)
        mean_trips = by_program = None
        if live.size and live.max() != live.min():
            mean_trips = mean
            if not self.ivs and self.lanes == self.programs and self.valid.all():
                by_program = tuple(int(t) for t in trips)  # lanes are programs in launch order here
            self.notes.append(
                f"loop at {op.loc}: trip count varies by program (min {int(live.min())}, mean {mean:.2f}, "
                f"max {int(live.max())}); the plan times the mean and walks the cache over the rounded mean"
            )
        # a counter starting where the program says (a split-K or split-KV program's own slice of the
        # reduction) carries that coordinate into the addresses it indexes: different slices, different blocks
        start = self.get(lb)
        started = self.candidate(lb) if start.pid else frozenset()
        self.start_cands |= started
        self.env[iv] = V(pid=False, cands=started)
        for a, init in zip(iter_args, inits, strict=True):
            v = self.get(init)
            self.env[a] = V(pid=v.pid, cands=v.cands, base=v.base, loaded=v.loaded, axes=v.axes, via=v.via)
        inner = _Body()
        t_max = int(trips.max()) if trips.size else 0
        self.ivs.append(iv)
        self.carried.append(frozenset(iter_args))
        self.loop_trips.append(n_trips)
        try:
            if 1 < t_max and self.lanes * t_max <= MAX_LANES and _counter_steers(op.regions[0], iv):
                self.walk_iterations(op.regions[0], inner, iv, lbv, stv, trips)
            else:
                self.walk(op.regions[0], inner)
        finally:
            self.ivs.pop()
            self.carried.pop()
            self.loop_trips.pop()
        name = self.fresh(f"loop_{(op.loc or 'L').rsplit(':', 1)[-1]}")
        has_dot = any(n["kind"] is ActionKind.DOT for n in inner.nodes)
        if not inner.nodes:
            self.set_results(op, V())
            return
        body.add(
            {
                "name": name,
                "kind": "loop",
                "trips": n_trips,
                "mean_trips": mean_trips,
                "trips_by_program": by_program,
                "body": inner.nodes,
                "reduction": has_dot,
                # ``tl.range(..., num_stages=s)``: the pipeliner's depth for this loop (its buffers are
                # ``s`` deep in the TTGIR), else the kernel's ``num_stages``
                "num_stages": loop_stages(op),
                "deps": set(self.deps_in(body, vin)),
                "barrier": body.barrier,
                "loc": op.loc,
            }
        )
        yielded = (
            op.regions[0][-1].operands if op.regions[0] and op.regions[0][-1].name == "scf.yield" else []
        )
        for r, y in zip(op.results, yielded, strict=False):
            yv = self.get(y)
            self.env[r] = V(
                pid=yv.pid,
                cands=yv.cands,
                base=yv.base,
                loaded=yv.loaded,
                prods=frozenset({name}),
                via=yv.via,
            )

    def walk_iterations(self, ops: list[Op], inner: _Body, iv: str, lbv, stv, trips) -> None:
        """Walk a loop body that holds nested loops with one lane per (program, iteration), so an inner trip
        count that depends on this loop's counter (a triangular loop) is evaluated exactly for every
        iteration; its plan trip count is then the mean over all live (program, iteration) pairs. Lanes,
        validity and the values defined before the loop are restored afterwards; coordinate candidates
        recorded inside keep their first iteration (the counter is not a tile coordinate)."""
        old, old_valid, t_max = self.lanes, self.valid, int(trips.max())
        saved = self._tile_lanes(old, t_max)
        it = np.repeat(np.arange(t_max, dtype=np.int64), old)
        self.lanes = old * t_max
        self.valid = np.tile(old_valid, t_max) & (it < np.tile(trips, t_max))
        self.env[iv] = V(val=np.tile(lbv, t_max) + it * np.tile(stv, t_max))
        try:
            self.walk(ops, inner)
        finally:
            self.lanes, self.valid = old, old_valid
            for v, val, off in saved:
                v.val, v.off = val, off
            # recorded inside, or recorded before and again inside (``seq_idx`` first used in an address in
            # the loop): back to one lane a program either way
            for k in self.cands:
                if self.cands[k].shape[0] == old * t_max:
                    self.cands[k] = self.cands[k][:old]
                    self.cand_valid[k] = self.cand_valid[k][:old]
            self.env[iv] = V(pid=False)

    def _tile_lanes(self, old: int, t_max: int) -> list[tuple[V, np.ndarray | None, np.ndarray | None]]:
        """Repeat every per-lane array of the values defined so far (a scalar's ``val``, a scalar pointer's
        ``off``) from ``old`` lanes to ``old x t_max`` (one lane per program and iteration); returns each
        changed value with its arrays before, to restore."""
        saved = []
        for v in self.env.values():
            val = v.val if v.val is not None and v.val.shape == (old,) else None
            off = v.off if v.off is not None and v.off.shape == (old,) else None
            if val is None and off is None:
                continue
            saved.append((v, v.val, v.off))
            if val is not None:
                v.val = np.tile(val, t_max)
            if off is not None:
                v.off = np.tile(off, t_max)
        return saved

    def persistent_loop(self, op, body, lbv, stv, trips, iter_args, inits) -> None:
        self.persistent = True
        self.tiles_in_flight = self.pipelined_tiles(op)
        # what the program does before and after its tile loop runs once per program, not once per tile:
        # keep it apart from the loop's work (no fusing across) and wrap it afterwards (:meth:`per_program`)
        top = body.nodes is self.top_nodes
        for n in body.nodes:
            n.pop("fusable", None)
        start = len(body.nodes)
        t_max = int(trips.max()) if trips.size else 0
        t_max = max(t_max, 1)
        old = self.lanes
        self.lanes = old * t_max
        it = np.repeat(np.arange(t_max, dtype=np.int64), old)
        self._tile_lanes(old, t_max)
        self.valid = np.tile(self.valid, t_max) & (it < np.tile(trips, t_max))
        iv = op.block_args[0][0]
        self.env[iv] = V(val=np.tile(lbv, t_max) + it * np.tile(stv, t_max), pid=True)
        for a, init in zip(iter_args, inits, strict=True):
            v = self.get(init)
            self.env[a] = V(pid=v.pid, cands=v.cands, base=v.base, loaded=v.loaded, axes=v.axes, via=v.via)
        self.walk(op.regions[0], body)
        for n in body.nodes[start:]:
            n.pop("fusable", None)
        if top:
            self.persistent_span = (start, len(body.nodes), op.loc)
        for r in op.results:
            self.env[r] = V()

    def pipelined_tiles(self, op: Op) -> int:
        """The tiles a persistent program keeps in flight: a tile loop with no loop inside (a row loop) is
        software-pipelined like any innermost loop, at its ``tl.range(..., num_stages=s)`` (else the
        kernel's ``num_stages``), its loads ``s - 1`` tiles ahead of the tile it computes, where the compiler
        made them asynchronous copies; a tile loop holding the loop it pipelines (a K loop) runs its tiles
        one at a time."""
        if _has_loop(op.regions[0]) or not pipelined(self.ir.ttgir):
            return 1
        stages = loop_stages(op)
        return max((self.ir.num_stages if stages is None else stages) - 1, 1)

    def per_program(self, nodes: list[dict]) -> list[dict]:
        """A persistent kernel's top-level actions with the work before and after its tile loop (loading a
        weight row, storing a per-program partial sum) as loops of one iteration timed at ``programs /
        tiles`` per tile (``mean_trips``): the plan's unit is the tile, and each program runs that work once
        for all of its tiles. Dependencies on the wrapped actions move to their wrapper."""
        if self.persistent_span is None:
            return nodes
        a, b, loc = self.persistent_span
        tiles = int(self.valid.sum())
        if tiles <= self.programs:
            return nodes
        share = self.programs / tiles
        middle = list(nodes[a:b])
        moved: dict[str, str] = {}
        wrapped: dict[str, list[dict]] = {"before": [], "after": []}
        for part, stem in ((nodes[:a], "before"), (nodes[b:], "after")):
            if not part:
                continue
            name = self.fresh(f"per_program_{stem}_loop")
            inner = {n["name"] for n in part}
            outside = set().union(*(n["deps"] - inner for n in part))
            # a cross-warp reduction outside the wrapped part that a wrapped action waits behind (its block
            # barrier): the wrapper waits for it instead
            outside |= {n["barrier"] for n in part if n.get("barrier") and n["barrier"] not in inner}
            for n in part:
                n["deps"] = n["deps"] & inner
                if n.get("barrier") and n["barrier"] not in inner:
                    n["barrier"] = None
            wrapped[stem] = [_share_loop(name, part, share, outside, loc)]
            moved.update(dict.fromkeys(inner, name))
        out = wrapped["before"] + middle + wrapped["after"]
        for n in out:
            n["deps"] = {moved.get(d, d) for d in n["deps"]} - {n["name"]}
        self.notes.append(
            f"persistent loop at {loc}: the work before and after it runs once per program, "
            f"{share:.3g} of a program per tile"
        )
        return out

    def scalar_while(self, op: Op) -> bool:
        """A ``while`` over scalars only, whose start values each program knows and whose condition each step
        can evaluate (vLLM's binary search for a program's sequence over the cumulative query lengths, with
        their contents given: ``while left < right: mid = (left + right) // 2; if tl.load(cu + mid) <=
        target: left = mid + 1 else: right = mid``): run per program, step by step, until every program's
        condition fails, and its results are each program's values. Its few scalar loads are left out of
        the plan (a note says so). False where the loop is not of this form (a spin lock, tensors inside,
        stores); a condition that reads data without given contents, or a loop that runs past
        :data:`SCALAR_WHILE_STEPS` steps, is refused, naming it."""
        if len(op.regions) != 2 or len(op.operands) % 2 or not op.operands:
            return False
        args, inits = op.operands[0::2], op.operands[1::2]
        before, after = op.regions
        cond = before[-1] if before else None
        steps = [o for o in after if o.name != BLOCK_LABEL]
        if (
            cond is None
            or cond.name != "scf.condition"
            or cond.operands[1:] != args  # the body gets the carried values as they are (its own names)
            or len(op.results) != len(args)
            or not steps
            or steps[-1].name != "scf.yield"
            or len(steps[-1].operands) != len(args)
        ):
            return False
        for o in walk_ops([*before, *after]):
            if o.name in _STORES or o.name.startswith("tt.atomic") or "tensor<" in (o.rtype or ""):
                return False
        starts = [self.get(x).val for x in inits]
        if any(v is None for v in starts):
            return False
        lanes = self.lanes
        state = [np.array(np.broadcast_to(v, (lanes,))) for v in starts]
        final = [v.copy() for v in state]
        active = np.ones(lanes, dtype=bool)
        known, notes, scratch = set(self.accesses), len(self.notes), _Body()
        # coordinates its steps record (``mid`` at the search's last step) are no part of the plan either: a
        # bound of the search taken as a grid dimension multiplied the grid by its distinct values
        cands, data = set(self.cands), set(self.data_cands)
        for step in range(SCALAR_WHILE_STEPS + 1):
            for a, v in zip(args, state, strict=True):
                self.env[a] = V(val=v, pid=True)
            for o in before[:-1]:
                self.step(o, scratch)
            c = self.get(cond.operands[0]).val
            if c is None:
                raise UnsupportedOpError(SCALAR_WHILE_UNKNOWN, self.kernel, op.loc)
            going = np.broadcast_to(c, (lanes,)).astype(bool)
            ending = active & ~going
            for f, v in zip(final, state, strict=True):
                f[ending] = v[ending]
            active &= going
            if not active.any():
                break
            if step == SCALAR_WHILE_STEPS:
                raise UnsupportedOpError(
                    f"scf.while running past {SCALAR_WHILE_STEPS} steps in some program", self.kernel, op.loc
                )
            for o in steps[:-1]:
                self.step(o, scratch)
            new = [self.get(x).val for x in steps[-1].operands]
            if any(v is None for v in new):
                raise UnsupportedOpError(SCALAR_WHILE_UNKNOWN, self.kernel, op.loc)
            state = [
                np.where(active, np.broadcast_to(v, (lanes,)), s) for v, s in zip(new, state, strict=True)
            ]
        for key in set(self.accesses) - known:  # the loop's scalar loads: no part of the plan
            del self.accesses[key]
        for key in set(self.cands) - cands:
            del self.cands[key], self.cand_valid[key]
        self.data_cands &= data
        del self.notes[notes:]
        self.notes.append(
            f"while loop at {op.loc}: run per program over the given contents ({step} steps at most); its "
            "scalar loads are left out of the plan"
        )
        for r, f in zip(op.results, final, strict=True):
            self.env[r] = V(val=f, pid=True, loaded=True)
        return True

    def spin_lock(self, op: Op, body: _Body) -> None:
        """``while tl.atomic_cas(lock, 0, 1) == 1: pass``: a program waits until it holds the lock. The one
        ``scf.while`` a kernel's tile program is modelled with: its loop body is empty and its condition
        reads the compare-and-swap, so a program that finds the lock free goes on at once; the waiting is
        the lock's (the section until the releasing atomic on the same lock, :meth:`release`, is held by one
        program at a time, :class:`~tilesight.plan.LockSection`). The compare-and-swap is the acquiring
        action; ``holders`` is how many programs share each lock address. Any other ``scf.while`` but a
        counted one (:func:`.ir.counted_while`, walked as its ``for`` loop before this is asked) is refused,
        naming it."""
        before = op.regions[0] if op.regions else []
        after = op.regions[1] if len(op.regions) > 1 else []
        for o in before:
            for r in o.results:
                self.defs[r] = o
        cas = [o for o in before if o.name == "tt.atomic_cas"]
        rest = [o for o in before if o.name not in _TERMINATORS and o.name != "tt.atomic_cas"]
        cond = before[-1] if before and before[-1].name == "scf.condition" else None
        spin = (
            len(cas) == 1
            and cond is not None
            and bool(cond.operands)
            and depends_on(cond.operands[0], frozenset(cas[0].results), self.defs)
            and not op.operands
            and not op.results
            and all(o.name in _TERMINATORS for o in after)
            and all(o.name.startswith("arith.") or o.name == "tt.addptr" for o in rest)
        )
        if not spin:
            what = (
                "scf.while (a loop other than a spin lock, `while atomic_cas(lock, 0, 1) == 1: pass`, a "
                "counted loop, `while i < n: ...; i += step` with n and step set before it, or a loop over "
                "scalars that carries values whose start each program knows, such as a binary search)"
            )
            raise UnsupportedOpError(what, self.kernel, op.loc)
        if self.held is not None or self.lock is not None or self.ivs or body.nodes is not self.top_nodes:
            what = "scf.while (a spin lock inside a loop or branch, or a second lock)"
            raise UnsupportedOpError(what, self.kernel, op.loc)
        start = len(body.nodes)
        for o in before:
            if o.name not in _TERMINATORS:
                self.step(o, body)
        ptr = self.get(cas[0].operands[0])
        if ptr.off is None:
            raise FrontendError(
                f"kernel {self.kernel!r}: the spin lock's address is not known before launch",
                construct="tt.atomic_cas",
                location=cas[0].loc,
            )
        if len(body.nodes) != start + 1:
            raise FrontendError(
                f"kernel {self.kernel!r}: the spin lock's compare-and-swap made no single action",
                construct="tt.atomic_cas",
                location=cas[0].loc,
            )
        off = np.broadcast_to(ptr.off, (self.lanes,))
        live = off[self.valid]
        self.held = {
            "base": ptr.base,
            "off": off,
            "acquire": body.nodes[start]["name"],
            "start": start + 1,
            "holders": max(float(live.size) / max(int(np.unique(live).size), 1), 1.0),
            "loc": op.loc,
        }

    def release(self, op: Op, body: _Body) -> None:
        """An atomic on the held lock's address (``tl.atomic_xchg(lock, 0)``) releases it: the top-level
        actions since the acquiring compare-and-swap are the lock's section."""
        held = self.held
        assert held is not None
        ptr = self.get(op.operands[0])
        if ptr.base != held["base"] or ptr.off is None or not body.nodes:
            return
        if not np.array_equal(np.broadcast_to(ptr.off, (self.lanes,)), held["off"]):
            return  # another address of the same argument (the tutorial's counter beside its lock)
        self.lock = {
            "acquire": held["acquire"],
            "release": body.nodes[-1]["name"],
            "section": tuple(n["name"] for n in body.nodes[held["start"] : -1]),
            "holders": held["holders"],
        }
        self.held = None

    def branch(self, op: Op, body: _Body) -> None:
        cond = self.get(op.operands[0]).val
        take_then = True
        if cond is not None:
            live = np.broadcast_to(cond, (self.lanes,))[self.valid]
            share = float(live.mean()) if live.size else 1.0
            if 0.0 < share < 1.0 and op.results and len(op.regions) == 2 and _selects_values(op.regions):
                # an ``if`` that only chooses values (FlagGems' cat picks each program's input, size and
                # offset by ``pid_y``): each program gets its own branch's values
                self.select_values(op, np.broadcast_to(cond, (self.lanes,)).astype(bool))
                return
            if 0.0 < share < 1.0 and not _has_work(op.regions[1:]):
                name = self.guarded(op, body, np.broadcast_to(cond, (self.lanes,)).astype(bool), share)
                # an ``if`` that yields values (an accumulator only the taking programs or iterations
                # update; the ``else`` passes it on): its results are the then-branch's, made by the guard
                then = op.regions[0]
                yielded = then[-1].operands if then and then[-1].name == "scf.yield" else []
                for r, y in zip(op.results, yielded, strict=False):
                    v = self.get(y)
                    prods = frozenset({name}) if name else v.prods
                    self.env[r] = V(
                        pid=v.pid, cands=v.cands, base=v.base, loaded=v.loaded, prods=prods, via=v.via
                    )
                return
            take_then = share >= 0.5 if live.size else True  # the branch most programs take
        region = op.regions[0] if take_then or len(op.regions) < 2 else op.regions[1]
        if cond is None:
            self.notes.append(
                f"scf.if at {op.loc}: condition unknown before launch; the plan takes the then-branch"
            )
        self.walk(region, body)
        yielded = region[-1].operands if region and region[-1].name == "scf.yield" else []
        for r, y in zip(op.results, yielded, strict=False):
            self.env[r] = self.get(y)

    def select_values(self, op: Op, taken: np.ndarray) -> None:
        """The results of an ``scf.if`` that only computes and yields scalars, the condition known per
        program: each region walked for the programs that take it, each result the taken branch's value
        program by program. A pointer argument chosen per program is refused (an access reads one tensor)."""
        outer = self.valid
        yields: list[list[V]] = []
        for region, lanes in zip(op.regions, (taken, ~taken), strict=True):
            self.valid = outer & lanes if (outer & lanes).any() else outer
            try:
                self.walk(region, _Body())
            finally:
                self.valid = outer
            done = region[-1].operands if region and region[-1].name == "scf.yield" else []
            yields.append([self.get(y) for y in done])
        for r, a, b in zip(op.results, *yields, strict=False):
            if a.base != b.base and (a.base is not None or b.base is not None):
                raise self._chosen_pointer(op, a.base, b.base)
            val = None if a.val is None or b.val is None else _per_lane(taken, a.val, b.val)
            off = None if a.off is None or b.off is None else _per_lane(taken, a.off, b.off)
            self.env[r] = V(
                val=val, pid=True, cands=a.cands | b.cands, base=a.base, loaded=a.loaded or b.loaded,
                via=a.via | b.via, off=off, shift=a.shift if a.shift == b.shift else None,
            )  # fmt: skip

    def _chosen_pointer(self, op: Op, *bases: str | None) -> UnsupportedOpError:
        named = " and ".join(repr(b) for b in bases if b is not None)
        return UnsupportedOpError(
            f"{op.name} choosing the pointer argument per program ({named}): an access reads one tensor",
            self.kernel,
            op.loc,
        )

    def guarded(
        self, op: Op, body: _Body, taken: np.ndarray, share: float, what: str = "scf.if"
    ) -> str | None:
        """An ``if`` whose ``else`` does no work (none, or one that only passes values on) that some programs
        take and others skip (``if head < n_kv_heads``; ``if tl.load(mask + k):`` per iteration): its work
        as a loop of one iteration in the programs that take it and none in the others, so the plan
        times ``share`` of it per program (``mean_trips``; ``trips_by_program`` where lanes are programs)
        while the cache model walks the accesses of one iteration. Returns the guard node's name (None when
        the branch holds no work)."""
        inner = _Body()
        by_program = None
        if not self.ivs and self.lanes == self.programs and self.valid.all():
            by_program = tuple(taken.astype(np.int64).tolist())
        # inside, only the programs that take the branch count: a loop's mean trip count there is theirs (a
        # varlen batch's query blocks past their sequence return early; the rest run their sequence's keys)
        outer = self.valid
        lanes = np.broadcast_to(taken, outer.shape).astype(bool)
        self.valid = outer & lanes if (outer & lanes).any() else outer
        try:
            self.walk(op.regions[0], inner)
        finally:
            self.valid = outer
        if not inner.nodes:
            return None
        self.notes.append(
            f"{what} at {op.loc}: taken by {share:.0%} of the programs; the plan times that share of its work"
        )
        name = self.fresh(f"if_{(op.loc or 'L').rsplit(':', 1)[-1]}")
        deps = set(self.deps_in(body, self.merged(list(op.operands))))
        body.add(_share_loop(name, inner.nodes, share, deps, op.loc, by_program))
        return name


def _walk_nodes(nodes: list[dict]):
    """Every raw node of ``nodes`` and of the loop bodies inside them."""
    for node in nodes:
        yield node
        if "body" in node:
            yield from _walk_nodes(node["body"])


def _share_loop(
    name: str, body: list[dict], share: float, deps: set[str], loc: str | None, by_program=None
) -> dict:
    """A loop node of one iteration that the mean program runs ``share`` of (``mean_trips``): an ``if``
    some programs take (:meth:`Walker.guarded`), a persistent program's work around its tile loop
    (:meth:`Walker.per_program`)."""
    return {
        "name": name,
        "kind": "loop",
        "trips": 1,
        "mean_trips": share,
        "trips_by_program": by_program,
        "body": body,
        "reduction": False,
        "deps": deps,
        "loc": loc,
    }


def _per_lane(taken: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a`` in the lanes ``taken`` marks, ``b`` in the others."""
    return np.where(taken, np.broadcast_to(a, taken.shape), np.broadcast_to(b, taken.shape))


def _selects_values(regions: list[list[Op]]) -> bool:
    """Whether ``regions`` only compute scalars and choose between them (scalar ``arith`` ops, nested
    ``scf.if`` of the same kind, their yields): no memory access, no tensor, nothing to time."""
    for region in regions:
        for o in region:
            if o.name in _TERMINATORS:
                continue
            if o.name == "scf.if":
                if not _selects_values(o.regions):
                    return False
                continue
            if o.name not in interp.SCALAR_OPS or tensor_type(o.rtype) is not None:
                return False
    return True


def _has_work(regions: list[list[Op]]) -> bool:
    """Whether any op of ``regions`` is more than a terminator (an ``else`` that only yields has none)."""
    return any(o.name not in _TERMINATORS for region in regions for o in region)


# ldmatrix.x4 moves four 8x8 matrices of 16-bit elements per warp: 16 bytes per thread per instruction.
LDMATRIX_BYTES_PER_THREAD = 16
# Rows of one warpgroup MMA instruction (wgmma m64nNk16): a warpgroup covers its rows 64 at a time.
WGMMA_ROWS = 64
_MMA_V2_WARPS = re.compile(r"nvidia_mma<\{versionMajor = 2,[^}]*?warpsPerCTA = \[(\d+), (\d+)\]")


def _mma_v2_warps(ttgir: str) -> tuple[int, int] | None:
    """The (rows, columns) warp grid of the module's warp-level mma layout, if it has one."""
    m = _MMA_V2_WARPS.search(ttgir)
    return (int(m.group(1)), int(m.group(2))) if m else None


def _is_int(elem: str) -> bool:
    return elem.startswith(("i", "!tt.ptr", "ui"))


def _counter_steers(ops: list[Op], iv: str) -> bool:
    """True when a loop nested in ``ops`` has a bound, or an ``scf.if`` in ``ops`` a condition, computed
    (within ``ops``) from ``iv``: a triangular loop, or a block-sparse mask read at the counter
    (``if tl.load(mask + k):``), whose share then follows every (program, iteration) pair."""
    defs: dict[str, list[str]] = {}
    bounds: list[str] = []

    def scan(region: list[Op]) -> None:
        for op in region:
            for r in op.results:
                defs[r] = op.operands
            if op.name == "scf.for":
                bounds.extend(op.operands[:3])
            elif op.name == "scf.if" and op.operands:
                bounds.append(op.operands[0])
            for inner in op.regions:
                scan(inner)

    scan(ops)
    seen: set[str] = set()
    todo = list(bounds)
    while todo:
        name = todo.pop()
        if name == iv:
            return True
        if name not in seen:
            seen.add(name)
            todo.extend(defs.get(name, ()))
    return False


_STORES = ("tt.store", "tt.descriptor_store", "tt.atomic_rmw", "tt.atomic_cas")


@functools.lru_cache(maxsize=256)
def _module(ttir: str) -> tuple[Function, frozenset[int]]:
    """The kernel function of a printed TTIR module and its :func:`fused_adds`, cached together by text so
    the op ids always refer to the function the walk gets."""
    fn = parse_module(ttir)
    return fn, fused_adds(fn)


def fused_adds(fn: Function) -> frozenset[int]:
    """The float tensor adds and subtracts (``id`` of the op) that the compiler contracts with a multiply
    into one fused multiply-add (Triton compiles with FP contraction on, its default): an ``arith.addf`` or
    ``arith.subf`` one of whose operands is an ``arith.mulf`` of the same type used nowhere else. Each such
    pair issues one instruction an element, not two. Names are resolved in program order, as the walk does
    (an inlined helper's body may reuse another's SSA names)."""
    scope: dict[str, Op | None] = {}
    uses: collections.Counter[int] = collections.Counter()
    candidates: list[tuple[Op, list[Op]]] = []

    def visit(ops: list[Op]) -> None:
        for op in ops:
            defs = [scope.get(o) for o in op.operands]
            for d in defs:
                if d is not None:
                    uses[id(d)] += 1
            if op.name in ("arith.addf", "arith.subf") and tensor_type(op.rtype) is not None:
                muls = [d for d in defs if d is not None and d.name == "arith.mulf" and d.rtype == op.rtype]
                if muls:
                    candidates.append((op, muls))
            for args in op.block_args:
                scope.update(dict.fromkeys(args))  # a region's arguments shadow outer names
            for region in op.regions:
                visit(region)
            for r in op.results:
                scope[r] = op

    visit(fn.body)
    return frozenset(id(op) for op, muls in candidates if any(uses[id(m)] == 1 for m in muls))


def loop_stages(op: Op) -> int | None:
    """The software-pipeline depth an ``scf.for`` names itself (``tl.range(..., num_stages=s)``: the TTGIR
    keeps ``{tt.num_stages = s}`` on it); None where it names none and the kernel's ``num_stages`` holds."""
    m = _NUM_STAGES.search(op.attrs)
    return int(m.group(1)) if m else None


def _has_loop(ops: list[Op]) -> bool:
    """Whether the ops (nested regions included) hold a loop."""
    return any(op.name in ("scf.for", "scf.while") for op in walk_ops(ops))


def _has_store(ops: list[Op]) -> bool:
    """Whether the ops (nested regions included) write global memory: a persistent kernel's tile loop stores
    each tile it computes; a split-K loop starting at a program-dependent K offset stores after the loop."""
    return any(op.name in _STORES for op in walk_ops(ops))
