#!/usr/bin/env python3
"""Probe: what a split-K GEMM's atomic epilogue costs inside the kernel.

Nine of the eleven measured split-K GEMMs (validation 4's six and three more, the survey set ``other``'s
two) are predicted 13-29% fast. Each program sums its share of K and adds its fp32 partial tile into C with
``tl.atomic_add``; the model charges the loop at its pipelines and the atomics at the L2's atomic rate (the
``atomics`` probe). This probe runs each of those configs twice, ``kernels/triton/splitk_gemm.py`` as
measured and with ``ATOMIC=False``, which stores its partial tile with a plain ``tl.store`` (every split
writing the same C: the result is wrong, the time is what the loop and a plain store take). The
difference is the atomics' share of the time, against the model's difference between the two.

    python3 benchmarks/ncu_diag/splitk_atomic.py > splitk_atomic.jsonl              # on the GPU
    python3 benchmarks/ncu_diag/splitk_atomic.py --predict > predicted.json         # on the CPU, first
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import triton

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks" / "triton_sweep"))

from sweep_cases import VALIDATION4_SPLITK  # noqa: E402

from kernels.triton.splitk_gemm import splitk_kernel  # noqa: E402

# (M, N, K, BLOCK_M, BLOCK_N, BLOCK_K, SPLIT_K, num_warps, num_stages): the measured split-K launches,
# validation 4's and later sets' (sweep_cases.splitk_case calls, the survey set ``other``'s two shapes)
CONFIGS = (
    *VALIDATION4_SPLITK,
    (384, 6144, 12288, 64, 128, 64, 4, 4, 3),
    (96, 10240, 8192, 32, 128, 128, 8, 4, 3),
    (256, 4096, 14336, 64, 128, 64, 4, 4, 4),
    (1024, 1024, 8192, 128, 128, 64, 4, 4, 3),
    (512, 2048, 16384, 64, 128, 64, 8, 4, 3),
)


def name(c: tuple[int, ...], atomic: bool) -> str:
    m, n, k, bm, bn, bk, s, w, st = c
    return f"{m}x{n}x{k}/m{bm}n{bn}k{bk}s{s}w{w}st{st}/" + ("atomic" if atomic else "store")


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
        for atomic in (True, False):
            r = tilesight.estimate(
                splitk_kernel, grid(c), a, b, cc, m, n, k, k, n, n, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk,
                SPLIT_K=s, ATOMIC=atomic, num_warps=w, num_stages=st, hw="h200",
            )  # fmt: skip
            out[name(c, atomic)] = r.latency_s * 1e6
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
        for atomic in (True, False):
            args = (a, b, out, m, n, k, a.stride(0), b.stride(0), out.stride(0))
            meta = dict(
                BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, SPLIT_K=s, ATOMIC=atomic, num_warps=w, num_stages=st
            )

            launch = grid(c)

            def run(g=launch, args=args, meta=meta):
                return splitk_kernel[g](*args, **meta)

            compiled = run()
            torch.cuda.synchronize()
            p50, p20, p80 = triton.testing.do_bench(run, warmup=25, rep=100, quantiles=[0.5, 0.2, 0.8])
            row = {"case": name(c, atomic), "p50_us": p50 * 1e3, "p20_us": p20 * 1e3, "p80_us": p80 * 1e3}
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
