#!/usr/bin/env python3
"""What one element of each Triton math function costs in SASS for sm_90, read on the CPU (no GPU).

    python benchmarks/calibrate/math_sass.py [--out benchmarks/data/math_sass_sm90.json]

For every function of :data:`EXPRESSIONS` (Triton's ``tl`` math, libdevice's fp32 functions through
``triton.language.extra.libdevice``, and the division forms), a probe kernel ``y = f(x)`` over 128 fp32
elements on 4 warps (one element a thread) is compiled by Triton for ``GPUTarget("cuda", 90, 32)`` to a cubin
and disassembled with the ``cuobjdump`` Triton ships. The function's instructions are those of the
kernel's main path from its entry to its ``EXIT`` (:func:`main_path`: a special value's early exit, the
Payne-Hanek reduction of a huge sine argument or a division's out-of-line slow path is not the common
case), less the same path of the ``y = x`` kernel, counted by unit: FP32-pipe arithmetic (``FFMA``,
``FADD``, ``FMUL``, ``FSETP``, ``FSEL``, ``FMNMX``, ``FRND``, ...), integer and logic (``IMAD``, ``IADD3``,
``LOP3``, ``SHF``, ``ISETP``, ``SEL``, ...; not the moves ``IMAD.MOV`` and ``MOV`` or the address
arithmetic ``LEA``, which register allocation and addressing vary), and ``MUFU`` (the special-function
units). These are the compiler's facts behind ``frontends/triton/mathcost.py``; no timing is read.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import json
import re
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# name in the table -> the expression of ``x`` (fp32) the probe stores
EXPRESSIONS = {
    "math.exp": "tl.exp(x)",
    "math.exp2": "tl.exp2(x)",
    "math.log": "tl.log(x)",
    "math.log2": "tl.log2(x)",
    "math.sin": "tl.sin(x)",
    "math.cos": "tl.cos(x)",
    "math.sqrt": "tl.sqrt(x)",
    "math.rsqrt": "tl.rsqrt(x)",
    "math.erf": "tl.erf(x)",
    "math.floor": "tl.floor(x)",
    "math.ceil": "tl.ceil(x)",
    "arith.divf": "x / (x + 1.0)",
    "tt.precise_divf": "tl.div_rn(x, x + 1.0)",
    "tt.precise_sqrt": "tl.sqrt_rn(x)",
    **{
        f"__nv_{name}f": f"libdevice.{name}(x)"
        for name in (
            "erf",
            "erfc",
            "erfinv",
            "tanh",
            "sinh",
            "cosh",
            "exp",
            "exp2",
            "exp10",
            "expm1",
            "log",
            "log2",
            "log10",
            "log1p",
            "sin",
            "cos",
            "tan",
            "asin",
            "acos",
            "atan",
            "sqrt",
            "rsqrt",
            "cbrt",
            "rint",
            "round",
            "floor",
            "ceil",
            "trunc",
        )
    },  # fmt: skip
    "__nv_powf": "libdevice.pow(x, x)",
    "__nv_atan2f": "libdevice.atan2(x, x + 1.0)",
    "__nv_fmodf": "libdevice.fmod(x, x + 1.0)",
}
UNITS = {
    "fp": frozenset(
        {"FFMA", "FADD", "FMUL", "FSETP", "FSEL", "FMNMX", "FRND", "FCHK", "F2F", "FSWZADD", "FSET"}
    ),
    "int": frozenset(
        {
            "IMAD",
            "IADD3",
            "LOP3",
            "SHF",
            "ISETP",
            "SEL",
            "IMNMX",
            "PRMT",
            "I2F",
            "F2I",
            "IABS",
            "POPC",
            "FLO",
            "BREV",
            "IMUL",
            "SHL",
            "SHR",
            "IADD",
        }
    ),  # fmt: skip
    "mufu": frozenset({"MUFU"}),
}
SOURCE = """
import triton
import triton.language as tl
from triton.language.extra import libdevice


@triton.jit
def probe(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(y_ptr + offs, {expr})
"""
_INSTR = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_]*)([^;]*);")
_TARGET = re.compile(r"0x([0-9a-f]+)")


def sass(expr: str, workdir: Path) -> str:
    """The SASS of the probe kernel storing ``expr``."""
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler.compiler import ASTSource

    path = workdir / f"probe_{abs(hash(expr))}.py"
    path.write_text(SOURCE.format(expr=expr))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    src = ASTSource(
        fn=mod.probe,
        signature={"x_ptr": "*fp32", "y_ptr": "*fp32", "BLOCK": "constexpr"},
        constexprs={"BLOCK": 128},
    )
    compiled = triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": 4})
    cubin = workdir / f"{path.stem}.cubin"
    cubin.write_bytes(compiled.asm["cubin"])
    tool = Path(triton.__file__).parent / "backends" / "nvidia" / "bin" / "cuobjdump"
    return subprocess.run([str(tool), "-sass", str(cubin)], capture_output=True, text=True, check=True).stdout


def main_path(text: str) -> Counter:
    """Opcodes on the kernel's main path from its first instruction to its ``EXIT``: falling through each
    conditional branch (a function's early exits for special values branch away), except one that jumps
    over a loop (a slow path such as the Payne-Hanek reduction of a huge sine argument), and leaving every
    loop after one pass."""
    instrs = [(int(a, 16), guard, op, rest) for a, guard, op, rest in _INSTR.findall(text)]
    index = {a: i for i, (a, *_) in enumerate(instrs)}

    def target(i: int) -> int | None:
        m = _TARGET.search(instrs[i][3])
        return index.get(int(m.group(1), 16)) if m else None

    back_edges = [
        i for i, (_, _, op, _) in enumerate(instrs) if op == "BRA" and (t := target(i)) is not None and t <= i
    ]
    path: Counter = Counter()
    i: int | None = 0
    seen: set[int] = set()
    while i is not None and i < len(instrs) and i not in seen:
        seen.add(i)
        _, guard, op, rest = instrs[i]
        path[op + ".MOV" if rest.startswith(".MOV") else op] += 1  # IMAD.MOV is a register move
        if op == "EXIT" and not guard:
            break
        if op == "BRA":
            t = target(i)
            if not guard:
                i = t
                continue
            if t is not None and t > i and any(i < b < t for b in back_edges):
                i = t
                continue
        i += 1
    return path


def by_unit(path: Counter) -> dict[str, int]:
    return {unit: sum(path[o] for o in ops) for unit, ops in UNITS.items()}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "data" / "math_sass_sm90.json")
    args = ap.parse_args()
    import triton

    rows = {}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        base = by_unit(main_path(sass("x", work)))
        for name, expr in EXPRESSIONS.items():
            units = by_unit(main_path(sass(expr, work)))
            rows[name] = {"expr": expr, **{u: max(units[u] - base[u], 0) for u in UNITS}}
            print(f"{name:18s} {expr:28s} " + " ".join(f"{u} {rows[name][u]:3d}" for u in UNITS), flush=True)
    meta = {
        "command": "python benchmarks/calibrate/math_sass.py",
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "triton": triton.__version__,
        "target": "GPUTarget('cuda', 90, 32), 4 warps, one fp32 element a thread; Triton's bundled cuobjdump",
        "per": "instructions an element on the main entry-to-EXIT path (main_path), less the y = x kernel's",
    }
    args.out.write_text(json.dumps({"meta": meta, "functions": rows}, indent=1) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
