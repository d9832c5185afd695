#!/usr/bin/env python3
"""Probe: what a split-K GEMM's atomic epilogue costs inside the kernel.

Nine of the eleven measured split-K GEMMs (validation 4's six and three more, the survey set ``other``'s
two) are predicted 13-29% fast. Each program sums its share of K and adds its fp32 partial tile into C with
``tl.atomic_add``; the model charges the loop at its pipelines and the atomics at the L2's atomic rate (the
``atomics`` probe). This probe runs each of those configs twice, the kernel as measured (``EPILOGUE=0``,
``kernels/triton/splitk_gemm.py``'s loop and atomic add) and the same kernel storing its partial tile with a
plain ``tl.store`` (``EPILOGUE=1``, every split writing the same C: the result is wrong, the time is what
the loop and a plain store take). The difference is the atomics' share of the time, against the model's
difference between the two.

    python3 benchmarks/ncu_diag/splitk_atomic.py > splitk_atomic.jsonl              # on the GPU
    python3 benchmarks/ncu_diag/splitk_atomic.py --predict > predicted.json         # on the CPU, first
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import triton
import triton.language as tl

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

# (M, N, K, BLOCK_M, BLOCK_N, BLOCK_K, SPLIT_K, num_warps, num_stages): the measured split-K launches
CONFIGS = (
    (256, 4096, 8192, 64, 128, 64, 4, 4, 3),
    (256, 4096, 8192, 128, 128, 64, 8, 8, 3),
    (64, 8192, 14336, 64, 128, 128, 4, 4, 3),
    (512, 5120, 5120, 128, 128, 64, 2, 8, 4),
    (128, 11008, 4096, 64, 256, 64, 4, 8, 3),
    (1024, 1024, 16384, 128, 128, 64, 16, 8, 3),
    (384, 6144, 12288, 64, 128, 64, 4, 4, 3),
    (96, 10240, 8192, 32, 128, 128, 8, 4, 3),
    (256, 4096, 14336, 64, 128, 64, 4, 4, 4),
    (1024, 1024, 8192, 128, 128, 64, 4, 4, 3),
    (512, 2048, 16384, 64, 128, 64, 8, 4, 3),
)


@triton.jit
def splitk_probe(
    a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, SPLIT_K: tl.constexpr,
    EPILOGUE: tl.constexpr,
):  # fmt: skip
    pid = tl.program_id(0)
    split = tl.program_id(1)
    tiles_n = tl.cdiv(N, BLOCK_N)
    rows = (pid // tiles_n) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = (pid % tiles_n) * BLOCK_N + tl.arange(0, BLOCK_N)
    ks = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(split * BLOCK_K, K, BLOCK_K * SPLIT_K):
        a = tl.load(a_ptr + rows[:, None] * stride_am + (k + ks)[None, :], mask=rows[:, None] < M, other=0.0)
        b = tl.load(b_ptr + (k + ks)[:, None] * stride_bk + cols[None, :], mask=cols[None, :] < N, other=0.0)
        acc = tl.dot(a, b, acc)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    if EPILOGUE == 0:
        tl.atomic_add(c_ptr + rows[:, None] * stride_cm + cols[None, :], acc, mask=mask)
    else:
        tl.store(c_ptr + rows[:, None] * stride_cm + cols[None, :], acc, mask=mask)


def name(c: tuple[int, ...], epilogue: int) -> str:
    m, n, k, bm, bn, bk, s, w, st = c
    return f"{m}x{n}x{k}/m{bm}n{bn}k{bk}s{s}w{w}st{st}/" + ("atomic" if epilogue == 0 else "store")


def grid(c: tuple[int, ...]) -> tuple[int, int]:
    m, n, _, bm, bn, _, s, _, _ = c
    return (triton.cdiv(m, bm) * triton.cdiv(n, bn), s)


def predict() -> int:
    import tilesight
    from tilesight import TensorSpec

    out = {}
    for c in CONFIGS:
        m, n, k, bm, bn, bk, s, w, st = c
        a, b, cc = TensorSpec((m, k), "float16"), TensorSpec((k, n), "float16"), TensorSpec((m, n), "float32")
        for epilogue in (0, 1):
            r = tilesight.estimate(
                splitk_probe, grid(c), a, b, cc, m, n, k, k, n, n, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk,
                SPLIT_K=s, EPILOGUE=epilogue, num_warps=w, num_stages=st, hw="h200",
            )  # fmt: skip
            out[name(c, epilogue)] = r.latency_s * 1e6
    print(
        json.dumps(
            {"command": "python3 benchmarks/ncu_diag/splitk_atomic.py --predict", "predicted_us": out},
            indent=1,
        )
    )
    return 0


def main() -> int:
    if "--predict" in sys.argv:
        return predict()
    import torch

    torch.manual_seed(0)
    for c in CONFIGS:
        m, n, k, bm, bn, bk, s, w, st = c
        a = torch.randn(m, k, device="cuda", dtype=torch.float16)
        b = torch.randn(k, n, device="cuda", dtype=torch.float16)
        out = torch.zeros(m, n, device="cuda", dtype=torch.float32)
        for epilogue in (0, 1):
            args = (a, b, out, m, n, k, a.stride(0), b.stride(0), out.stride(0))
            meta = dict(
                BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, SPLIT_K=s, EPILOGUE=epilogue, num_warps=w, num_stages=st
            )

            launch = grid(c)

            def run(g=launch, args=args, meta=meta):
                return splitk_probe[g](*args, **meta)

            compiled = run()
            torch.cuda.synchronize()
            p50, p20, p80 = triton.testing.do_bench(run, warmup=25, rep=100, quantiles=[0.5, 0.2, 0.8])
            row = {"case": name(c, epilogue), "p50_us": p50 * 1e3, "p20_us": p20 * 1e3, "p80_us": p80 * 1e3}
            row |= {
                "n_regs": compiled.n_regs,
                "n_spills": compiled.n_spills,
                "shared": compiled.metadata.shared,
            }
            print(json.dumps(row), flush=True)
        del a, b, out
    return 0


if __name__ == "__main__":
    sys.exit(main())
