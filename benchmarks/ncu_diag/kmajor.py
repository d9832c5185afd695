#!/usr/bin/env python3
"""Probe: one GEMM with B row-major and with B K-major (``x @ w.T`` with a ``torch.nn.Linear`` weight).

The survey's plain GEMM ran 16% slower with a column-major B than with a row-major one (265.6 against 232.4
us at 4096^3), with the same SASS loop apart from the shared layout of B (Triton's ``nvmma_shared``
``transposed = true``), which the model prices alike. This probe times both layouts at validation 40's first
shape and, under ncu, reads the SM clock, DRAM bytes, the L2 hit rate and sectors, shared-memory wavefronts
and bank conflicts, the tensor pipe and the warps' stalls, to tell a memory-system effect from a clock one.

    python3 benchmarks/ncu_diag/kmajor.py --time > kmajor_timing.jsonl   # do_bench, p50/p20/p80
    KMAJOR_SET=where python3 benchmarks/ncu_diag/kmajor.py --time        # B in L2, B from DRAM, GROUP_M 1
    KMAJOR_SET=bk python3 benchmarks/ncu_diag/kmajor.py --time           # K steps of 128 beside 64
    ncu ... --metrics ... python3 benchmarks/ncu_diag/kmajor.py           # one launch per case, a marker each

(``run_kmajor.sh`` runs both and writes ``$OUT``.)
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

SHAPE = (4096, 6144, 4096)
# (BLOCK_M, BLOCK_N, BLOCK_K, num_warps, num_stages, GROUP_M)
CONFIGS = (
    (128, 128, 64, 8, 3, 8),
    (128, 128, 32, 4, 4, 8),
    (128, 256, 64, 8, 3, 8),
    (64, 128, 64, 4, 3, 8),
)
# KMAJOR_SET=where: the two configs that lose most, at shapes that keep B in L2 (8192x1024x1024: 2 MB),
# stream it from DRAM (1024x8192x8192: 128 MB, A 16 MB) and the first shape again, with GROUP_M 1 too
WHERE_CONFIGS = ((128, 128, 64, 4, 4, 8), (128, 256, 64, 8, 3, 8), (128, 128, 64, 4, 4, 1))
WHERE_SHAPES = ((4096, 6144, 4096), (8192, 1024, 1024), (1024, 8192, 8192))


# KMAJOR_SET=bk: K steps of 128 (256-byte rows of a K-major B) beside 64 at the first shape
BK_CONFIGS = (
    (128, 128, 128, 8, 3, 8),
    (128, 256, 128, 8, 2, 8),
    (128, 128, 64, 8, 4, 8),
    (128, 128, 128, 4, 3, 8),
)


def cases() -> list[tuple[tuple[int, int, int], tuple[int, ...]]]:
    if os.environ.get("KMAJOR_SET", "") == "where":
        return [(shape, c) for shape in WHERE_SHAPES for c in WHERE_CONFIGS]
    if os.environ.get("KMAJOR_SET", "") == "bk":
        return [(SHAPE, c) for c in BK_CONFIGS]
    return [(SHAPE, c) for c in CONFIGS]


def name(shape: tuple[int, int, int], c: tuple[int, ...], k_major: bool) -> str:
    plain = shape == SHAPE and os.environ.get("KMAJOR_SET", "") not in ("where", "bk")
    prefix = "" if plain else "{}x{}x{}_".format(*shape)
    return prefix + "m{}n{}k{}w{}s{}g{}".format(*c) + ("_kB" if k_major else "_rB")


def main() -> int:
    import torch
    import triton

    from kernels.triton.gemm import matmul

    timing = "--time" in sys.argv
    torch.manual_seed(0)
    tensors: dict[tuple[int, int, int], tuple] = {}
    for shape, c in cases():
        M, N, K = shape
        if shape not in tensors:
            tensors.clear()  # one shape's tensors at a time
            a = torch.randn(M, K, device="cuda", dtype=torch.float16)
            b_row = torch.randn(K, N, device="cuda", dtype=torch.float16)
            b_kmajor = torch.randn(N, K, device="cuda", dtype=torch.float16).t()  # (K, N), strides (1, K)
            tensors[shape] = (a, b_row, b_kmajor)
        a, b_row, b_kmajor = tensors[shape]
        bm, bn, bk, w, s, g = c
        cfg = dict(block_m=bm, block_n=bn, block_k=bk, group_m=g, num_warps=w, num_stages=s)
        for k_major, b in ((False, b_row), (True, b_kmajor)):
            if timing:
                matmul(a, b, **cfg)
                torch.cuda.synchronize()
                run = lambda cfg=cfg, a=a, b=b: matmul(a, b, **cfg)  # noqa: E731
                p50, p20, p80 = triton.testing.do_bench(run, warmup=25, rep=100, quantiles=[0.5, 0.2, 0.8])
                row = {"case": name(shape, c, k_major), "shape": [M, N, K]}
                row |= {"p50_us": p50 * 1e3, "p20_us": p20 * 1e3, "p80_us": p80 * 1e3}
                print(json.dumps(row), flush=True)
            else:
                print(f"NCU_DIAG_CASE {name(shape, c, k_major)}", flush=True)
                for _ in range(2):  # the parser keeps the second launch (warm instruction cache, compiled)
                    matmul(a, b, **cfg)
                torch.cuda.synchronize()
    return 0


if __name__ == "__main__":
    sys.exit(main())
