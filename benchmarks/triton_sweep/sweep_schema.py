"""The JSONL record of one measured launch, and its validation (used by the harness and the accuracy script).

One line per launch, self-describing::

    {"id", "family", "kernel": "kernels.triton.gemm:matmul_kernel", "grid": [..],
     "args": [{"tensor": {"shape", "dtype", "strides", "init"}} | {"scalar": value or null}],
     "constexprs": {..},
     "num_warps", "num_stages", "problem": {..}, "split": "main" | "holdout",
     "status": "ok" | "skipped" | "wrong", "reason": str,
     "measured_us": {"p50", "p20", "p80"} | null, "n_regs", "n_spills", "shared_bytes", "max_rel_err"}

``status`` "ok" rows carry the timing and the compiled kernel's registers, spills and shared memory;
"skipped" rows (compile failure, beyond shared memory, time budget) say why in ``reason``; "wrong" rows
launched but failed the harness's spot check against torch. Pure Python: no torch, triton or tilesight.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

STATUSES = ("ok", "skipped", "wrong")
SPLITS = ("main", "holdout")
FAMILIES = ("gemm", "memory", "attention")
DTYPES = ("float16", "bfloat16", "float8_e4m3fn", "float32", "int8", "int32", "int64")


class SchemaError(ValueError):
    """A record that does not follow the schema; the message names the file:line and the field."""

    def __init__(self, where: str, field: str, problem: str) -> None:
        self.where = where
        self.field = field
        super().__init__(f"{where}: field {field!r}: {problem}")


def _need(rec: dict, key: str, types: type | tuple[type, ...], where: str) -> Any:
    if key not in rec:
        raise SchemaError(where, key, "missing")
    value = rec[key]
    if not isinstance(value, types) or isinstance(value, bool) and bool not in _as_tuple(types):
        raise SchemaError(where, key, f"{value!r} is not {_names(types)}")
    return value


def _as_tuple(types: type | tuple[type, ...]) -> tuple[type, ...]:
    return types if isinstance(types, tuple) else (types,)


def _names(types: type | tuple[type, ...]) -> str:
    return " or ".join(t.__name__ for t in _as_tuple(types))


def _check_tensor(t: Any, field: str, where: str) -> None:
    if not isinstance(t, dict):
        raise SchemaError(where, field, f"{t!r} is not an object")
    shape = _need(t, "shape", list, where)
    strides = _need(t, "strides", list, where)
    dtype = _need(t, "dtype", str, where)
    if dtype not in DTYPES:
        raise SchemaError(where, f"{field}.dtype", f"{dtype!r} not one of {DTYPES}")
    if len(shape) != len(strides) or not all(isinstance(v, int) and v >= 0 for v in shape + strides):
        problem = f"{shape} / {strides}: need one non-negative int per dim"
        raise SchemaError(where, f"{field}.shape/strides", problem)


def validate_record(rec: Any, where: str) -> dict:
    """Return ``rec`` if it follows the schema, else raise SchemaError naming ``where`` and the field."""
    if not isinstance(rec, dict):
        raise SchemaError(where, "<record>", f"{type(rec).__name__} is not an object")
    _need(rec, "id", str, where)
    if _need(rec, "family", str, where) not in FAMILIES:
        raise SchemaError(where, "family", f"{rec['family']!r} not one of {FAMILIES}")
    kernel = _need(rec, "kernel", str, where)
    if kernel.count(":") != 1:
        raise SchemaError(where, "kernel", f"{kernel!r} is not 'module:function'")
    grid = _need(rec, "grid", list, where)
    if not 1 <= len(grid) <= 3 or not all(isinstance(g, int) and g >= 1 for g in grid):
        raise SchemaError(where, "grid", f"{grid!r}: one to three positive ints")
    for i, arg in enumerate(_need(rec, "args", list, where)):
        if not isinstance(arg, dict) or len(arg) != 1 or next(iter(arg)) not in ("tensor", "scalar"):
            raise SchemaError(where, f"args[{i}]", f"{arg!r} is not {{'tensor': ...}} or {{'scalar': ...}}")
        if "tensor" in arg:
            _check_tensor(arg["tensor"], f"args[{i}].tensor", where)
        elif arg["scalar"] is not None and not isinstance(arg["scalar"], int | float):
            raise SchemaError(where, f"args[{i}].scalar", f"{arg['scalar']!r} is not a number or null")
    _need(rec, "constexprs", dict, where)
    for key in ("num_warps", "num_stages"):
        if _need(rec, key, int, where) < 1:
            raise SchemaError(where, key, f"{rec[key]} < 1")
    _need(rec, "problem", dict, where)
    if _need(rec, "split", str, where) not in SPLITS:
        raise SchemaError(where, "split", f"{rec['split']!r} not one of {SPLITS}")
    status = _need(rec, "status", str, where)
    if status not in STATUSES:
        raise SchemaError(where, "status", f"{status!r} not one of {STATUSES}")
    if status == "ok":
        measured = _need(rec, "measured_us", dict, where)
        for q in ("p50", "p20", "p80"):
            v = _need(measured, q, (int, float), where)
            if not v > 0:
                raise SchemaError(where, f"measured_us.{q}", f"{v} is not > 0")
        for key in ("n_regs", "n_spills", "shared_bytes"):
            if _need(rec, key, int, where) < 0:
                raise SchemaError(where, key, f"{rec[key]} < 0")
    elif not _need(rec, "reason", str, where):
        raise SchemaError(where, "reason", f"a {status!r} record must say why")
    return rec


def read_records(path: Path) -> Iterator[dict]:
    """Validated records of one JSONL file; a bad line raises SchemaError naming ``path:line``."""
    with open(path) as f:
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            where = f"{path}:{lineno}"
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as e:
                raise SchemaError(where, "<json>", str(e)) from None
            yield validate_record(rec, where)
