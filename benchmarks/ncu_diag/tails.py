#!/usr/bin/env python3
"""Probe: what the last partial wave of a GEMM costs, at one and at two resident blocks per SM.

The model lets a tail block start ``(p - 1)`` steady intervals before the full waves end
(``tilesight.model.evaluate.tail_overlap``): it assumes the ``p`` blocks resident on an SM finish one after
another. Blocks of one GEMM start together and share the SM evenly, so they may instead finish together, and a
tail block then runs alone after them. The 128x128 tiles that run two blocks an SM are predicted 8-20% fast
at 3 stages, and the sweeps cannot tell a tail effect from a steady-state one. This probe can: each config
runs grids of ``24 x rows`` tiles (``N = 24 BLOCK_N``, ``M = rows BLOCK_M``, ``K = 4096``) for rows = 2 (48
lone blocks), 11 (264: one full wave of two blocks an SM), 22 (528), 23 (552), 24 (576) and 33 (792). At two
blocks an SM the steps 528 -> 552 -> 576 are what 24 and 48 tail blocks add after two full waves;
``T(48 tiles)`` is what one tile costs alone. The one-block configs are controls (their tails are whole
waves).

    python3 benchmarks/ncu_diag/tails.py > tails.jsonl              # on the GPU: one row per launch
    python3 benchmarks/ncu_diag/tails.py --predict > predicted.json  # on the CPU: the model's times, first
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

K = 4096
TILE_COLUMNS = 24
ROWS = (2, 11, 22, 23, 24, 33)
# (BLOCK_M, BLOCK_N, BLOCK_K, num_warps, num_stages, GROUP_M)
CONFIGS = (
    (128, 128, 64, 8, 3, 8),  # two blocks an SM (shared memory)
    (128, 128, 64, 4, 3, 8),  # two blocks an SM (shared memory and registers)
    (128, 128, 32, 4, 4, 8),  # two blocks an SM (registers)
    (128, 128, 32, 8, 4, 8),  # two blocks an SM (registers), three by shared memory
    (128, 128, 64, 8, 4, 8),  # one block an SM: control
    (128, 256, 64, 8, 3, 8),  # one block an SM: control
)


def name(c: tuple[int, ...], rows: int) -> str:
    return "m{}n{}k{}w{}s{}g{}".format(*c) + f"/tiles{rows * TILE_COLUMNS}"


def shape(c: tuple[int, ...], rows: int) -> tuple[int, int, int]:
    return rows * c[0], TILE_COLUMNS * c[1], K


def predict() -> int:
    import tilesight
    from kernels.triton.gemm import matmul_kernel
    from tilesight import TensorSpec

    out = {}
    for c in CONFIGS:
        bm, bn, bk, w, s, g = c
        for rows in ROWS:
            M, N, KK = shape(c, rows)
            a, b = TensorSpec((M, KK), "float16"), TensorSpec((KK, N), "float16")
            cc = TensorSpec((M, N), "float16")
            r = tilesight.estimate(
                matmul_kernel, (rows * TILE_COLUMNS,), a, b, cc, M, N, KK, KK, 1, N, 1, N, 1,
                BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=g, num_warps=w, num_stages=s, hw="h200",
            )  # fmt: skip
            out[name(c, rows)] = r.latency_s * 1e6
    command = "python3 benchmarks/ncu_diag/tails.py --predict"
    print(json.dumps({"command": command, "predicted_us": out}, indent=1))
    return 0


def main() -> int:
    if "--predict" in sys.argv:
        return predict()
    import torch
    import triton

    from kernels.triton.gemm import matmul_kernel

    torch.manual_seed(0)
    for c in CONFIGS:
        bm, bn, bk, w, s, g = c
        for rows in ROWS:
            M, N, KK = shape(c, rows)
            a = torch.randn(M, KK, device="cuda", dtype=torch.float16)
            b = torch.randn(KK, N, device="cuda", dtype=torch.float16)
            out = torch.empty(M, N, device="cuda", dtype=torch.float16)

            meta = dict(BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=g, num_warps=w, num_stages=s)

            def run(a=a, b=b, out=out, M=M, N=N, KK=KK, rows=rows, meta=meta):
                return matmul_kernel[(rows * TILE_COLUMNS,)](
                    a, b, out, M, N, KK, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                    out.stride(0), out.stride(1), **meta,
                )  # fmt: skip

            compiled = run()
            torch.cuda.synchronize()
            ref = (a[:64].float() @ b[:, :64].float()).half()
            err = float((out[:64, :64].float() - ref.float()).abs().max())
            p50, p20, p80 = triton.testing.do_bench(run, warmup=25, rep=100, quantiles=[0.5, 0.2, 0.8])
            row = {"case": name(c, rows), "M": M, "N": N, "K": KK, "tiles": rows * TILE_COLUMNS}
            row |= {"p50_us": p50 * 1e3, "p20_us": p20 * 1e3, "p80_us": p80 * 1e3, "max_abs_err": err}
            row |= {"n_regs": compiled.n_regs, "n_spills": compiled.n_spills}
            row |= {"shared": compiled.metadata.shared}
            print(json.dumps(row), flush=True)
            del a, b, out
    return 0


if __name__ == "__main__":
    sys.exit(main())
