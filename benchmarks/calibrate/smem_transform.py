#!/usr/bin/env python3
"""Probe (GPU): what a TileLang ``T.Parallel`` loop from one shared buffer into another costs per thread.

    PYTHONPATH=/tmp/tilelang_site python3 benchmarks/calibrate/smem_transform.py \
        --out $OUT/calibration_smem_transform.json

A ``T.Parallel`` nest that reads shared memory and writes shared memory (a dequantising GEMM's unpacking of
packed weights into its ``T.gemm`` operand) lowers to one unrolled loop per thread of vector iterations:
load a vector from the source buffer, run the element expression, store the vector. Both buffers live in the
one dynamic shared-memory allocation, so the compiler cannot tell a later iteration's load from an earlier
iteration's store and keeps them in order: each vector iteration waits for the previous one's load, ALU chain
and store. This probe measures that: a block loads a tile into shared memory once, then runs ``ITERS`` passes
of one element expression from it into a second shared buffer, one or two blocks per SM; per pass and per
vector iteration of one thread (the unrolled loop's extent, read from the lowered CUDA), the time is the
dependent chain's. Expressions (TileLang picks the vector width: 16 bytes of the widest element, two where an
index is ``j // 2``) vary the chain: integer ops between an int8 load and an int -> half conversion, or
half-precision arithmetic. Geometries vary the elements per thread and the warps per scheduler.

Read by ``benchmarks/calibrate/analysis.py::smem_chain_fields`` into the profile's ``smem_chain_latency_s``,
``alu_latency_s`` and ``cvt_latency_s`` (``python benchmarks/probe_report.py smem`` prints the fit). Needs
TileLang (the carried wheels: ``benchmarks/device/install_wheels.sh``).
"""

from __future__ import annotations

import argparse
import functools
import json
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

ITERS = 256
TARGET = {"kind": "cuda", "arch": "sm_90a"}
# (rows, cols, threads): 32 or 64 output elements per thread, one or two warps per scheduler
GEOMETRIES = ((64, 64, 128), (128, 64, 128), (128, 64, 256), (256, 64, 256))
PER_SM = (1, 2)


# Each expression's vector iteration as the TileLang walker reads it (frontends/tilelang/walker.py::Chain,
# checked against it in tests/benchmarks/calibrate/test_smem_transform.py): (dependent arithmetic ops,
# dependent conversions, arithmetic on 16-bit floats, load and store footprints differ, conversions of fp8
# pairs, conversions from a narrow integer). Runs before 2026-11-30T06:30 also recorded a "chain_ops" total
# per point (packed6's miscounted as 7); the analysis reads this table, not that field.
CHAINS = {
    "packed3": (3, 1, False, True, False, False),
    "packed1": (1, 1, False, True, False, False),
    "packed6": (7, 1, False, True, False, False),
    "int3": (3, 1, False, True, False, False),
    "fp2": (1, 0, True, False, False, False),
    "fp2_pairs": (1, 0, True, True, False, False),
    # measured in a second run (--only cast_i8,cast_f8, calibration_smem_transform_cast.json): 8-bit sources
    # converted to half, then a half add
    "cast_i8": (1, 1, True, True, False, True),
    "cast_f8": (1, 1, True, True, True, False),
}


def _expressions():
    """name -> (source dtype, source columns per output column divisor, element expression)."""
    import tilelang.language as T

    def packed3(s, i, j, it):  # a dequantiser's nibble: shift, mask, subtract, convert
        return T.Cast("float16", ((s[i, j // 2] >> ((j % 2) * 4)) & 15) - (it % 8))

    def packed1(s, i, j, it):  # add, convert
        return T.Cast("float16", s[i, j // 2] + (it % 8))

    def packed6(s, i, j, it):  # seven integer ops, convert
        return T.Cast("float16", ((((((s[i, j // 2] >> ((j % 2) * 4)) & 15) - (it % 8)) * 3) ^ 5) + 1) | 1)

    def int3(s, i, j, it):  # the nibble on a contiguous int8 load: eight lanes per vector
        return T.Cast("float16", ((s[i, j] >> 1) & 15) - (it % 8))

    def fp2(s, i, j, it):  # half arithmetic, eight lanes per vector
        return s[i, j] * T.float16(0.5) + T.Cast("float16", it)

    def fp2_pairs(s, i, j, it):  # half arithmetic, two lanes per vector
        return s[i, j // 2] * T.float16(0.5) + T.Cast("float16", it)

    def cast(s, i, j, it):  # a conversion to half (eight lanes), then a half add
        return T.Cast("float16", s[i, j]) + T.Cast("float16", it)

    return {
        "packed3": ("int8", 2, packed3),
        "packed1": ("int8", 2, packed1),
        "packed6": ("int8", 2, packed6),
        "int3": ("int8", 1, int3),
        "fp2": ("float16", 1, fp2),
        "fp2_pairs": ("float16", 2, fp2_pairs),
        "cast_i8": ("int8", 1, cast),
        "cast_f8": ("float8_e4m3", 1, cast),
    }


def transform(programs: int, rows: int, cols: int, threads: int, in_dtype: str, div: int, expr, iters: int):
    """``iters`` passes of ``out[i, j] = expr(src, i, j, pass)`` between two shared buffers per block."""
    import tilelang.language as T

    in_cols = cols // div

    @T.prim_func
    def main(A: T.Tensor((rows, in_cols), in_dtype), C: T.Tensor((programs * rows, cols), "float16")):
        with T.Kernel(programs, threads=threads) as bx:
            s_in = T.alloc_shared((rows, in_cols), in_dtype)
            s_out = T.alloc_shared((rows, cols), "float16")
            T.copy(A[0, 0], s_in)
            for it in T.serial(iters):
                for i, j in T.Parallel(rows, cols):
                    s_out[i, j] = expr(s_in, i, j, it)
            T.copy(s_out, C[bx * rows, 0])

    return main


# the pass loop's unrolled per-thread loop in the lowered CUDA, and the vector store that ends its body
_UNROLLED = re.compile(r"for \(int it = 0;.*?for \(int (\w+) = 0; \1 < (\d+);", re.S)
_STORE_BYTES = {"uint1": 4, "uint2": 8, "uint4": 16}
_STORE = re.compile(r"\*\((uint1|uint2|uint4)\*\)\(\(\(half_t\*\)s_out\)")


def source_facts(source: str) -> dict:
    """Vector iterations per thread per pass and output lanes per vector, read from the lowered CUDA."""
    loop = _UNROLLED.search(source)
    store = _STORE.search(source)
    lanes = _STORE_BYTES[store.group(1)] // 2 if store else 1
    return {"vec_iters": int(loop.group(2)) if loop else 1, "lanes": lanes}


def points(only: frozenset[str] = frozenset()) -> list[dict]:
    import tilelang
    import torch

    from benchmarks.calibrate.measure import bench_s, n_sm

    out = []
    for name, (in_dtype, div, expr) in _expressions().items():
        if only and name not in only:
            continue
        for rows, cols, threads in GEOMETRIES:
            for per_sm in PER_SM:
                programs = n_sm() * per_sm
                point = {
                    "expr": name,
                    "rows": rows,
                    "cols": cols,
                    "threads": threads,
                    "programs_per_sm": per_sm,
                    "iters": ITERS,
                }
                try:
                    func = transform(programs, rows, cols, threads, in_dtype, div, expr, ITERS)
                    kernel = tilelang.compile(func, target=TARGET)
                    point.update(source_facts(kernel.get_kernel_source()))
                    if in_dtype == "int8":
                        a = torch.randint(-128, 127, (rows, cols // div), device="cuda", dtype=torch.int8)
                    elif in_dtype == "float8_e4m3":
                        a = torch.randn(rows, cols // div, device="cuda").to(torch.float8_e4m3fn)
                    else:
                        a = torch.randn(rows, cols // div, device="cuda", dtype=torch.float16)
                    c = torch.empty(programs * rows, cols, device="cuda", dtype=torch.float16)
                    s = bench_s(functools.partial(kernel, a, c))
                    point["s"] = s
                    point["s_per_vec_iter"] = s / (ITERS * point["vec_iters"])
                except Exception as exc:  # recorded per point, never swallowed
                    point["error"] = f"{type(exc).__name__}: {exc}"[:1500]
                out.append(point)
                print(json.dumps(point), flush=True)
    return out


def main(argv: list[str] | None = None) -> int:
    from benchmarks.calibrate import tilelang_probe

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--only", default="", help="comma-separated expression names (default: all)")
    args = ap.parse_args(argv)
    if not tilelang_probe.gpu_ready():
        return 2
    t0 = time.time()
    pts = points(frozenset(filter(None, args.only.split(","))))
    tilelang_probe.write(
        args.out, {"smem_transform": {"points": pts, "elapsed_s": round(time.time() - t0, 2)}}
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
