"""Evaluate TIR index expressions on CPU, vectorised over the block grid with numpy.

Block indices are bound to broadcastable integer arrays (``bx`` varies along axis 0, ``by`` along axis 1,
...), so one evaluation gives an expression's value for every block (a loop's trip count per block).
Any node outside the integer arithmetic TileLang index math uses raises UnsupportedOpError naming it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from tilesight.errors import UnsupportedOpError

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
