#!/usr/bin/env python3
"""Probe: what the reference GEMM's load masks cost its K loop (stop 43, a lead for #6).

Stop 42's source-level pass (``kstep_source.py``) found the three-stage 128x128x64 tile's warps spending 61%
of their loop issuing the next stage's copies, stalled on fixed-latency dependencies, where the 128x128x32
tile's spend 31%. In the SASS (Triton's ptxas on the CPU) the reference kernel's K loop computes a predicate
for every ``cp.async`` from its row and K masks: 183 instructions a K step at block_K 64 on 4 warps, 29 of
them ``SEL`` and 24 ``ISETP``, against 128 with neither for the same loop without masks. This probe times the
reference kernel (``kernels/triton/gemm.py::matmul_kernel``) against the same program with every mask
dropped (:func:`matmul_nomask`, valid for shapes that are multiples of the blocks) over the warps probe's
tiles at 4096^3 fp16, alternating the two three times with ``do_bench`` after a second of back-to-back
launches (the sweeps' hot condition), and records each p50 and the SM clock after it.

    python3 benchmarks/ncu_diag/mask_cost.py > mask_cost.jsonl

If the unmasked three-stage 128x128x64 tile gains much more than the others, the loss #6's top-1 misses
show is the warps' address and mask work, which the model does not charge.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import triton
import triton.language as tl

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

SIZE = 4096
HEAT_S = 1.0
ROUNDS = 3
# (BLOCK_M, BLOCK_N, BLOCK_K, num_warps, num_stages, GROUP_M)
CASES = (
    (128, 128, 64, 4, 3, 8),
    (128, 128, 64, 8, 3, 8),
    (128, 128, 32, 4, 4, 8),
    (128, 128, 32, 8, 4, 8),
    (128, 128, 64, 4, 4, 8),
    (128, 256, 64, 8, 3, 8),
    (64, 128, 64, 4, 4, 8),
    (128, 64, 64, 4, 4, 8),
)


@triton.jit
def matmul_nomask(
    a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
):  # fmt: skip
    """``matmul_kernel`` without its load and store masks (M, N and K multiples of the blocks)."""
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    launches_per_group = GROUP_M * tiles_n
    group = pid // launches_per_group
    group_row0 = group * GROUP_M
    rows_here = tl.minimum(tiles_m - group_row0, GROUP_M)
    in_group = pid % launches_per_group
    tile_m = group_row0 + in_group % rows_here
    tile_n = in_group // rows_here
    rows = tile_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tile_n * BLOCK_N + tl.arange(0, BLOCK_N)
    ks = tl.arange(0, BLOCK_K)
    a_tile = a_ptr + rows[:, None] * stride_am + ks[None, :] * stride_ak
    b_tile = b_ptr + ks[:, None] * stride_bk + cols[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for _ in range(0, tl.cdiv(K, BLOCK_K)):
        acc = tl.dot(tl.load(a_tile), tl.load(b_tile), acc)
        a_tile += BLOCK_K * stride_ak
        b_tile += BLOCK_K * stride_bk
    c_tile = c_ptr + rows[:, None] * stride_cm + cols[None, :] * stride_cn
    tl.store(c_tile, acc.to(c_ptr.dtype.element_ty))


def sm_clock_mhz() -> float:
    out = subprocess.run(
        ["nvidia-smi", "--query-gpu=clocks.sm", "--format=csv,noheader,nounits"],
        capture_output=True, text=True, timeout=20,
    )  # fmt: skip
    try:
        return float(out.stdout.strip().splitlines()[0])
    except (ValueError, IndexError):
        return float("nan")


def main() -> int:
    import torch

    from kernels.triton.gemm import matmul_kernel

    torch.manual_seed(0)
    a = torch.randn(SIZE, SIZE, device="cuda", dtype=torch.float16)
    b = torch.randn(SIZE, SIZE, device="cuda", dtype=torch.float16)
    c = torch.empty(SIZE, SIZE, device="cuda", dtype=torch.float16)
    ref = a @ b
    for bm, bn, bk, w, s, g in CASES:
        grid = (triton.cdiv(SIZE, bm) * triton.cdiv(SIZE, bn),)
        meta = dict(BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=g, num_warps=w, num_stages=s)
        launches = {}
        for name, fn in (("masked", matmul_kernel), ("unmasked", matmul_nomask)):

            def launch(fn=fn, grid=grid, meta=meta):
                fn[grid](a, b, c, SIZE, SIZE, SIZE, SIZE, 1, SIZE, 1, SIZE, 1, **meta)

            launch()
            torch.cuda.synchronize()
            err = ((c.float() - ref.float()).abs().max() / ref.float().abs().max()).item()
            launches[name] = (launch, err)
        for rnd in range(ROUNDS):
            for name, (launch, err) in launches.items():
                end = time.time() + HEAT_S
                while time.time() < end:
                    launch()
                torch.cuda.synchronize()
                p50 = triton.testing.do_bench(launch, warmup=25, rep=100, quantiles=[0.5])
                row = {"case": f"m{bm}n{bn}k{bk}w{w}s{s}g{g}", "variant": name, "round": rnd, "size": SIZE,
                       "p50_us": p50 * 1e3, "mhz_after": sm_clock_mhz(), "rel_err": err}  # fmt: skip
                print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
