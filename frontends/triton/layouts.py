"""What Triton's layouts say about memory instructions (read from the TTGIR text).

* The vector width of each global load / store: a blocked layout's ``sizePerThread`` along its fastest axis
  (``order[0]``) times the element size. Triton's coalescing pass already narrowed it to what the pointers'
  alignment allows, so an unaligned row stride shows up here as element-wide accesses.
* A 1-D masked access whose mask or address takes a value of no known alignment is element-wide: an integer
  argument Triton could not specialise as divisible by 16 (a row length of 5000, a row stride of 3000), a
  length read from memory (a ragged batch's ``cols < tl.load(lens + b)``), a program id compared with the
  columns (a causal row's ``cols <= row``). The LLVM lowering limits the vector to the mask's constancy and
  the pointer's alignment, which such a value makes one element (``ld.global.b16`` per element, checked
  against Triton's LLIR and PTX), unless a factor restores the alignment (``(pid * chunks + i) * BLOCK``):
  :func:`_lowered_vector` follows the access's def chain with the divisibility rules Triton's alignment
  analysis uses, resolving each name in the region it is used from (:func:`_scoped_ops`). The layout still
  shows the full vector. (A tile of several axes narrows only for a mask along its fastest axis,
  :func:`_varying_axes`: a causal convolution's shifted taps, ``src[None, :] >= 0``; a row mask
  ``rows[:, None] < M`` leaves the vector.) Such an access's lanes stay as far apart as the layout's vector
  (:func:`lane_strides`): a 2-byte store whose lanes sit 16 bytes apart writes part of every 4-byte word it
  touches.
* An asynchronous copy into shared memory whose layout stores the tile along another axis than the global
  layout reads it contiguously (``nvmma_shared`` with ``transposed = true``: a 32-bit operand of a Hopper
  TF32 dot, whose B tile ``wgmma`` reads K-major only, copied from a row-major B) cannot move vectors: each
  ``cp.async`` copies one element (``LDGSTS.E`` of 4 bytes in the SASS of an fp32 GEMM compiled on CPU,
  against ``LDGSTS.E.BYPASS.128`` for the A tile beside it and for both tiles of the fp16 GEMM).
* The warps a reduction's axis spans (``warpsPerCTA`` of its operand's layout along ``axis``): more than one
  means the warps' partial results meet in shared memory behind a barrier.
* Whether the software pipeliner turned loop loads into asynchronous copies (``cp.async`` / TMA). When it
  could not (narrow or unaligned accesses), the loads stay synchronous and single-buffered.
* The row pointers a thread keeps per global access (:func:`access_rows`): elements of one row along the
  layout's fastest axis sit at constant offsets from one address, so ptxas folds them into immediate offsets,
  but each row of a tile with a runtime row stride needs a 64-bit address of its own. A synchronous loop load
  carries its pointer tensor from iteration to iteration (``scf.for`` iter_args in the TTGIR), so these stay
  live across the loop.
"""

from __future__ import annotations

import functools
import math
import re
from collections import ChainMap
from collections.abc import Iterator, Mapping
from types import MappingProxyType

from .ir import Op, counted_while, depends_on, op_axis, parse_module, tensor_type, walk_ops

_BLOCKED = re.compile(r"^(#blocked\d*) = #ttg\.blocked<\{([^}]*)\}>", re.M)
_LIST_FIELD = re.compile(r"(\w+) = \[([\d, ]+)\]")
_TYPED = re.compile(r"tensor<(?:\d+x)+(?:!tt\.ptr<)?([a-zA-Z]\w*)>?, (#blocked\d*)>")
_NVMMA_SHARED = re.compile(r"^(#shared\d*) = #ttg\.nvmma_shared<\{([^}]*)\}>", re.M)
_SWIZZLED_SHARED = re.compile(r"^(#shared\d*) = #ttg\.swizzled_shared<\{([^}]*)\}>", re.M)
_ASYNC_DST = re.compile(r"-> <(?:\d+x)+\w+, (#shared\d*)")
_ELEMENT_BYTES = {
    "f64": 8, "i64": 8, "f32": 4, "i32": 4, "f16": 2, "bf16": 2, "i16": 2,
    "f8E4M3FN": 1, "f8E5M2": 1, "i8": 1, "i1": 1,
}  # fmt: skip
_MEMORY_OPS = ("tt.load", "tt.store", "ttg.async_copy_global_to_local")
_INT_ARG = re.compile(r"(%[\w.$-]+): (?:i32|i64)( \{[^}]*\})?")
_FUNC_LINE = re.compile(r"^\s*tt\.func public @.*$", re.M)
_ASYNC_OPS = ("async_copy_global_to_local", "async_tma_copy_global_to_local", "tt.descriptor_load")


def _list_fields(body: str) -> dict[str, tuple[int, ...]]:
    """A layout attribute's list fields (``warpsPerCTA = [8, 1]``) as integer tuples."""
    return {key: tuple(int(x) for x in values.split(",")) for key, values in _LIST_FIELD.findall(body)}


def _blocked(ttgir: str) -> dict[str, dict[str, tuple[int, ...]]]:
    """Blocked layout alias -> its list fields (``sizePerThread``, ``threadsPerWarp``, ``warpsPerCTA``,
    ``order``) as integer tuples."""
    return {alias: _list_fields(body) for alias, body in _BLOCKED.findall(ttgir)}


def _vectors(ttgir: str) -> dict[str, int]:
    """Layout alias -> elements one thread holds contiguously along the fastest axis."""
    return {
        alias: f["sizePerThread"][f["order"][0]]
        for alias, f in _blocked(ttgir).items()
        if "sizePerThread" in f and "order" in f
    }


_INT_FIELD = re.compile(r"(\w+) = (\d+)")


def shared_layouts(ttgir: str) -> dict[str, tuple]:
    """Shared layout alias -> ``("nvmma", swizzlingByteWidth, transposed)`` for an ``nvmma_shared`` layout,
    ``("swizzled", vec, perPhase, maxPhase, order)`` for a 2-D ``swizzled_shared`` one; other shared layouts
    are left out (nothing is inferred for them)."""
    out: dict[str, tuple] = {}
    for alias, body in _NVMMA_SHARED.findall(ttgir):
        ints = dict(_INT_FIELD.findall(body))
        out[alias] = ("nvmma", int(ints.get("swizzlingByteWidth", 0)), "transposed = true" in body)
    for alias, body in _SWIZZLED_SHARED.findall(ttgir):
        ints, lists = dict(_INT_FIELD.findall(body)), _list_fields(body)
        if len(lists.get("order", ())) == 2:
            out[alias] = ("swizzled", int(ints.get("vec", 1)), int(ints.get("perPhase", 1)),
                          int(ints.get("maxPhase", 1)), lists["order"])  # fmt: skip
    return out


def _shared_contiguous(ttgir: str) -> dict[str, int]:
    """Shared layout alias -> the axis its tile is stored contiguously along, counted from the last (0: the
    last axis, 1: the one before it): an ``nvmma_shared`` layout's last axis, or the one before when stored
    transposed; a ``swizzled_shared`` layout's ``order[0]``, as an offset from the last of a 2-D tile
    (:func:`shared_layouts`)."""
    return {
        alias: (1 if layout[2] else 0) if layout[0] == "nvmma" else 1 - layout[4][0]
        for alias, layout in shared_layouts(ttgir).items()
    }


def _copy_axes(ttgir: str) -> tuple[dict[str, int], dict[str, int]]:
    """The contiguous axis of each shared layout (:func:`_shared_contiguous`) and of each blocked layout
    (``order[0]``): what :func:`_scattered` compares."""
    fastest = {alias: f["order"][0] for alias, f in _blocked(ttgir).items() if "order" in f}
    return _shared_contiguous(ttgir), fastest


def _signature(ttgir: str, pattern: re.Pattern[str]) -> list[tuple[str, bool]]:
    """(SSA name, whether Triton specialised its divisibility) of each kernel argument ``pattern`` matches
    on the function's signature line."""
    m = _FUNC_LINE.search(ttgir)
    if m is None:
        return []
    return [(name, "tt.divisibility" in attrs) for name, attrs in pattern.findall(m.group(0))]


def unaligned_int_args(ttgir: str) -> frozenset[str]:
    """SSA names of the kernel's integer arguments Triton did not specialise as divisible by 16."""
    return frozenset(name for name, divisible in _signature(ttgir, _INT_ARG) if not divisible)


# Divisibility the analysis below gives a value it knows to be a multiple of any vector (a zero constant, a
# range's start at zero, a pointer argument Triton specialised as 16-byte aligned).
_ALIGNED = 1 << 20
_PTR_ARG = re.compile(r"(%[\w.$-]+): !tt\.ptr<[^>]*>( \{[^}]*\})?")
_CONST_INT = re.compile(r"^\s*(?:dense<)?(-?\d+)>?\s*:")
_RANGE_START = re.compile(r"start = (-?\d+)")
# Ops whose result has its (first) operand's divisibility.
_SAME_DIVISIBILITY = frozenset(
    {"tt.splat", "tt.broadcast", "tt.expand_dims", "arith.extsi", "arith.extui", "arith.trunci",
     "ttg.convert_layout", "arith.index_cast"}
)  # fmt: skip


def _pow2(value: int) -> int:
    """The largest power of two dividing ``value`` (:data:`_ALIGNED` for zero)."""
    return _ALIGNED if value == 0 else min(abs(value) & -abs(value), _ALIGNED)


def _arg_divisibility(ttgir: str) -> Mapping[str, int]:
    """The kernel's integer and pointer arguments -> their known divisibility: 16 (elements) for an integer
    Triton specialised as divisible by 16, :data:`_ALIGNED` for a pointer it specialised as 16-byte
    aligned, 1 for the others."""
    out = {name: 16 if divisible else 1 for name, divisible in _signature(ttgir, _INT_ARG)}
    out |= {name: _ALIGNED if divisible else 1 for name, divisible in _signature(ttgir, _PTR_ARG)}
    return MappingProxyType(out)


def _divisibility(
    value: str,
    defs: Mapping[str, Op],
    args: Mapping[str, int],
    ivs: Mapping[str, Op | tuple[str, str]],
    memo: dict[str, int],
) -> int:
    """The largest power of two an integer (or address) value is known to be a multiple of, in elements:
    Triton's own alignment reasoning (AxisInfo), which its LLVM lowering uses to size each thread's memory
    vector, over the ops a kernel's index arithmetic uses. Products multiply, sums take the smaller, a range
    counts as its start (its contiguity is the layout's business), a loop's induction variable as the smaller
    of its start and step, a loop-carried value as the smaller of what enters the loop and what an
    iteration yields for it, a remainder as the smaller of its operands'; anything else (a quotient, a mask,
    a loaded value) is 1."""
    if value in memo:
        return memo[value]
    memo[value] = 1  # a cycle through other values stays pessimistic
    if value in args:
        out = args[value]
    elif isinstance(carried := ivs.get(value), tuple):
        # a loop-carried value: the smaller of what enters the loop and what each iteration yields, taken
        # optimistically around the cycle as AxisInfo's fixed point does (a row offset the pipeliner carries
        # as ``off + N`` stays a multiple of N's divisibility)
        memo[value] = _ALIGNED
        out = min(_divisibility(v, defs, args, ivs, memo) for v in carried)
    elif value in ivs:
        loop = ivs[value]
        lower, step = loop.operands[0], loop.operands[2]
        out = min(_divisibility(lower, defs, args, ivs, memo), _divisibility(step, defs, args, ivs, memo))
    elif (op := defs.get(value)) is None:
        out = 1
    elif op.name == "arith.constant":
        c = _CONST_INT.match(op.text)
        out = _pow2(int(c.group(1))) if c else 1
    elif op.name == "tt.make_range":
        start = _RANGE_START.search(op.text)
        out = _pow2(int(start.group(1))) if start else 1
    elif op.name == "arith.muli" and len(op.operands) == 2:
        a, b = (_divisibility(v, defs, args, ivs, memo) for v in op.operands)
        out = min(a * b, _ALIGNED)
    elif op.name in ("arith.addi", "arith.subi", "tt.addptr") and len(op.operands) == 2:
        out = min(_divisibility(v, defs, args, ivs, memo) for v in op.operands)
    elif op.name in ("arith.remsi", "arith.remui") and len(op.operands) == 2:
        # a - (a / b) b: a multiple of whatever divides both (AxisInfo's gcd); ``i % n_cols`` over a flat
        # index keeps an aligned row length's vectors (ld.global.v4.b32 in Triton's PTX)
        out = min(_divisibility(v, defs, args, ivs, memo) for v in op.operands)
    elif op.name in _SAME_DIVISIBILITY and op.operands:
        out = _divisibility(op.operands[0], defs, args, ivs, memo)
    else:
        out = 1
    memo[value] = out
    return out


def _loop_values(loop: Op) -> dict[str, Op | tuple[str, str]]:
    """An ``scf.for``'s induction variable (its body's first block argument) -> the loop, and each of its
    loop-carried block arguments -> (the value it enters with, the value its body yields for it)."""
    if not loop.block_args or not loop.block_args[0]:
        return {}
    out: dict[str, Op | tuple[str, str]] = {loop.block_args[0][0]: loop}
    body = loop.regions[0] if loop.regions else []
    yields = body[-1].operands if body and body[-1].name == "scf.yield" else []
    inits = loop.operands[3:]
    carried = loop.block_args[0][1:]
    if len(carried) == len(inits) == len(yields):
        out.update({arg: (init, y) for arg, init, y in zip(carried, inits, yields, strict=True)})
    return out


def _scoped_ops(
    ops: list[Op], defs: ChainMap[str, Op], ivs: ChainMap[str, Op | tuple[str, str]]
) -> Iterator[tuple[Op, ChainMap[str, Op], ChainMap[str, Op | tuple[str, str]]]]:
    """Each op of ``ops`` and of their regions, depth first in program order, with the definitions and the
    loop values (:func:`_loop_values`) visible where it stands: its own region's and its enclosing regions'.
    MLIR's printer gives values of sibling regions the same names (a reduction's combiner after a loop
    reuses the loop body's ``%4``), so one table for the whole function can send a use to another region's
    definition."""
    defs = defs.new_child({r: o for o in ops for r in o.results})
    for op in ops:
        yield op, defs, ivs
        if op.name == "scf.for":
            inner = ivs.new_child(_loop_values(op))
        elif op.name == "scf.while" and (counted := counted_while(op)) is not None:
            inner = ivs.new_child(_loop_values(counted[0]))  # a counted while: its for loop's values
        else:
            inner = ivs
        for region in op.regions:
            yield from _scoped_ops(region, defs, inner)


# Ops whose result varies along the axes any operand varies along (element-wise, address arithmetic).
_ELEMENTWISE_AXES = frozenset(
    {"tt.broadcast", "ttg.convert_layout", "tt.addptr", "arith.addi", "arith.subi", "arith.muli",
     "arith.divsi", "arith.divui", "arith.remsi", "arith.remui", "arith.andi", "arith.ori", "arith.xori",
     "arith.shli", "arith.shrsi", "arith.shrui", "arith.minsi", "arith.maxsi", "arith.minui", "arith.maxui",
     "arith.cmpi", "arith.select", "arith.extsi", "arith.extui", "arith.trunci", "arith.index_cast",
     "tt.load", "tt.int_to_ptr", "tt.ptr_to_int", "tt.bitcast"}
)  # fmt: skip


def _varying_axes(
    value: str, defs: Mapping[str, Op], memo: dict[str, frozenset[int] | None], loaded: bool = False
) -> frozenset[int] | None:
    """The axes along which integer tensor ``value`` can change: a range along its own, an ``expand_dims``
    moving its operand's axes past the one it inserts (``rows[:, None]`` along axis 0 only), a loaded tensor
    along its address's, element-wise ops the union of their operands', a splat or a scalar none; None where
    another op makes it unknown. With ``loaded``, only the variation loaded data brings (a gathered index's,
    not a range's): ``cnt + tl.load(v + offs)`` varies along its axis, ``dw + idx * H + cols`` (a loaded
    scalar) and ``idx[:, None] * H + cols[None, :]`` (a loaded column) not along the columns. ``memo`` is
    one mode's."""
    if value in memo:
        return memo[value]
    memo[value] = None
    op = defs.get(value)
    out: frozenset[int] | None
    if op is None or op.name in ("tt.splat", "arith.constant", "tt.get_program_id", "tt.get_num_programs"):
        out = frozenset()
    elif op.name == "tt.make_range":
        out = frozenset() if loaded else frozenset({0})
    elif op.name == "tt.load" and op.operands:
        out = _varying_axes(op.operands[0], defs, {}) if tensor_type(op.rtype) is not None else frozenset()
    elif op.name == "tt.expand_dims" and op.operands:
        inner, axis = _varying_axes(op.operands[0], defs, memo, loaded), op_axis(op.text)
        out = None if inner is None or axis is None else frozenset(a + (a >= axis) for a in inner)
    elif op.name in _ELEMENTWISE_AXES:
        parts = [_varying_axes(v, defs, memo, loaded) for v in op.operands]
        out = None if any(p is None for p in parts) else frozenset().union(*parts)
    else:
        out = None
    memo[value] = out
    return out


def _mask_divisibility(
    mask: str,
    defs: Mapping[str, Op],
    args: Mapping[str, int],
    ivs: Mapping[str, Op | tuple[str, str]],
    memo: dict[str, int],
    fast: int | None = None,
) -> int | None:
    """How many consecutive elements a mask is known to keep or drop together: every one where it varies along
    no axis (a scalar test's splat), else a comparison's operands' divisibility, the smaller over masks
    combined with ``and``; None for a mask of another form. With
    ``fast`` (the fastest axis of a tile of several), a comparison whose operands do not vary along that axis
    (``rows[:, None] < M``) keeps every vector whole, and one whose variation is not known counts as such."""
    op = defs.get(mask)
    if op is None:
        return None
    if _varying_axes(mask, defs, {}) == frozenset():
        # the same value for every element (a scalar's splat: ``mask=r < n_rows`` on a row's columns): the
        # mask's constancy is the whole tile, which narrows no vector (Triton's getMaskAlignment)
        return _ALIGNED
    if op.name == "arith.cmpi" and len(op.operands) == 2:
        if fast is not None:
            axes = _varying_axes(mask, defs, {})
            if axes is None or fast not in axes:
                return _ALIGNED
        return min(_divisibility(v, defs, args, ivs, memo) for v in op.operands)
    if op.name in ("arith.andi", *_SAME_DIVISIBILITY) and op.operands:
        masks = op.operands[: 2 if op.name == "arith.andi" else 1]
        parts = [_mask_divisibility(v, defs, args, ivs, memo, fast) for v in masks]
        return None if any(p is None for p in parts) else min(p for p in parts if p is not None)
    return None


def _lowered_vector(
    op: Op,
    rank: int,
    vector: int,
    unaligned: frozenset[str],
    defs: Mapping[str, Op],
    args: Mapping[str, int],
    ivs: Mapping[str, Op | tuple[str, str]],
    fast: int | None = None,
) -> int:
    """Elements a thread moves with one instruction of the 1-D masked global access ``op``, whose layout
    gives it ``vector`` contiguous elements: the LLVM lowering narrows the vector to the address's and the
    mask's alignment (:func:`_divisibility`), so a value of no known alignment (an integer argument Triton
    could not specialise as divisible by 16, a length of 5000 or a row stride of 3000; a length loaded from
    memory; a program id) makes it element-wide where it reaches the address or the mask without a factor
    that restores the alignment (``(pid * chunks + i) * BLOCK`` stays aligned whatever ``chunks`` is; checked
    against Triton's PTX, ``ld.global.v4.b32``). A mask of another form than comparisons falls back to
    whether it depends on an integer argument of no known alignment at all.

    A tile of several axes (``rank`` > 1, its layout's fastest axis ``fast``) narrows to its mask's alignment
    along that axis only (:func:`_mask_divisibility`: a causal convolution's shifted taps, ``src[None, :] >=
    0``, are element-wide; a row mask is not); its address's alignment is already in its layout, which
    Triton's coalescing pass sized by it."""
    if op.name not in ("tt.load", "tt.store") or (rank != 1 and fast is None):
        return vector
    ptr = op.operands[0] if op.operands else None
    mask = None
    if op.name == "tt.load" and len(op.operands) >= 2:
        mask = op.operands[1]
    elif op.name == "tt.store" and len(op.operands) >= 3:
        mask = op.operands[2]
    if mask is None:
        return vector
    memo: dict[str, int] = {}
    if rank != 1:
        aligned = _mask_divisibility(mask, defs, args, ivs, memo, fast)
        return vector if aligned is None else max(1, min(vector, aligned))
    aligned = _mask_divisibility(mask, defs, args, ivs, memo)
    if aligned is None:
        aligned = 1 if depends_on(mask, unaligned, defs, set()) else _ALIGNED
    if ptr is not None:
        aligned = min(aligned, _divisibility(ptr, defs, args, ivs, memo))
    return max(1, min(vector, aligned))


# The widest global access one instruction makes a thread (``ld.global.v4.b32``, ``LDG.E.128``).
MAX_ACCESS_BYTES = 16

# Tables kept per TTGIR text: a new shape of a compiled config re-walks its IR, not these.
LAYOUT_CACHE_SIZE = 256


@functools.lru_cache(maxsize=LAYOUT_CACHE_SIZE)
def _access_geometry(ttgir: str) -> Mapping[str, tuple[int, int]]:
    """Source location -> ``(width, lane stride)`` in bytes of the global loads / stores there: what one
    thread moves per instruction, and how far apart neighbouring lanes' accesses lie (the layout's vector,
    which a mask of unknown divisibility splits into element-wide accesses that far apart). Keyed as
    :func:`access_widths`; a line takes its narrowest op's pair. Cached, read-only."""
    vectors = _vectors(ttgir)
    unaligned = unaligned_int_args(ttgir)
    args = _arg_divisibility(ttgir)
    shared, fastest = _copy_axes(ttgir)
    out: dict[str, tuple[int, int]] = {}
    for op, defs, ivs in _scoped_ops(parse_module(ttgir).body, ChainMap(), ChainMap()):
        if op.name not in _MEMORY_OPS or op.loc is None:
            continue
        m = _TYPED.search(op.text + " " + op.rtype)
        if m is None or m.group(2) not in vectors:
            continue
        elem = _ELEMENT_BYTES.get(m.group(1))
        if elem is None:
            continue
        stride = width = vectors[m.group(2)] * elem
        shape = tensor_type(op.text + " " + op.rtype)
        if shape is not None:
            rank, fast = len(shape[0]), fastest.get(m.group(2))
            width = elem * _lowered_vector(op, rank, vectors[m.group(2)], unaligned, defs, args, ivs, fast)
        # a thread's vector beyond what one instruction moves goes as several (eight fp32 a thread: two
        # ld.global.v4.b32, whose lanes sit the whole vector apart)
        width = min(width, MAX_ACCESS_BYTES)
        if width > elem and _scattered(op, m.group(2), shared, fastest):
            stride = width = elem  # each element of a global vector goes to another shared row
        for key in op.keys:  # a line keeps its narrowest op, the widest lane stride among equally narrow ones
            out[key] = min((width, -stride), (out[key][0], -out[key][1])) if key in out else (width, -stride)
    return MappingProxyType({key: (w, -s) for key, (w, s) in out.items()})


@functools.lru_cache(maxsize=LAYOUT_CACHE_SIZE)
def access_widths(ttgir: str) -> Mapping[str, int]:
    """Source location -> the narrowest vector, in bytes, of the global loads / stores there: keyed both by
    "file:line:col" (one op) and by "file:line" (the narrowest of the line's ops). Read-only."""
    return MappingProxyType({key: w for key, (w, _) in _access_geometry(ttgir).items()})


@functools.lru_cache(maxsize=LAYOUT_CACHE_SIZE)
def lane_strides(ttgir: str) -> Mapping[str, int]:
    """Source location -> the bytes between neighbouring lanes' accesses of the global loads / stores there
    (keyed as :func:`access_widths`, the same op's or line's entry). Above the access's width where a mask
    split a vector of several elements a thread (:func:`_lowered_vector`): an ``n`` of no known divisibility
    leaves 16-byte-aligned pointers, so each thread's 16 bytes go as eight 2-byte ``STG.U16`` whose lanes sit
    16 bytes apart. Read-only."""
    return MappingProxyType({key: s for key, (_, s) in _access_geometry(ttgir).items()})


def _scattered(op: Op, layout: str, shared: Mapping[str, int], fastest: Mapping[str, int]) -> bool:
    """An asynchronous copy into a shared tile stored contiguous along another axis than ``layout`` (the
    global side's) reads contiguously (:func:`_shared_contiguous`)."""
    if op.name != "ttg.async_copy_global_to_local" or fastest.get(layout) is None:
        return False
    dst = _ASYNC_DST.search(op.rtype) or _ASYNC_DST.search(op.text)
    shape = tensor_type(op.text + " " + op.rtype)
    if dst is None or shape is None or len(shape[0]) < 2 or dst.group(1) not in shared:
        return False
    return fastest[layout] != len(shape[0]) - 1 - shared[dst.group(1)]


@functools.lru_cache(maxsize=LAYOUT_CACHE_SIZE)
def scattered_copies(ttgir: str) -> frozenset[str]:
    """Source locations ("file:line:col" and "file:line") of asynchronous copies whose shared tile is stored
    along another axis than the global one (see the module docstring): one element per ``cp.async``."""
    shared, fastest = _copy_axes(ttgir)
    found: set[str] = set()
    for op in walk_ops(parse_module(ttgir).body):
        m = _TYPED.search(op.text + " " + op.rtype)
        if op.loc is not None and m is not None and _scattered(op, m.group(2), shared, fastest):
            found |= op.keys
    return frozenset(found)


@functools.lru_cache(maxsize=LAYOUT_CACHE_SIZE)
def scattered_atomics(ttgir: str) -> frozenset[str]:
    """Source locations ("file:line:col" and "file:line") of tensor atomics (``tt.atomic_rmw``,
    ``tt.atomic_cas``) whose lanes' addresses vary with loaded data along their layout's fastest axis
    (:func:`_varying_axes` with ``loaded``): each lane's element is its own read-modify-write at the L2
    (:data:`tilesight.plan.SCATTER_ATOMIC`; a bincount's ``REDG.E.ADD`` of 1,024 lanes, one bin each)."""
    _, fastest = _copy_axes(ttgir)
    found: set[str] = set()
    for op, defs, _ in _scoped_ops(parse_module(ttgir).body, ChainMap(), ChainMap()):
        if op.name not in ("tt.atomic_rmw", "tt.atomic_cas") or op.loc is None:
            continue
        ptr = next((v for v in op.operands if v.startswith("%")), None)
        m = _TYPED.search(op.text + " " + op.rtype)
        fast = fastest.get(m.group(2)) if m else None
        if ptr is None or fast is None:
            continue
        axes = _varying_axes(ptr, defs, {}, loaded=True)
        if axes is not None and fast in axes:
            found |= op.keys
    return frozenset(found)


@functools.lru_cache(maxsize=LAYOUT_CACHE_SIZE)
def async_copies(ttgir: str) -> frozenset[str]:
    """Source locations ("file:line:col" and "file:line") of the pointer loads the pipeliner made asynchronous
    copies into shared memory (``ttg.async_copy_global_to_local``: ``cp.async``, not a TMA copy)."""
    found: set[str] = set()
    for op in walk_ops(parse_module(ttgir).body):
        if op.name == "ttg.async_copy_global_to_local" and op.loc is not None:
            found |= op.keys
    return frozenset(found)


@functools.lru_cache(maxsize=LAYOUT_CACHE_SIZE)
def fma_dots(ttgir: str) -> frozenset[str]:
    """Source locations of ``tt.dot`` ops Triton lowers to CUDA-core fused multiply-adds rather than tensor
    cores: their result keeps a blocked layout (an fp32 dot with ``input_precision="ieee"``), where a
    tensor-core dot's is an ``nvidia_mma`` layout (``ttng.warp_group_dot`` on Hopper)."""
    found: set[str] = set()
    for op in walk_ops(parse_module(ttgir).body):
        if (
            op.name == "tt.dot"
            and op.loc is not None
            and re.search(r"-> tensor<[^>]*#blocked", op.text + op.rtype)
        ):
            found |= op.keys
    return frozenset(found)


_MMA_LAYOUT = re.compile(r"^(#mma\d*) = #ttg\.nvidia_mma<\{([^}]*)\}>", re.M)
_DOT_RESULT = re.compile(r"-> tensor<((?:\d+x)+)\w+, (#mma\d*)>")
# rows one warp's share of an MMA instruction covers (wgmma: a warpgroup's 4 warps x 16 = 64; mma.sync: 16)
MMA_ROWS_PER_WARP = 16


def _mma_layouts(ttgir: str) -> dict[str, tuple[int, tuple[int, ...], tuple[int, ...]]]:
    """``#mma`` alias -> (version, warpsPerCTA, instrShape) of the module's ``nvidia_mma`` layouts that have
    both list fields."""
    layouts = {}
    for alias, body in _MMA_LAYOUT.findall(ttgir):
        f = _list_fields(body)
        version = re.search(r"versionMajor = (\d+)", body)
        if len(f.get("warpsPerCTA", ())) >= 2 and len(f.get("instrShape", ())) >= 2 and version:
            layouts[alias] = (int(version.group(1)), f["warpsPerCTA"], f["instrShape"])
    return layouts


def _wraps(warps: tuple[int, ...], instr: tuple[int, ...], dims: tuple[int, ...]) -> int:
    """How many times an MMA layout of ``warps`` (warpsPerCTA) and ``instr`` (instrShape) covers a tile of
    ``dims``: its warps span ``warps[-2] x 16`` rows and ``warps[-1] x instr[1]`` columns."""
    (wm, wn), (rows, cols) = warps[-2:], dims[-2:]
    return max(1, wm * MMA_ROWS_PER_WARP // rows) * max(1, wn * instr[1] // cols)


def _mma_dots(ttgir: str):
    """``(op, result dims, layout version, warpsPerCTA, instrShape)`` of every ``tt.dot`` /
    ``ttng.warp_group_dot`` whose result has an ``nvidia_mma`` layout with both list fields."""
    layouts = _mma_layouts(ttgir)
    for op in walk_ops(parse_module(ttgir).body):
        if op.name not in ("ttng.warp_group_dot", "tt.dot"):
            continue
        m = _DOT_RESULT.search(op.text + " " + op.rtype)
        if m is None or m.group(2) not in layouts:
            continue
        dims = tuple(int(d) for d in m.group(1).split("x") if d)
        if len(dims) >= 2:
            yield (op, dims, *layouts[m.group(2)])


def _by_location(pairs, pick) -> Mapping[str, int]:
    """Location ("file:line:col" and "file:line") -> value, ``pick`` combining two values at one key."""
    out: dict[str, int] = {}
    for op, value in pairs:
        for key in op.keys:
            out[key] = pick(value, out[key]) if key in out else value
    return MappingProxyType(out)


@functools.lru_cache(maxsize=LAYOUT_CACHE_SIZE)
def dot_replication(ttgir: str) -> Mapping[str, int]:
    """Source location -> how many times the warps compute each element of the dot's result there: an MMA
    layout whose warps cover more rows (``warpsPerCTA[0] x 16``) or columns (``warpsPerCTA[1] x
    instrShape[1]``) than the result has wraps around, and the extra warps issue the same MMA instructions on
    the same data (a 64-row attention score tile on 8 warps: two warpgroups, both computing all 64 rows).
    Keyed as :func:`_copies_by_location` keys it: a dot in a layout that does not wrap keeps 1 beside a
    wrapped one on its line (``tl.dot(tl.dot(q, k).to(tl.float16), v, acc)``). Cached, read-only."""
    dots = [(op, _wraps(warps, instr, dims)) for op, dims, _, warps, instr in _mma_dots(ttgir)]
    return _copies_by_location((op, n) for op, n in dots if op.loc is not None)


def _copies_by_location(pairs) -> Mapping[str, int]:
    """Location -> copies from ``(op, copies)`` pairs: copies above 1 by "file:line:col" and by "file:line"
    (the most of the line's wrapped ops, for an op looked up by its line alone), and 1 by an op's own
    "file:line:col" where no wrapped op stands there, so that an op sharing a line with a wrapped one keeps
    its own count (attention's ``acc = acc * rescale[:, None] + tl.dot(p.to(v.dtype), v)`` on 64 rows and 8
    warps: ``p`` lies in the score tile's wrapped layout, ``acc`` in the ``P V`` dot's unwrapped one). A line
    with no wrapped op has no line entry."""
    pairs = list(pairs)
    table = dict(_by_location([(op, n) for op, n in pairs if n > 1], max))
    for op, n in pairs:
        if n <= 1 and op.where is not None:
            table.setdefault(op.where, 1)
    return MappingProxyType(table)


# a tensor of rank 2 or more in an MMA layout: the result type of an element-wise op, or a reduction's operand
_MMA_TENSOR = re.compile(r"tensor<((?:\d+x){2,})\w+, (#mma\d*)>")
# a tile of two or more dims in any layout (an op on one is computed once unless its MMA layout wraps)
_TILE_TENSOR = re.compile(r"tensor<(?:\d+x){2,}\w+, #")


@functools.lru_cache(maxsize=LAYOUT_CACHE_SIZE)
def element_replication(ttgir: str) -> Mapping[str, int]:
    """Source location -> how many times the warps compute each element of the tile an op there works on,
    where that tile lies in an MMA layout that wraps around it (as :func:`dot_replication` says of a dot's
    result: a 64-row score tile on 8 warps is held, and its softmax computed, by both warpgroups). The ops
    other than dots whose result (a reduction: whose operand) is such a tensor, keyed as
    :func:`_copies_by_location` keys them; an op on a tile in a layout that does not wrap (an MMA layout that
    covers it once, a blocked one) counts once. Cached, read-only."""
    layouts = _mma_layouts(ttgir)
    pairs = []
    for op in walk_ops(parse_module(ttgir).body):
        if op.name in ("ttng.warp_group_dot", "tt.dot") or op.name.startswith("ttg.") or op.loc is None:
            continue
        text = op.text if op.name == "tt.reduce" else op.rtype
        m = _MMA_TENSOR.search(text or "")
        if m is None or m.group(2) not in layouts:
            if _TILE_TENSOR.search(text or ""):
                pairs.append((op, 1))  # a tile in a blocked (or other) layout: each element computed once
            continue
        dims = tuple(int(d) for d in m.group(1).split("x") if d)
        if min(dims[-2:]) <= 1:
            continue  # a row or column vector broadcast along the other dim: copies of one value, not work
        _, warps, instr = layouts[m.group(2)]
        pairs.append((op, _wraps(warps, instr, dims)))
    return _copies_by_location(pairs)


@functools.lru_cache(maxsize=LAYOUT_CACHE_SIZE)
def dot_instr_n(ttgir: str) -> Mapping[str, int]:
    """Source location -> the N of the warpgroup MMA instructions (``instrShape[1]`` of an ``nvidia_mma``
    version 3 layout) of the ``wgmma`` dots there: a 64x32 score tile runs on ``m64n32`` (or, on 8 warps,
    ``m64n16``) instructions. Keyed like :func:`access_widths`; the narrowest of a location. Cached."""
    pairs = [(op, instr[1]) for op, _, version, _, instr in _mma_dots(ttgir) if version == 3 and op.loc]
    return _by_location(pairs, min)


@functools.lru_cache(maxsize=LAYOUT_CACHE_SIZE)
def dot_a_registers(ttgir: str) -> Mapping[str, int]:
    """Source location -> 1 where the ``wgmma`` dots there take their A operand from the warps' registers
    (a ``tensor<..., #ttg.dot_op<...>>`` operand: attention's P, or an A computed in registers before the
    loop), 0 where they read it from shared memory (a ``!ttg.memdesc`` operand); the smaller of a location's
    dots. Keyed like :func:`dot_instr_n`. Cached, read-only."""
    pairs = [
        (op, 0 if op.text.rsplit(" : ", 1)[-1].lstrip().startswith("!ttg.memdesc") else 1)
        for op in walk_ops(parse_module(ttgir).body)
        if op.name == "ttng.warp_group_dot" and op.loc is not None and " : " in op.text
    ]
    return _by_location(pairs, min)


WARPS_PER_WARPGROUP = 4


@functools.lru_cache(maxsize=LAYOUT_CACHE_SIZE)
def warpgroup_shares(ttgir: str) -> int:
    """How many warpgroups each run a share of every warpgroup-MMA (``wgmma``) dot, and of the element-wise
    work on its result: an 8-warp 128-row attention block is two groups of 64 rows; 8 warps on 64 rows split
    the value dot's columns and hold a copy each of the score tile (its layout wraps the rows: both compute
    it, side by side, which :func:`dot_replication` and :func:`element_replication` count). The fewest over
    the module's ``wgmma`` dots; 1 without such a dot. (Until stop 31 a dot that split its columns or wrapped
    its rows counted as one group, which ran both warpgroups' copies one after the other: the 64-row 8-warp
    attention tiles were 10-18% slow once ptxas gave them their one block per SM.)"""
    groups = [
        max(1, warps[-2] * warps[-1] // WARPS_PER_WARPGROUP)
        for op, dims, version, warps, _ in _mma_dots(ttgir)
        if version == 3 and op.name == "ttng.warp_group_dot"
    ]
    return min(groups, default=1)


@functools.lru_cache(maxsize=LAYOUT_CACHE_SIZE)
def access_rows(ttgir: str) -> Mapping[str, int]:
    """Source location -> the row addresses one thread holds for the global loads there (the most of the
    line's ops), keyed as :func:`access_widths`: over every axis but the layout's fastest, the tile's extent
    over the threads and warps laid along it (at least 1). Cached, read-only."""
    layouts = {
        alias: (f["threadsPerWarp"], f["warpsPerCTA"], f["order"][0])
        for alias, f in _blocked(ttgir).items()
        if {"threadsPerWarp", "warpsPerCTA", "order"} <= f.keys()
    }
    rows: dict[str, int] = {}
    for op in walk_ops(parse_module(ttgir).body):
        if op.name != "tt.load" or op.loc is None:
            continue
        m = _TYPED.search(op.text + " " + op.rtype)
        shape = tensor_type(op.text + " " + op.rtype)
        if m is None or shape is None or m.group(2) not in layouts:
            continue
        tpw, wpc, fastest = layouts[m.group(2)]
        dims = shape[0]
        if len(dims) != len(tpw):
            continue
        n = 1
        for d, extent in enumerate(dims):
            if d != fastest:
                n *= max(1, extent // (tpw[d] * wpc[d]))
        for key in op.keys:
            rows[key] = max(n, rows.get(key, n))
    return MappingProxyType(rows)


_LAYOUT_WARPS = re.compile(
    r"^(#[\w]+) = #ttg\.(?:blocked|nvidia_mma)<\{[^}]*?warpsPerCTA = \[([\d, ]+)\]", re.M
)
_REDUCE_OPERAND = re.compile(r"\(tensor<[^,>]*, (#[\w]+)>")


@functools.lru_cache(maxsize=LAYOUT_CACHE_SIZE)
def reduce_warps(ttgir: str) -> Mapping[str, int]:
    """Source location -> the most warps any reduction there spans along its reduced axis (keyed by
    "file:line:col" and by "file:line", as :func:`access_widths`). Cached by text, read-only."""
    warps = {alias: [int(x) for x in w.split(",")] for alias, w in _LAYOUT_WARPS.findall(ttgir)}
    out: dict[str, int] = {}
    for op in walk_ops(parse_module(ttgir).body):
        if op.name != "tt.reduce" or op.loc is None:
            continue
        layout, k = _REDUCE_OPERAND.search(op.text), op_axis(op.text)
        if layout is None or k is None or layout.group(1) not in warps:
            continue
        per_axis = warps[layout.group(1)]
        if k < len(per_axis):
            for key in op.keys:
                out[key] = max(per_axis[k], out.get(key, 1))
    return MappingProxyType(out)


@functools.lru_cache(maxsize=LAYOUT_CACHE_SIZE)
def scan_carries(ttgir: str) -> Mapping[str, tuple[int, int, int]]:
    """Source location -> ``(steps, lines, operands)`` of the ``tt.scan`` there whose carries Triton chains
    through shared memory (:class:`~tilesight.plan.ScanCarry`): the scanned axis spans several warps
    (``warpsPerCTA``) while the lanes of a warp hold different scan lines (``threadsPerWarp`` along the axis
    below the warp size: a ``[L, D]`` tile scanned along L with the lanes across D). Each thread then reads
    the axis's chunk totals, ``steps = L / (sizePerThread x threadsPerWarp)`` of them, one after another, for
    each of the ``lines`` scan lines it holds (its elements over those along the axis) and each operand.
    Scans with a whole warp along the axis (a row's ``tl.cumsum``) read their totals several to a load and
    are left out, as are layouts other than blocked. Keyed as :func:`reduce_warps`. Cached."""
    blocked = _blocked(ttgir)
    pairs = []
    for op in walk_ops(parse_module(ttgir).body):
        if op.name != "tt.scan" or op.loc is None:
            continue
        axis, layout, typed = op_axis(op.text), _REDUCE_OPERAND.search(op.text), tensor_type(op.rtype or "")
        if axis is None or layout is None or typed is None:
            continue
        fields, shape = blocked.get(layout.group(1)), typed[0]
        if fields is None or not {"sizePerThread", "threadsPerWarp", "warpsPerCTA"} <= fields.keys():
            continue
        spt, tpw, wpc = (fields[f] for f in ("sizePerThread", "threadsPerWarp", "warpsPerCTA"))
        if axis >= len(shape) or not len(shape) == len(spt) == len(tpw) == len(wpc):
            continue
        steps = shape[axis] // (spt[axis] * tpw[axis])
        lines = math.prod(
            max(1, n // (t * w)) for d, (n, t, w) in enumerate(zip(shape, tpw, wpc, strict=True)) if d != axis
        )
        if wpc[axis] > 1 and tpw[axis] < math.prod(tpw) and steps > 1:
            pairs.append((op, (steps, lines, len(op.operands))))
    return _by_location(pairs, max)


@functools.lru_cache(maxsize=LAYOUT_CACHE_SIZE)
def pipelined(ttgir: str) -> bool:
    """Whether any load became an asynchronous copy (the pipeliner's work)."""
    return any(name in ttgir for name in _ASYNC_OPS)


# Ops with which a pipelined loop's warps wait for the asynchronous copies of the iteration they are in.
_COPY_WAITS = frozenset({"ttg.async_wait", "ttng.wait_barrier"})


@functools.lru_cache(maxsize=LAYOUT_CACHE_SIZE)
def refills_after_compute(ttgir: str) -> bool:
    """Whether the pipeliner issues a loop's copies for later iterations after the iteration's compute: in
    a loop body that holds asynchronous copies, the wait for the iteration's own tiles comes before the first
    copy, so the dots and CUDA-core work between them run before the refill
    (:attr:`~tilesight.plan.Loop.refill_after_compute`). Triton's software pipeliner lays every loop out so
    (the copies ``num_stages - 1`` iterations ahead at the end of the body)."""
    for op in walk_ops(parse_module(ttgir).body):
        if op.name != "scf.for" or not op.regions:
            continue
        names = [o.name for o in op.regions[0]]
        copies = [i for i, n in enumerate(names) if any(a in n for a in _ASYNC_OPS)]
        waits = [i for i, n in enumerate(names) if n in _COPY_WAITS]
        if copies and waits and waits[0] < copies[0]:
            return True
    return False


@functools.lru_cache(maxsize=LAYOUT_CACHE_SIZE)
def sync_loads_in_pipelined_loops(ttgir: str) -> frozenset[str]:
    """Source locations of the global loads the pipeliner left synchronous (``tt.load`` on a tensor of
    pointers) in a loop whose other loads it turned into asynchronous copies: a GEMM whose B rows have a
    stride Triton cannot prove 16-byte aligned (N = 5000) keeps B's element-wide loads in the loop body, where
    each iteration's warps wait for them before the dot, while A's copies run ``num_stages - 1`` iterations
    ahead. Keyed by "file:line:col" where the op has one (an async copy may share the line)."""
    found: set[str] = set()
    for op in walk_ops(parse_module(ttgir).body):
        if op.name != "scf.for" or not op.regions:
            continue
        body = op.regions[0]
        if not any(any(a in o.name for a in _ASYNC_OPS) for o in body):
            continue
        for o in body:
            if o.name == "tt.load" and "tensor<" in o.rtype and (o.where or o.line):
                found.add(o.where or o.line)
    return frozenset(found)


@functools.lru_cache(maxsize=LAYOUT_CACHE_SIZE)
def warp_local_gathers(ttgir: str) -> Mapping[str, int]:
    """Source location -> source registers per thread along the axis of a ``tt.gather`` that Triton's
    layout pass made warp-local (``efficient_layout``: its blocked layout's ``sizePerThread`` on the axis);
    gathers lowered through shared memory are absent. Keyed as :func:`reduce_warps`."""
    blocked = _blocked(ttgir)
    pairs = []
    for op in walk_ops(parse_module(ttgir).body):
        if op.name != "tt.gather" or "efficient_layout" not in op.text:
            continue
        layout, k = _REDUCE_OPERAND.search(op.text), op_axis(op.text)
        fields = blocked.get(layout.group(1)) if layout else None
        if fields is None or k is None or "sizePerThread" not in fields:
            continue
        if k < len(fields["sizePerThread"]):
            pairs.append((op, fields["sizePerThread"][k]))
    return _by_location(pairs, max)


_MMA_OPS = ("ttng.warp_group_dot", "tt.dot")


# Views of a shared-memory buffer: a slice of its K rows (Triton 3.9 splits a dot whose A is in registers
# into K chunks, each warpgroup MMA reading a ``memdesc_subslice`` of B) or one stage of a multi-buffered one
_MEMDESC_VIEWS = ("ttg.memdesc_subslice", "ttg.memdesc_subview", "ttg.memdesc_index")
_MEMDESC_SHAPE = re.compile(r"memdesc<((?:\d+x)+)")


def _k_share(op: Op, defs: Mapping[str, Op]) -> float:
    """The share of its ``tl.dot``'s K one matrix multiply op runs: 1, or for a K chunk of a split dot (its
    B a view of fewer K rows than the buffer it slices: ``memdesc<64x16xf16> -> memdesc<32x16xf16>``) the
    chunk's rows over the buffer's. A stage view (``memdesc<3x64x16xf16> -> memdesc<64x16xf16>``) keeps
    its K rows: 1."""
    view = defs.get(op.operands[1]) if len(op.operands) > 1 else None
    if view is None or view.name not in _MEMDESC_VIEWS:
        return 1.0
    shapes = [[int(d) for d in m.rstrip("x").split("x")] for m in _MEMDESC_SHAPE.findall(view.text)]
    if len(shapes) < 2 or len(shapes[0]) < 2 or len(shapes[-1]) < 2 or shapes[0][-2] <= 0:
        return 1.0
    return min(1.0, shapes[-1][-2] / shapes[0][-2])


def _region_mma_counts(ops: list[Op], out: dict[str, float], defs: Mapping[str, Op]) -> None:
    counts: dict[str, float] = {}
    for op in ops:
        key = op.where or op.line  # by column: two dots of one line are two dots, not two passes of one
        if op.name in _MMA_OPS and key is not None:
            counts[key] = counts.get(key, 0.0) + _k_share(op, defs)
        for region in op.regions:
            _region_mma_counts(region, out, defs)
    for key, n in counts.items():
        out[key] = max(n, out.get(key, 0.0))


@functools.lru_cache(maxsize=LAYOUT_CACHE_SIZE)
def mma_passes(ttgir: str, ttir: str | None = None) -> Mapping[str, int]:
    """Source location -> the matrix multiplies the TTGIR runs for the one ``tl.dot`` there, where that is
    more than one: ``input_precision="tf32x3"`` splits each fp32 operand into a TF32 high part and the
    remainder and runs three TF32 MMAs (high x high, high x low, low x high: three ``ttng.warp_group_dot``
    at the dot's location inside the loop). Counted within one block of ops (the most of any), so the
    iterations a pipelined loop peels into its prologue or epilogue do not add passes. The K chunks of a
    split dot (Triton 3.9 runs a dot whose A is in registers as warpgroup MMAs over K slices of B,
    :func:`_k_share`) add up to one pass. With the ``ttir`` the TTGIR was lowered from, a location's count is
    divided by its ``tt.dot`` ops there (counted the same way): dots a ``tl.static_range`` unrolls at one
    location are as many dots, each one pass, not one dot of as many passes. Cached, read-only."""
    body = parse_module(ttgir).body
    defs = {name: op for op in walk_ops(body) for name in op.results}
    out: dict[str, float] = {}
    _region_mma_counts(body, out, defs)
    if ttir is not None:
        source: dict[str, float] = {}
        _region_mma_counts(parse_module(ttir).body, source, {})
        out = {key: n / max(source.get(key, 1.0), 1.0) for key, n in out.items()}
    return MappingProxyType({key: round(n) for key, n in out.items() if round(n) > 1})
