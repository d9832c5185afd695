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


def _load(expr: Any, env: Mapping[str, Any], kernel: str) -> Any:
    """A ``BufferLoad`` in index math: its elements, where the caller gave the tensor's contents."""
    name = expr.buffer.name
    values = (_VALUES.get() or {}).get(name)
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
    if len(index) != values.ndim:
        raise FrontendError(f"kernel {kernel!r}: {expr} indexes a {values.ndim}-d tensor {name!r}")
    for axis, (i, extent) in enumerate(zip(index, values.shape, strict=True)):
        if i.size and (i.min() < 0 or i.max() >= extent):
            raise FrontendError(
                f"kernel {kernel!r}: {expr} reads {name!r} at {int(i.min())}..{int(i.max())} on axis {axis}, "
                f"outside its {extent} elements"
            )
    return values[tuple(np.broadcast_arrays(*index))] if index else values[()]


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
