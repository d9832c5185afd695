#!/usr/bin/env python3
"""Launch a few reference-kernel cases once each (after a warm-up launch) for an ncu section profile.

Run under ncu by ``run.sh``; on its own it just launches (and prints the case list). The cases are the ones
the engine gets most wrong in ``benchmarks/accuracy.py`` (four-warp attention, L2-bound GEMMs): the point is
to read their stall reasons and pipe utilisation, not to time them (ncu's replay serialises everything).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import torch  # noqa: E402

from kernels.triton.attention import attention  # noqa: E402
from kernels.triton.gemm import matmul  # noqa: E402


def _attn(name: str, d: int, bm: int, bn: int, warps: int, stages: int) -> tuple:
    cfg = dict(block_m=bm, block_n=bn, num_warps=warps, num_stages=stages)
    return (name, "attention", (8, 16, 2048, d), cfg)


def _gemm(name: str, bm: int, bn: int, bk: int, group_m: int, warps: int, stages: int) -> tuple:
    cfg = dict(block_m=bm, block_n=bn, block_k=bk, group_m=group_m, num_warps=warps, num_stages=stages)
    return (name, "gemm", (4096, 4096, 4096), cfg)


# (name, kind, shape, config)
CASES = (
    _attn("attn_d64_n2048_m64n64w4s2", 64, 64, 64, 4, 2),
    _attn("attn_d64_n2048_m128n64w4s3", 64, 128, 64, 4, 3),
    _attn("attn_d64_n2048_m128n64w8s4", 64, 128, 64, 8, 4),
    _attn("attn_d64_n2048_m128n128w8s2", 64, 128, 128, 8, 2),
    _attn("attn_d128_n2048_m64n64w4s2", 128, 64, 64, 4, 2),
    _gemm("gemm_4096_m64n64k64w4s3g1", 64, 64, 64, 1, 4, 3),
    _gemm("gemm_4096_m64n128k64w4s3g8", 64, 128, 64, 8, 4, 3),
    _gemm("gemm_4096_m16n128k64w4s4g1", 16, 128, 64, 1, 4, 4),
    _gemm("gemm_4096_m128n256k64w8s2g1", 128, 256, 64, 1, 8, 2),
)


def launch(kind: str, shape: tuple, cfg: dict) -> None:
    if kind == "attention":
        q, k, v = (torch.randn(shape, device="cuda", dtype=torch.float16) for _ in range(3))
        for _ in range(2):
            attention(q, k, v, causal=False, **cfg)
    else:
        m, n, kk = shape
        a = torch.randn(m, kk, device="cuda", dtype=torch.float16)
        b = torch.randn(kk, n, device="cuda", dtype=torch.float16)
        for _ in range(2):
            matmul(a, b, **cfg)
    torch.cuda.synchronize()


def main() -> int:
    for name, kind, shape, cfg in CASES:
        print(f"NCU_DIAG_CASE {name}", flush=True)
        launch(kind, shape, cfg)
    return 0


if __name__ == "__main__":
    sys.exit(main())
