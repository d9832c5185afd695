#!/usr/bin/env python3
"""Probe: where an attention iteration's time goes when its CUDA-core work is heavy.

Pooled over every committed attention launch, measured / predicted rises with the model's CUDA-core
utilisation: 0.93 at 0.2, 1.01 at 0.4, 1.11 at 0.6, 1.21 at 0.7, 1.27 at 0.8 (the model overlaps CUDA-core
work with the tensor cores and the SFU across resident blocks). The SASS of these loops (compiled on CPU)
carries about as many CUDA-core instructions as the model counts, so the question is the overlap. This probe
times twelve configs of the two attention kernels at validation 22's shape (3 x 28 x 1664, fp16) that span
that range and, under ncu, reads the issue slots, the FMA / ALU / XU (SFU) pipes, the tensor pipe's warp
instructions, the SM clock and the warps' stall reasons.

    python3 benchmarks/ncu_diag/attn_issue.py --time > attn_issue_timing.jsonl   # do_bench p50/p20/p80
    ncu ... --metrics ... python3 benchmarks/ncu_diag/attn_issue.py              # one marker per case

(``run_attn_issue.sh`` runs both and writes ``$OUT``.)
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

BATCH, HEADS, N_CTX = 3, 28, 1664
# (kernel, causal, head_dim, BLOCK_M, BLOCK_N, num_warps, num_stages); kernel "loop" is
# kernels/triton/attention.py (masks every step), "staged" kernels/triton/attention_staged.py
CASES = (
    ("loop", True, 64, 64, 64, 8, 3),
    ("loop", True, 64, 64, 32, 4, 3),
    ("loop", True, 64, 128, 64, 8, 3),
    ("loop", True, 128, 64, 64, 4, 3),
    ("loop", False, 64, 64, 64, 4, 3),
    ("loop", False, 64, 128, 32, 4, 3),
    ("loop", False, 64, 128, 64, 4, 3),
    ("loop", False, 64, 64, 32, 8, 3),
    ("staged", False, 64, 128, 64, 8, 3),
    ("staged", False, 64, 64, 32, 4, 3),
    ("staged", True, 64, 64, 64, 4, 3),
    ("staged", False, 128, 128, 128, 8, 3),
)


def name(c: tuple) -> str:
    kernel, causal, d, bm, bn, w, s = c
    kind = ("staged-" if kernel == "staged" else "") + ("causal" if causal else "full")
    return f"{kind}/d{d}/m{bm}n{bn}w{w}s{s}"


def main() -> int:
    import torch
    from kmajor import time_or_mark

    from kernels.triton.attention import attention
    from kernels.triton.attention_staged import attention_staged

    timing = "--time" in sys.argv
    torch.manual_seed(0)
    for c in CASES:
        kernel, causal, d, bm, bn, w, s = c
        q, k, v = (torch.randn(BATCH, HEADS, N_CTX, d, device="cuda", dtype=torch.float16) for _ in range(3))
        fn = attention if kernel == "loop" else attention_staged
        cfg = dict(causal=causal, block_m=bm, block_n=bn, num_warps=w, num_stages=s)
        time_or_mark(name(c), functools.partial(fn, q, k, v, **cfg), timing)
    return 0


if __name__ == "__main__":
    sys.exit(main())
