"""What one math call costs an element in SASS, on CPU (no GPU): the instruction counts behind the Triton
frontend's ``extract.LIBDEVICE_ROUTINES``.

    python benchmarks/triton_sweep/sass_routines.py [--out benchmarks/data/sass_routines_triton.json]

For each function, a one-line Triton kernel ``y = f(x)`` over fp32 (``BLOCK`` = 8 elements a thread, 4
warps, pointers and length divisible by 16) is compiled for sm_90 with Triton's own ptxas and disassembled
with the ``cuobjdump`` Triton ships; the copy kernel ``y = x``'s instructions are subtracted and the rest
divided by the elements a thread handles. Recorded per function: the instructions by opcode, the MUFU
(special-function) instructions, the other instructions, and the branches the routine adds (a routine with a
branch has a rarely taken path: its static count is not what runs). No timing is read.
"""

from __future__ import annotations

import argparse
import collections
import datetime
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ELEMENTS_PER_THREAD = 8
WARPS = 4
# name -> the expression of x the probe stores
FUNCTIONS = {
    "copy": "x",
    "erf": "libdevice.erf(x)",
    "tanh": "libdevice.tanh(x)",
    "log": "tl.log(x)",
    "log2": "tl.log2(x)",
    "exp": "tl.exp(x)",
    "exp2": "tl.exp2(x)",
    "sqrt": "tl.sqrt(x)",
    "rsqrt": "tl.rsqrt(x)",
    "div": "x / (x + 1.0)",
    "sigmoid": "tl.sigmoid(x)",
    "sin": "tl.sin(x)",
    "cos": "tl.cos(x)",
    "pow": "libdevice.pow(x, x)",
}
_SASS = re.compile(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z0-9_]+)")
_PROBE = """
import triton
import triton.language as tl
from triton.language.extra import libdevice


@triton.jit
def probe(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    y = {expr}
    tl.store(y_ptr + offs, y, mask=offs < n)
"""


def sass_opcodes(expr: str, workdir: Path, cuobjdump: str) -> collections.Counter:
    """Opcode counts (NOPs aside) of the probe kernel storing ``expr``, compiled for sm_90."""
    import triton
    from triton.backends.compiler import GPUTarget

    path = workdir / f"probe_{abs(hash(expr))}.py"
    path.write_text(_PROBE.format(expr=expr))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    aligned = [["tt.divisibility", 16]]
    src = triton.compiler.ASTSource(
        fn=module.probe,
        signature={"x_ptr": "*fp32", "y_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"},
        constexprs={"BLOCK": ELEMENTS_PER_THREAD * WARPS * 32},
        attrs={(0,): aligned, (1,): aligned, (2,): aligned},
    )
    kernel = triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": WARPS})
    cubin = workdir / f"{path.stem}.cubin"
    cubin.write_bytes(kernel.asm["cubin"])
    text = subprocess.run([cuobjdump, "-sass", str(cubin)], capture_output=True, text=True, check=True).stdout
    ops = collections.Counter(m.group(1).split(".")[0] for m in _SASS.finditer(text))
    ops.pop("NOP", None)
    return ops


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "data" / "sass_routines_triton.json")
    args = ap.parse_args()
    import triton

    cuobjdump = str(Path(triton.__file__).parent / "backends" / "nvidia" / "bin" / "cuobjdump")
    rows = {}
    with tempfile.TemporaryDirectory() as tmp:
        counts = {name: sass_opcodes(expr, Path(tmp), cuobjdump) for name, expr in FUNCTIONS.items()}
    base = counts.pop("copy")
    for name, ops in counts.items():
        extra = {op: (ops[op] - base.get(op, 0)) / ELEMENTS_PER_THREAD for op in sorted(set(ops) | set(base))}
        extra = {op: round(v, 3) for op, v in extra.items() if v}
        mufu = extra.get("MUFU", 0.0)
        rows[name] = {
            "expression": FUNCTIONS[name],
            "mufu": mufu,
            "other": round(sum(extra.values()) - mufu, 3),
            "branches": extra.get("BRA", 0.0),
            "by_opcode": extra,
        }
        row = rows[name]
        print(f"{name:8s} other {row['other']:6.1f}  MUFU {mufu:3.1f}  branches {row['branches']:3.1f}")
    meta = {
        "command": "python benchmarks/triton_sweep/sass_routines.py",
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "triton": triton.__version__,
        "target": f"sm_90, fp32, {ELEMENTS_PER_THREAD} elements a thread, {WARPS} warps",
        "counts": "instructions per element, the copy kernel's subtracted",
        "python": sys.version.split()[0],
        "host": os.uname().machine,
    }
    args.out.write_text(json.dumps({"meta": meta, "functions": rows}, indent=1) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
