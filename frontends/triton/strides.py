"""Which tensor dimension each axis of a pointer tile walks: per-axis address strides.

Integer index tensors and pointer tensors carry, per tile axis, the element stride their value advances by
along that axis (``tt.make_range`` is 1 along its axis, a splat is 0, ``x * splat(s)`` multiplies by ``s``,
sums add). An index tile read from memory gathers a row per lane (:class:`Gathered`); an axis split by a
divisor into ``(d // x) * outer + (d % x) * inner`` walks two dimensions (:class:`Split`). ``None`` means the
address is not affine in the axes (a folding modulo, two gathers added): callers then fall back to mapping
the tile's axes onto the tensor's innermost dimensions. A load's tile extents go to the tensor
dimension whose stride equals the axis stride, so a transposed load (``K^T`` in attention) lands on the
right dimensions.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from tilesight.tensorspec import TensorSpec

from .ir import op_axis


@dataclass(frozen=True)
class Gathered:
    """An axis along which an index tensor holds data read from memory (a paged cache's slot numbers, a MoE
    block's token ids), times ``scale``: the element distance one unit of the index stands for. An address
    ``kv_loc[None, :] * stride_token + offs_d[:, None]`` walks the tensor's token dimension (stride
    ``stride_token``) along its second axis, one gathered row per lane, and its feature dimension along the
    first."""

    scale: int = 1


@dataclass(frozen=True)
class Quotient:
    """``index // (period * s)`` along an axis whose index walks by ``s``, times ``scale``: the first half of
    a split axis (:class:`Split`), no walk of its own."""

    period: int
    scale: int = 1


@dataclass(frozen=True)
class Remainder:
    """``index % (period * s)`` along an axis whose index walks by ``s``, as the element stride ``scale``
    walks for ``period`` lanes and then wraps: the second half of a split axis (:class:`Split`); alone (a
    row folded by ``arange(BLOCK) % D``) no walk of its own."""

    period: int
    scale: int = 1


@dataclass(frozen=True)
class Split:
    """An axis split in two by a divisor: ``(d // x) * outer + (d % x) * inner``. Its lanes walk the tensor
    dimension of stride ``inner`` for ``period`` (= x) lanes, then the one of stride ``outer`` a step per
    ``period`` lanes. vLLM's paged key cache ``[blocks, heads, D / x, page, x]`` is read with the head
    dimension split this way (x = 16 bytes of elements): a 128-wide ``offs_d`` walks 8 of ``x`` and 16 of
    ``D / x``."""

    period: int
    inner: int
    outer: int


Axis = int | Gathered | Quotient | Remainder | Split
Axes = tuple[Axis, ...] | None
_PARTS = (Quotient, Remainder, Split)

_ORDER = re.compile(r"order = array<i32: ([\d, ]+)>")
# Casts and layout moves that keep per-axis strides unchanged.
_SAME = frozenset(
    {"arith.extsi", "arith.extui", "arith.trunci", "arith.index_cast", "tt.broadcast", "ttg.convert_layout"}
)


def propagate(
    name: str, text: str, extents: tuple[int, ...], args: list[Axes], scales: list[int | None]
) -> Axes:
    """Per-axis strides of the result of op ``name`` (a tensor of ``extents``) from its operands'
    (``scales``: the operand's value when it is a splat of a known integer, else None). Memoised: a walk
    asks the same few questions for every op of a kernel, and again for every new shape of it."""
    return _propagate(name, text, tuple(extents), tuple(args), tuple(scales))


@functools.lru_cache(maxsize=4096)
def _propagate(
    name: str, text: str, extents: tuple[int, ...], args: tuple[Axes, ...], scales: tuple[int | None, ...]
) -> Axes:
    rank = len(extents)
    if name == "tt.make_range":
        return (1,)
    if name == "tt.splat":
        return (0,) * rank
    if not args or any(a is None for a in args):
        return None
    if name in _SAME:
        return args[0] if len(args[0]) == rank else None  # type: ignore[arg-type]
    if name == "tt.expand_dims":
        k = op_axis(text)
        if k is None:
            return None
        a = list(args[0])  # type: ignore[arg-type]
        a.insert(k, 0)
        return tuple(a)
    if name == "tt.trans":
        m = _ORDER.search(text)
        if not m:
            return None
        order = [int(x) for x in m.group(1).split(",")]
        return tuple(args[0][i] for i in order)  # type: ignore[index]
    if name in ("arith.addi", "tt.addptr", "arith.subi") and len(args) == 2:
        sign = -1 if name == "arith.subi" else 1
        out = []
        for x, y in zip(args[0], args[1], strict=True):  # type: ignore[arg-type]
            if isinstance(x, _PARTS) or isinstance(y, _PARTS):
                both = _add_parts(x, y, sign)
                if both is None:
                    return None
                out.append(both)
            elif isinstance(x, Gathered) or isinstance(y, Gathered):
                # a gathered axis plus what does not move along it stays gathered. Plus an offset that walks
                # along it (a paged cache's ``page[:, None] * page_stride + (tok % PAGE)[:, None] *
                # tok_stride``, the tile's tokens within one page: the modulus kept the walk only where the
                # tile's span is under the page) the lanes walk the offset's dimension, one page for all
                if isinstance(x, Gathered) and isinstance(y, Gathered):
                    return None
                if isinstance(x, Gathered):
                    out.append(x if y == 0 else sign * y)
                elif sign == 1:
                    out.append(y if x == 0 else x)
                else:
                    return None
            else:
                out.append(x + sign * y)
        return tuple(out)
    if name != "arith.muli" and any(isinstance(x, (Gathered, *_PARTS)) for a in args for x in a):  # type: ignore[union-attr]
        return None
    if name in ("arith.remsi", "arith.remui") and len(args) == 2:
        # ``(pid_n * BN + arange(BN)) % N`` (vLLM's MoE columns, the Triton tutorial's rows): within a tile
        # the index spans fewer values than the modulus, so it wraps at most once and walks the tile as the
        # dividend does; a modulus inside the span (``arange(BLOCK) % D`` folding a row) is no affine walk
        # of its own, but may be the inner half of a split axis (:class:`Split`)
        m = scales[1]
        if m is not None and len(extents) == len(args[0]):  # type: ignore[arg-type]
            span = sum(abs(s) * (e - 1) for s, e in zip(args[0], extents, strict=True))  # type: ignore[arg-type]
            if span < abs(m):
                return args[0]
        return _divided(args[0], m, Remainder)
    if name in ("arith.divsi", "arith.divui") and len(args) == 2:
        return _divided(args[0], scales[1], Quotient)
    if name == "arith.muli" and len(args) == 2:
        for i in (0, 1):
            s = scales[1 - i]
            if s is not None:
                return tuple(_scaled(x, s) for x in args[i])  # type: ignore[union-attr]
    return None


def _scaled(x: Axis, s: int) -> Axis:
    if isinstance(x, Gathered):
        return Gathered(x.scale * s)
    if isinstance(x, Quotient | Remainder):
        return type(x)(x.period, x.scale * s)
    if isinstance(x, Split):
        return Split(x.period, x.inner * s, x.outer * s)
    return x * s


def _divided(axes: Axes, m: int | None, part: type[Quotient] | type[Remainder]) -> Axes:
    """``index // m`` or ``index % m`` of an index that walks one axis by ``s`` (a positive stride dividing
    ``m``; every other axis constant): that axis becomes the split's half ``part`` with period ``m / s`` (the
    quotient counts periods, the remainder walks ``s`` within one). None for anything else."""
    if axes is None or m is None or m <= 0:
        return None
    moving = [i for i, x in enumerate(axes) if x != 0]
    if len(moving) != 1:
        return None
    s = axes[moving[0]]
    if not isinstance(s, int) or s <= 0 or m % s:
        return None
    half = part(m // s, 1) if part is Quotient else part(m // s, s)
    return tuple(half if i == moving[0] else 0 for i in range(len(axes)))


def _add_parts(x: Axis, y: Axis, sign: int) -> Axis | None:
    """One axis of a sum where either side is part of a split axis: a part plus nothing moving along the axis
    stays; a quotient plus a remainder of one period is the split (``(d // x) * outer + (d % x) * inner``),
    as is a gathered page plus a remainder; anything else is no walk (None)."""
    if y == 0:
        return x
    if x == 0:
        return y if sign == 1 else None
    if sign != 1:
        return None
    if isinstance(x, Remainder) and isinstance(y, Quotient | Gathered):
        x, y = y, x
    if isinstance(x, Quotient) and isinstance(y, Remainder) and x.period == y.period:
        return Split(x.period, inner=y.scale, outer=x.scale)
    if isinstance(x, Gathered) and isinstance(y, Remainder):
        # a page gathered per lane plus the token's place in it, wrapping: vLLM's unified attention reads a
        # 32-token tile of 16-token pages at ``table[tok // 16] * page_stride + (tok % 16) * tok_stride``,
        # 16 tokens of a page, then the next page
        return Split(y.period, inner=y.scale, outer=x.scale)
    return None


def tile_extents(
    tile: tuple[int, ...], axes: Axes, spec: TensorSpec, masked: bool = False
) -> tuple[int, ...] | None:
    """The tile's extent along each tensor dimension (not clamped to the tensor's extents), or None when
    some axis's stride is not a stride of the tensor. An axis longer than its dimension runs on into the
    dimensions packed outside it (:func:`spill_outward`; ``masked``: the access has a mask, which may stop
    it): a flat ``arange(0, H * D)`` over a token's ``(H, D)`` heads of a ``(T, H, D)`` cache covers all
    ``H`` heads, not ``D`` elements of one."""
    if axes is None or len(axes) != len(tile):
        return None
    shape = spec.shape or (1,)
    strides = spec.strides or (1,)
    out = [1] * len(shape)
    used: set[int] = set()
    placed = []
    walks: list[tuple[int, int]] = []  # (element stride, extent) of every moving axis
    for extent, axis in zip(tile, axes, strict=True):
        if extent <= 1 or axis == 0:
            continue
        if isinstance(axis, Quotient | Remainder):
            return None  # half a split: the lanes fold onto fewer addresses than the tile holds
        if isinstance(axis, Split):
            # the split's first `period` lanes walk its inner dimension, each further period one step of the
            # outer one
            walks.append((axis.inner, min(extent, axis.period)))
            walks.append((axis.outer, -(-extent // axis.period)))
        else:
            # a gathered axis reads one row of the dimension its index is scaled by per lane
            walks.append((axis.scale if isinstance(axis, Gathered) else axis, extent))
    for stride, extent in walks:
        if extent <= 1:
            continue
        dims = [d for d in range(len(shape)) if strides[d] == abs(stride) and shape[d] > 1 and d not in used]
        if not dims:
            return None
        used.add(dims[-1])
        placed.append((dims[-1], extent))
    for d, extent in placed:  # every axis placed first: an axis runs on only into dims no other axis walks
        spill_outward(out, d, extent, shape, strides, used, masked)
    return tuple(out)


def spill_outward(
    out: list[int],
    d: int,
    extent: int,
    shape: tuple[int, ...],
    strides: tuple[int, ...],
    used: set[int],
    masked: bool = False,
) -> None:
    """Set ``out[d]`` to ``extent``; where that is more than dimension ``d`` holds and the next dimension
    out is packed against it (its stride ``shape[d] * strides[d]``, not yet taken by another axis), ``d``
    gets its whole extent and the rest (in whole rows of ``d``) goes on outward the same way. The last
    dimension reached keeps what is left, past the tensor's extent where the tile runs beyond it (the
    caller clamps, and counts the access as masked).

    A ``masked`` access's mask may stop the axis at its dimension's end (a 2,048-wide block of a 2,000-wide
    row, ``cols < n_cols``): it runs on only in whole rows of the dimension (2,048 over 128-element heads is
    16 of them; over a 2,000-element row it is a masked part of one) and never into the tensor's outermost
    dimension (the rows a program or loop picks, not a flat index)."""
    outermost = next((o for o in range(len(shape)) if shape[o] > 1), 0)
    while extent > shape[d]:
        if masked and extent % shape[d]:
            break
        outer = [
            o
            for o in range(len(shape))
            if o not in used
            and shape[o] > 1
            and strides[o] == shape[d] * strides[d]
            and not (masked and o == outermost)
        ]
        if not outer:
            break
        out[d] = shape[d]
        extent = -(-extent // shape[d])
        d = outer[-1]
        used.add(d)
    out[d] = extent


def memory_run_bytes(tile: tuple[int, ...], spec: TensorSpec, elem_bytes: int) -> int | None:
    """Contiguous bytes of one tile access of a tensor whose unit-stride dimension is not its last (a
    column-major B, ``w.T`` of a ``torch.nn.Linear`` weight): the tile's extent along the unit-stride
    dimension, grown by the next dimension in stride order as long as the tile spans the whole inner one
    and the two are packed. None for a tensor laid out in row-major order, whose runs the engine works out
    from the tile itself (``tilesight.model.resources.contiguous_bytes``), or one with no unit-stride
    dimension."""
    shape = spec.shape or (1,)
    strides = spec.strides or (1,)
    live = [d for d in range(len(shape)) if shape[d] > 1]
    unit = [d for d in live if strides[d] == 1]
    if not unit or unit[-1] == live[-1]:
        return None
    order = sorted(live, key=lambda d: strides[d])
    run, span = elem_bytes, 1
    for d in order:
        if strides[d] != span:
            break
        run *= tile[d]
        if tile[d] < shape[d]:
            break
        span *= shape[d]
    return run
