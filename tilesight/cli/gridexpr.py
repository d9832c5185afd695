"""``--grid``: the launch grid as a small arithmetic expression over the kernel's scalar arguments and config.

Example: ``--grid 'cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N)'`` or ``--grid 'cdiv(N, BLOCK), B'`` (a tuple).
Allowed: integers, names of scalar arguments / config entries, ``+ - * // / % **``, parentheses, tuples and
the functions ``cdiv``, ``min``, ``max``, ``ceil``. Nothing else is evaluated (no attributes, no imports).
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable, Mapping
from typing import Any

from .argspec import ArgsError

_BINOPS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv,
    ast.Div: operator.truediv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_FUNCS: dict[str, Callable[..., Any]] = {
    "cdiv": lambda a, b: -(-a // b),
    "min": min,
    "max": max,
    "ceil": math.ceil,
}


def eval_grid(text: str, names: Mapping[str, Any], option: str = "--grid") -> tuple[int, ...]:
    """Evaluate ``text`` to a grid tuple of 1 to 3 positive integers."""
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as exc:
        raise ArgsError(f"{option}: {text!r} is not an expression (column {exc.offset}): {exc.msg}") from None
    value = _eval(tree.body, names, option, text)
    dims = value if isinstance(value, tuple) else (value,)
    if not 1 <= len(dims) <= 3:
        raise ArgsError(f"{option}: {text!r} gives {len(dims)} dimensions; a grid has 1 to 3")
    out = []
    for d in dims:
        if isinstance(d, float) and d.is_integer():
            d = int(d)
        if isinstance(d, bool) or not isinstance(d, int) or d < 1:
            raise ArgsError(
                f"{option}: {text!r} evaluates to {dims!r}; every dimension must be an integer >= 1"
            )
        out.append(d)
    return tuple(out)


def grid_names(text: str) -> set[str]:
    """The names ``text`` uses (an empty set where it does not parse: :func:`eval_grid` says why)."""
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError:
        return set()
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} - set(_FUNCS)


def _eval(node: ast.AST, names: Mapping[str, Any], option: str, text: str) -> Any:
    if (
        isinstance(node, ast.Constant)
        and isinstance(node.value, int | float)
        and not isinstance(node.value, bool)
    ):
        return node.value
    if isinstance(node, ast.Name):
        if node.id not in names:
            raise ArgsError(
                f"{option}: {text!r} uses {node.id!r}, which is not a scalar argument or config entry"
            )
        return names[node.id]
    if isinstance(node, ast.Tuple):
        return tuple(_eval(e, names, option, text) for e in node.elts)
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
        left, right = _eval(node.left, names, option, text), _eval(node.right, names, option, text)
        try:
            return _BINOPS[type(node.op)](left, right)
        except (ZeroDivisionError, TypeError) as exc:
            raise ArgsError(f"{option}: {text!r}: {exc}") from None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_eval(node.operand, names, option, text)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name | ast.Attribute) and not node.keywords:
        fname = node.func.id if isinstance(node.func, ast.Name) else node.func.attr  # triton.cdiv -> cdiv
        if fname in _FUNCS:
            args = [_eval(a, names, option, text) for a in node.args]
            try:
                return _FUNCS[fname](*args)
            except (TypeError, ZeroDivisionError, ValueError) as exc:
                raise ArgsError(f"{option}: {text!r}: {fname}: {exc}") from None
    raise ArgsError(
        f"{option}: {text!r}: {ast.unparse(node)!r} is not allowed "
        f"(integers, names, + - * // / % **, tuples, cdiv/min/max/ceil)"
    )
