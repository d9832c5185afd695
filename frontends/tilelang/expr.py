"""Evaluate TIR index expressions on CPU, vectorised over the block grid with numpy.

Block indices are bound to broadcastable integer arrays (``bx`` varies along axis 0, ``by`` along axis 1,
...), so one evaluation gives an expression's value for every block (a loop's trip count per block).
Any node outside the integer arithmetic TileLang index math uses raises UnsupportedOpError naming it.

An element of an integer tensor the caller gave the contents of (a variable-length batch's offsets
``cu_seqlens[bz]``, a page table; :func:`tensor_values`) evaluates to that element, per block; an element of
any other tensor is data the kernel reads at run time, and is refused naming the tensor.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np

from tilesight.errors import FrontendError, UnsupportedOpError

from ._tvm import tirx

_BINARY = {
    tirx.Add: np.add,
    tirx.Sub: np.subtract,
    tirx.Mul: np.multiply,
    tirx.FloorDiv: np.floor_divide,
    tirx.FloorMod: np.mod,
    tirx.Min: np.minimum,
    tirx.Max: np.maximum,
    tirx.LT: np.less,
    tirx.LE: np.less_equal,
    tirx.GT: np.greater,
    tirx.GE: np.greater_equal,
    tirx.EQ: np.equal,
    tirx.NE: np.not_equal,
    tirx.And: np.logical_and,
    tirx.Or: np.logical_or,
}


# Integer intrinsics index math uses (``T.shift_right``, ``x & mask`` ...): the numpy function, its arity.
_CALLS = {
    "shift_left": (np.left_shift, 2),
    "shift_right": (np.right_shift, 2),
    "bitwise_and": (np.bitwise_and, 2),
    "bitwise_or": (np.bitwise_or, 2),
    "bitwise_xor": (np.bitwise_xor, 2),
    "bitwise_not": (np.invert, 1),
}


# Contents of the integer tensors the caller gave, by buffer name, for the program being read (set by
# :func:`tensor_values` around the walk; a context variable, so concurrent estimates do not share them).
_VALUES: contextvars.ContextVar[Mapping[str, np.ndarray] | None] = contextvars.ContextVar(
    "tensor_values", default=None
)


@contextlib.contextmanager
def tensor_values(values: Mapping[str, np.ndarray]) -> Iterator[None]:
    """Within the block, a ``BufferLoad`` of a tensor named in ``values`` evaluates to its elements."""
    token = _VALUES.set(dict(values))
    try:
        yield
    finally:
        _VALUES.reset(token)


class _Copy:
    """An on-chip buffer a ``T.copy`` filled from a region of a tensor whose contents are known: its
    element ``i`` is the tensor's element at ``mins`` plus ``i`` along ``axes`` (those the buffer spans)."""

    def __init__(self, source: str, mins: tuple[Any, ...], axes: tuple[int, ...]) -> None:
        self.source, self.mins, self.axes = source, mins, axes


def copied_from(buffer: str, source: str, mins: tuple[Any, ...], extents: tuple[int, ...]) -> bool:
    """Record that on-chip ``buffer`` holds ``source``'s region at ``mins`` (a ``T.copy`` from global memory)
    when ``source``'s contents are known, so the buffer's elements evaluate too (a block-sparse mask copied
    to a fragment); False when they are not."""
    values = _VALUES.get()
    if values is None or not isinstance(values.get(source), np.ndarray):
        return False
    axes = tuple(d for d, e in enumerate(extents) if e != 1) or (len(extents) - 1,)
    values[buffer] = _Copy(source, mins, axes)  # type: ignore[index]
    return True


def _load(expr: Any, env: Mapping[str, Any], kernel: str) -> Any:
    """A ``BufferLoad`` in index math: its elements, where the caller gave the tensor's contents (or an
    on-chip buffer copied from such a tensor: :func:`copied_from`)."""
    name = expr.buffer.name
    known = _VALUES.get() or {}
    values = known.get(name)
    if isinstance(values, _Copy):
        copy = values
        if len(expr.indices) != len(copy.axes):
            what = f"{expr} indexes {name!r}, a copy of {copy.source!r}, by another rank"
            raise FrontendError(f"kernel {kernel!r}: {what}")
        index = [np.asarray(evaluate(m, env, kernel)) for m in copy.mins]
        for axis, i in zip(copy.axes, expr.indices, strict=True):
            index[axis] = index[axis] + np.asarray(evaluate(i, env, kernel))
        return _element(known[copy.source], index, f"{expr} (a copy of {copy.source!r})", copy.source, kernel)
    if values is None:
        if str(expr.buffer.scope()) == "global":
            raise UnsupportedOpError(
                f"index expression BufferLoad ({expr}): data read at run time; pass {name!r} as an integer "
                f"numpy array, a CPU torch tensor or TensorSpec(values=...) to evaluate it",
                kernel,
            )
        what = f"index expression BufferLoad ({expr}): a value computed at run time"
        raise UnsupportedOpError(what, kernel)
    index = [np.asarray(evaluate(i, env, kernel)) for i in expr.indices]
    return _element(values, index, str(expr), name, kernel)


def _element(values: np.ndarray, index: list[np.ndarray], what: str, name: str, kernel: str) -> Any:
    if len(index) != values.ndim:
        raise FrontendError(f"kernel {kernel!r}: {what} indexes a {values.ndim}-d tensor {name!r}")
    for axis, (i, extent) in enumerate(zip(index, values.shape, strict=True)):
        if i.size and (i.min() < 0 or i.max() >= extent):
            raise FrontendError(
                f"kernel {kernel!r}: {what} reads {name!r} at {int(i.min())}..{int(i.max())} on axis {axis}, "
                f"outside its {extent} elements"
            )
    return values[tuple(np.broadcast_arrays(*index))] if index else values[()]


def known_buffers() -> frozenset[str]:
    """Names of the buffers whose elements evaluate (given contents, and on-chip copies of them)."""
    return frozenset(_VALUES.get() or {})


def _truncdiv(a: Any, b: Any) -> Any:
    q = np.floor_divide(np.abs(a), np.abs(b))
    return np.where(np.sign(a) * np.sign(b) < 0, -q, q)


def evaluate(expr: Any, env: Mapping[str, Any], kernel: str) -> Any:
    """Value of ``expr`` (an int, numpy array, or PrimExpr) with variables looked up by name in ``env``."""
    if isinstance(expr, int | np.integer | np.ndarray):
        return expr
    if isinstance(expr, tirx.IntImm):
        return int(expr.value)
    if isinstance(expr, tirx.Var):
        if expr.name not in env:
            raise UnsupportedOpError(f"free variable {expr.name!r} in an index expression", kernel)
        return env[expr.name]
    op = _BINARY.get(type(expr))
    if op is not None:
        return op(evaluate(expr.a, env, kernel), evaluate(expr.b, env, kernel))
    if isinstance(expr, tirx.Div):
        return _truncdiv(evaluate(expr.a, env, kernel), evaluate(expr.b, env, kernel))
    if isinstance(expr, tirx.Mod):
        a, b = evaluate(expr.a, env, kernel), evaluate(expr.b, env, kernel)
        return a - _truncdiv(a, b) * b
    if isinstance(expr, tirx.Not):
        return np.logical_not(evaluate(expr.a, env, kernel))
    if isinstance(expr, tirx.Cast):
        return evaluate(expr.value, env, kernel)
    if isinstance(expr, tirx.BufferLoad):
        return _load(expr, env, kernel)
    if isinstance(expr, tirx.Select):
        cond = evaluate(expr.condition, env, kernel)
        return np.where(cond, evaluate(expr.true_value, env, kernel), evaluate(expr.false_value, env, kernel))
    if isinstance(expr, tirx.Call):
        name = expr.op.name.split(".")[-1] if hasattr(expr.op, "name") else ""
        args = expr.args
        if name == "if_then_else" and len(args) == 3:  # T.if_then_else(cond, a, b): both sides are plain math
            cond = evaluate(args[0], env, kernel)
            return np.where(cond, evaluate(args[1], env, kernel), evaluate(args[2], env, kernel))
        call = _CALLS.get(name)
        if call is not None and len(args) == call[1]:
            return call[0](*(evaluate(a, env, kernel) for a in args))
    raise UnsupportedOpError(f"index expression {type(expr).__name__} ({expr})", kernel)


def free_vars(expr: Any) -> frozenset[str]:
    """Names of the variables ``expr`` reads."""
    names: set[str] = set()

    def visit(node: Any) -> None:
        if isinstance(node, tirx.Var):
            names.add(node.name)

    if isinstance(expr, tirx.PrimExpr):
        tirx.stmt_functor.post_order_visit(expr, visit)
    return frozenset(names)
