"""A vectorised abstract interpreter over TTIR scalar ops.

Every scalar SSA value is a numpy array with one entry per *lane* (a launched program, or a (program,
iteration) pair inside a persistent tile loop), so trip counts and tile coordinates of every program come
out of one pass. Integer ops follow MLIR's ``arith`` semantics on int64 (signed division truncates toward
zero; ``remsi`` takes the dividend's sign); a division by zero yields 0 in lanes where it happens (those
lanes are masked-out work in a real launch). Only the ops listed in :data:`SCALAR_OPS` are evaluated.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

import numpy as np

Arr = np.ndarray


def _safe(b: Arr) -> Arr:
    return np.where(b == 0, 1, b)


def _divsi(a: Arr, b: Arr) -> Arr:
    a, b = a.astype(np.int64, copy=False), b.astype(np.int64, copy=False)
    bs = _safe(b)
    q = np.floor_divide(a, bs)
    q = q + ((q < 0) & (q * bs != a))  # floor to truncation toward zero
    return np.where(b == 0, 0, q)


def _remsi(a: Arr, b: Arr) -> Arr:
    a, b = a.astype(np.int64), b.astype(np.int64)
    return np.where(b == 0, 0, a - _divsi(a, b) * b)


def _ceildivsi(a: Arr, b: Arr) -> Arr:
    q = _divsi(a, b)
    return q + ((_remsi(a, b) != 0) & ((a < 0) == (b < 0)))


def _floordivsi(a: Arr, b: Arr) -> Arr:
    return np.where(b == 0, 0, np.floor_divide(a, _safe(b)))


_CMP: dict[str, Callable[[Arr, Arr], Arr]] = {
    "eq": np.equal,
    "ne": np.not_equal,
    "slt": np.less,
    "sle": np.less_equal,
    "sgt": np.greater,
    "sge": np.greater_equal,
    "ult": np.less,
    "ule": np.less_equal,
    "ugt": np.greater,
    "uge": np.greater_equal,
}


def _ordered(a: Arr, b: Arr) -> Arr:
    return ~(np.isnan(a) | np.isnan(b))


# arith.cmpf's predicates: ordered ones are false where either side is NaN, unordered ones true
_CMPF: dict[str, Callable[[Arr, Arr], Arr]] = {
    "oeq": np.equal,
    "one": lambda a, b: np.not_equal(a, b) & _ordered(a, b),
    "olt": np.less,
    "ole": np.less_equal,
    "ogt": np.greater,
    "oge": np.greater_equal,
    "ord": _ordered,
    "ueq": lambda a, b: np.equal(a, b) | ~_ordered(a, b),
    "une": np.not_equal,
    "ult": lambda a, b: ~np.greater_equal(a, b),
    "ule": lambda a, b: ~np.greater(a, b),
    "ugt": lambda a, b: ~np.less_equal(a, b),
    "uge": lambda a, b: ~np.less(a, b),
    "uno": lambda a, b: ~_ordered(a, b),
    "true": lambda a, b: np.ones(np.broadcast(a, b).shape, dtype=bool),
    "false": lambda a, b: np.zeros(np.broadcast(a, b).shape, dtype=bool),
}

BINARY: dict[str, Callable[[Arr, Arr], Arr]] = {
    "arith.addi": np.add,
    "arith.subi": np.subtract,
    "arith.muli": np.multiply,
    "arith.divsi": _divsi,
    "arith.divui": _floordivsi,
    "arith.remsi": _remsi,
    "arith.remui": lambda a, b: np.where(b == 0, 0, np.mod(a, _safe(b))),
    "arith.ceildivsi": _ceildivsi,
    "arith.ceildivui": _ceildivsi,
    "arith.floordivsi": _floordivsi,
    "arith.minsi": np.minimum,
    "arith.maxsi": np.maximum,
    "arith.minui": np.minimum,
    "arith.maxui": np.maximum,
    "arith.andi": lambda a, b: np.bitwise_and(a.astype(np.int64), b.astype(np.int64)),
    "arith.ori": lambda a, b: np.bitwise_or(a.astype(np.int64), b.astype(np.int64)),
    "arith.xori": lambda a, b: np.bitwise_xor(a.astype(np.int64), b.astype(np.int64)),
    "arith.shli": lambda a, b: np.left_shift(a.astype(np.int64), b.astype(np.int64)),
    "arith.shrsi": lambda a, b: np.right_shift(a.astype(np.int64), b.astype(np.int64)),
    "arith.shrui": lambda a, b: np.right_shift(a.astype(np.int64), b.astype(np.int64)),
    "arith.addf": np.add,
    "arith.subf": np.subtract,
    "arith.mulf": np.multiply,
    "arith.divf": lambda a, b: np.divide(a, _safe(b)),
    "arith.maxnumf": np.maximum,
    "arith.minnumf": np.minimum,
    "arith.maximumf": np.maximum,
    "arith.minimumf": np.minimum,
}
CASTS = frozenset(
    {
        "arith.extsi",
        "arith.extui",
        "arith.trunci",
        "arith.index_cast",
        "arith.sitofp",
        "arith.uitofp",
        "arith.fptosi",
        "arith.fptoui",
        "arith.extf",
        "arith.truncf",
        "arith.bitcast",
    }
)
# Ops through which a coordinate keeps its identity (an affine map with a uniform other operand).
AFFINE = frozenset(
    {
        "arith.addi",
        "arith.subi",
        "arith.muli",
        "arith.extsi",
        "arith.extui",
        "arith.trunci",
        "arith.index_cast",
    }
)
SCALAR_OPS = frozenset({*BINARY, *CASTS, "arith.cmpi", "arith.cmpf", "arith.select", "arith.constant"})

_CONST = re.compile(r"^\s*(-?[0-9.eE+-]+|true|false)\s*:")


@functools.lru_cache(maxsize=4096)
def constant(text: str) -> float | int | bool | None:
    """The value of a scalar ``arith.constant`` (None for a dense tensor constant)."""
    m = _CONST.match(text)
    if not m:
        return None
    lit = m.group(1)
    if lit in ("true", "false"):
        return lit == "true"
    return float(lit) if any(c in lit for c in ".eE") else int(lit)


def _py_divsi(a: int, b: int) -> int:
    if b == 0:
        return 0
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _py_ceildivsi(a: int, b: int) -> int:
    q = _py_divsi(a, b)
    return q + 1 if b != 0 and a - q * b != 0 and (a < 0) == (b < 0) else q


# Integer ops on values the same in every lane, evaluated on Python ints (numpy's per-call cost dominates
# one-entry arrays); results equal the vectorised ones (tests/frontends/triton/test_interp.py).
_PY_INT: dict[str, Callable[[int, int], int]] = {
    "arith.addi": lambda a, b: a + b,
    "arith.subi": lambda a, b: a - b,
    "arith.muli": lambda a, b: a * b,
    "arith.divsi": _py_divsi,
    "arith.remsi": lambda a, b: 0 if b == 0 else a - _py_divsi(a, b) * b,
    "arith.ceildivsi": _py_ceildivsi,
    "arith.minsi": min,
    "arith.maxsi": max,
}
_PY_INT_LIMIT = 1 << 62  # beyond this the int64 lanes would wrap; leave such values to numpy


def _uniform_int(args: list[Arr]) -> bool:
    return all(a.shape == (1,) and a.dtype.kind in "iu" for a in args)


def evaluate(name: str, text: str, args: list[Arr]) -> Arr | None:
    """One scalar op over lanes (None for a comparison predicate it does not know)."""
    fast = _PY_INT.get(name)
    if fast is not None and _uniform_int(args):
        r = fast(int(args[0][0]), int(args[1][0]))
        if -_PY_INT_LIMIT < r < _PY_INT_LIMIT:
            return np.array([r], dtype=np.int64)
    if name in BINARY:
        if not name.endswith("f"):
            return BINARY[name](args[0], args[1])  # integer lanes: no floating-point warnings to silence
        with np.errstate(all="ignore"):
            return BINARY[name](args[0], args[1])
    if name in CASTS:
        if name in ("arith.fptosi", "arith.fptoui"):
            return np.trunc(args[0]).astype(np.int64)
        return args[0]
    if name in ("arith.cmpi", "arith.cmpf"):
        pred = text.strip().split(",", 1)[0].strip()
        table = _CMPF if name == "arith.cmpf" else _CMP
        if pred not in table:  # not a predicate MLIR has: the walker treats the value as unknown
            return None
        if name == "arith.cmpf":
            with np.errstate(all="ignore"):
                a, b = np.asarray(args[0], dtype=np.float64), np.asarray(args[1], dtype=np.float64)
                return table[pred](a, b)
        return table[pred](args[0], args[1])
    if name == "arith.select":
        return np.where(args[0].astype(bool), args[1], args[2])
    raise KeyError(name)


def trip_counts(lb: Arr, ub: Arr, step: Arr) -> Arr:
    """Iterations of ``scf.for lb to ub step step`` per lane (0 where ub <= lb)."""
    span = np.maximum(ub - lb, 0)
    return np.where(step > 0, -(-span // np.where(step > 0, step, 1)), 0).astype(np.int64)
