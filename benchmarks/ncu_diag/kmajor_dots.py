#!/usr/bin/env python3
"""Probe: is a K-major B slower in the tensor cores or in the loop that loads it?

Validation 40 and ``kmajor.py`` found GEMMs with a K-major B 1.1-1.4x slower than with a row-major one at the
same L2 and shared-memory traffic. Here the operands are loaded once and ``iters`` dependent dots run on them
(the calibration's ``dot_chain``), with B K-major (``b_ptr + n * BK + k``) and row-major
(``b_ptr + k * BN + n``) in shared memory, one block per SM: a gap here is the tensor cores' (the ``wgmma``
reading a K-major B); none, the load loop's.

    python3 benchmarks/ncu_diag/kmajor_dots.py > kmajor_dots.jsonl
"""

from __future__ import annotations

import json
import sys

import torch
import triton
import triton.language as tl

ITERS = 4096
# (BM, BN, BK, num_warps)
SHAPES = ((128, 128, 64, 4), (128, 128, 64, 8), (128, 256, 64, 8), (64, 128, 64, 4))


@triton.jit
def dot_chain_b(
    a_ptr, b_ptr, out_ptr, iters, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, KMAJOR: tl.constexpr
):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a = tl.load(a_ptr + rm[:, None] * BK + rk[None, :])
    if KMAJOR:
        b = tl.load(b_ptr + rn[None, :] * BK + rk[:, None])
    else:
        b = tl.load(b_ptr + rk[:, None] * BN + rn[None, :])
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for _ in range(iters):
        acc = tl.dot(a, b, acc)
    pid = tl.program_id(0)
    tl.store(out_ptr + pid * BM * BN + rm[:, None] * BN + rn[None, :], acc)


def main() -> int:
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    for bm, bn, bk, warps in SHAPES:
        a = torch.randn(bm, bk, device="cuda", dtype=torch.float16) * 0.01
        b = torch.randn(bk * bn, device="cuda", dtype=torch.float16) * 0.01
        out = torch.empty(sms * bm * bn, device="cuda", dtype=torch.float32)
        for kmajor in (False, True):
            meta = dict(BM=bm, BN=bn, BK=bk, KMAJOR=kmajor, num_warps=warps)
            run = lambda a=a, b=b, out=out, meta=meta: dot_chain_b[(sms,)](a, b, out, ITERS, **meta)  # noqa: E731
            run()
            torch.cuda.synchronize()
            p50 = triton.testing.do_bench(run, warmup=25, rep=100, quantiles=[0.5])
            p50 = p50[0] if isinstance(p50, (list, tuple)) else p50
            flops = 2.0 * bm * bn * bk * ITERS * sms
            row = {"bm": bm, "bn": bn, "bk": bk, "warps": warps, "b": "k-major" if kmajor else "row-major"}
            row |= {"p50_us": p50 * 1e3, "tflops": flops / (p50 * 1e-3) / 1e12}
            print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
