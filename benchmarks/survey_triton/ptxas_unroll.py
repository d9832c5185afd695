"""Which load-only loops ptxas unrolls, against what the Triton frontend assumes (CPU only, no GPU).

    python benchmarks/survey_triton/ptxas_unroll.py --out benchmarks/data/survey_triton/ptxas_unroll.json

The frontend takes an unpipelined loop that only loads (no store, no inner loop, no reduction across warps,
no special-function work) as unrolled four times by ptxas, four iterations' loads in flight together
(``frontends/triton/assemble.py::UNROLLED_LOAD_LOOP``). This compiles six such row loops (sum of squares,
a product of two rows, a masked variance pass, a running max, a running argmax, a polynomial) for sm_90 at
fp16 and fp32, 2-16 elements a thread an iteration and 4 or 8 warps, disassembles each cubin with the
``cuobjdump`` Triton ships, and counts the ``LDG`` instructions in the loop's body: over the ``LDG``s one
iteration needs (16 bytes each), that is the unroll factor ptxas chose. Each row also has the frontend's
unroll and its element-op count a thread an iteration.

What it showed (stop 37, Triton 3.9): ptxas unrolls four times up to 8 elements a thread a load and never
at 16, but at 8 not the argmax or the polynomial (longer bodies: 51-67 instructions an iteration, where the
unrolled ones run 20-40). The frontend unrolls all of them. Taking the 16-element loops as one trip at a
time moved the pooled memory launches 8.51 -> 8.59% (the RMSNorm passes of 1024 columns on 2 warps, already
slow in the model, slower), so the frontend keeps its rule; the gap is in docs/known-gaps.md.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

from tilesight.frontends.triton.frontend import TritonFrontend  # noqa: E402

from tilesight import TensorSpec, load_profile  # noqa: E402
from tilesight.plan import ActionKind, Loop  # noqa: E402

ELEMENTS_PER_THREAD = (2, 4, 8, 16)
WARPS = (4, 8)
DTYPES = {"fp16": ("float16", 2), "fp32": ("float32", 4)}


@triton.jit
def sum_of_squares(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros((BLOCK,), tl.float32)
    for start in range(0, n, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * n + cols, mask=cols < n, other=0.0).to(tl.float32)
        acc += x * x
    tl.store(out_ptr + row, tl.sum(acc, axis=0))


@triton.jit
def row_product(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros((BLOCK,), tl.float32)
    for start in range(0, n, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * n + cols, mask=cols < n, other=0.0).to(tl.float32)
        y = tl.load(y_ptr + row * n + cols, mask=cols < n, other=0.0).to(tl.float32)
        acc += x * y
    tl.store(out_ptr + row, tl.sum(acc, axis=0))


@triton.jit
def variance_pass(x_ptr, out_ptr, n, mean, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros((BLOCK,), tl.float32)
    for start in range(0, n, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * n + cols, mask=cols < n, other=0.0).to(tl.float32)
        x = tl.where(cols < n, x - mean, 0.0)
        acc += x * x
    tl.store(out_ptr + row, tl.sum(acc, axis=0))


@triton.jit
def running_max(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    m = tl.full((BLOCK,), -float("inf"), tl.float32)
    for start in range(0, n, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * n + cols, mask=cols < n, other=-float("inf")).to(tl.float32)
        m = tl.maximum(m, x)
    tl.store(out_ptr + row, tl.max(m, axis=0))


@triton.jit
def running_argmax(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    best = tl.full((BLOCK,), -float("inf"), tl.float32)
    where = tl.zeros((BLOCK,), tl.int32)
    for start in range(0, n, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * n + cols, mask=cols < n, other=-float("inf")).to(tl.float32)
        up = x > best
        best = tl.where(up, x, best)
        where = tl.where(up, cols, where)
    _, i = tl.max(best, axis=0, return_indices=True)
    tl.store(out_ptr + row, tl.sum(tl.where(tl.arange(0, BLOCK) == i, where, 0), axis=0))


@triton.jit
def polynomial(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros((BLOCK,), tl.float32)
    for start in range(0, n, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * n + cols, mask=cols < n, other=0.0).to(tl.float32)
        acc += x * x * x + 2.0 * x * x + 3.0 * x
    tl.store(out_ptr + row, tl.sum(acc, axis=0))


# kernel, rows it loads an iteration, whether it takes a float scalar after n
KERNELS = (
    (sum_of_squares, 1, False),
    (row_product, 2, False),
    (variance_pass, 1, True),
    (running_max, 1, False),
    (running_argmax, 1, False),
    (polynomial, 1, False),
)


def loop_loads(jit_fn, signature: dict, block: int, warps: int) -> tuple[int, int]:
    """(``LDG`` instructions, all instructions) in the largest loop of the kernel's SASS for sm_90."""
    # pointers and the row length divisible by 16, as Triton specialises them at launch (n = 65536 here)
    attrs = {
        (i,): [["tt.divisibility", 16]] for i, t in enumerate(signature.values()) if t[0] == "*" or t == "i32"
    }
    src = triton.compiler.ASTSource(fn=jit_fn, signature=signature, constexprs={"BLOCK": block}, attrs=attrs)
    compiled = triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": warps})
    cuobjdump = Path(triton.__file__).parent / "backends" / "nvidia" / "bin" / "cuobjdump"
    with tempfile.NamedTemporaryFile(suffix=".cubin") as fh:
        fh.write(compiled.asm["cubin"])
        fh.flush()
        sass = subprocess.run([str(cuobjdump), "-sass", fh.name], capture_output=True, text=True).stdout
    code = [
        (int(m.group(1), 16), m.group(2))
        for m in (re.match(r"\s+/\*([0-9a-f]{4,})\*/\s+(.*?);", line) for line in sass.splitlines())
        if m
    ]
    loops = [
        (int(m.group(1), 16), at)
        for at, text in code
        if (m := re.search(r"BRA (0x[0-9a-f]+)", text)) and int(m.group(1), 16) < at
    ]
    start, end = max(loops, key=lambda lp: lp[1] - lp[0])
    body = [text for at, text in code if start <= at <= end]
    return sum(1 for text in body if re.search(r"\bLDG\.E", text)), len(body)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    hw = load_profile("h200")
    fe = TritonFrontend()
    rows = []
    for jit_fn, loads, scalar in KERNELS:
        for dt, (dtype, nbytes) in DTYPES.items():
            for e in ELEMENTS_PER_THREAD:
                for warps in WARPS:
                    block = e * 32 * warps
                    signature = {"x_ptr": f"*{dt}"}
                    if loads == 2:
                        signature["y_ptr"] = f"*{dt}"
                    signature.update({"out_ptr": "*fp32", "n": "i32"})
                    if scalar:
                        signature["mean"] = "fp32"
                    signature["BLOCK"] = "constexpr"
                    ldg, instructions = loop_loads(jit_fn, signature, block, warps)
                    per_trip = loads * math.ceil(e * nbytes / 16)
                    x = TensorSpec((64, 65536), dtype)
                    kargs = [x] * loads + [TensorSpec((64,), "float32"), 65536] + ([0.5] if scalar else [])
                    plan = fe.plan(jit_fn, ((64,), *kargs), dict(BLOCK=block, num_warps=warps), hw)
                    loop = next(n for n in plan.body if isinstance(n, Loop))
                    ops = sum(
                        a.flops for a in loop.body if a.kind in (ActionKind.ELEMENTWISE, ActionKind.REDUCE)
                    ) / (32 * warps)
                    rows.append(
                        {
                            "kernel": jit_fn.__name__,
                            "dtype": dtype,
                            "elements_per_thread": e,
                            "warps": warps,
                            "loop_ldg": ldg,
                            "loop_instructions": instructions,
                            "ptxas_unroll": ldg / per_trip,
                            "frontend_unroll": loop.unroll,
                            "frontend_ops_per_thread": ops,
                        }
                    )
                    print(json.dumps(rows[-1]), flush=True)
    doc = {
        "command": "python benchmarks/survey_triton/ptxas_unroll.py --out " + str(args.out),
        "triton": triton.__version__,
        "target": "cuda sm_90",
        "rows": rows,
    }
    args.out.write_text(json.dumps(doc, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
