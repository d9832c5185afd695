#!/usr/bin/env python3
"""Probe: does a GEMM config's time depend on how hot the GPU is when it is timed?

The autotune sweeps time every config back to back (``do_bench``, 100 ms each), with the GPU at its power
limit; the clocks probe (``clocks.py``) saw tensor-core-bound GEMMs held at 1350-1605 MHz, by config.
This probe times the warps probe's 16 configs (``warps.CASES``, 4096^3 fp16) two ways, each with the SM clock
``nvidia-smi`` reports right after:

* ``cold``: after 2 s idle, 5 launches timed one by one with CUDA events, each after the same 256 MB L2
  flush ``do_bench`` writes;
* ``hot``: after 1 s of back-to-back launches of the same config, ``do_bench`` (warmup 25 ms, rep 100 ms).

Cold and hot orders of the configs that differ say how much of the sweeps' config ranking is the clock.

    python3 benchmarks/ncu_diag/thermal.py > thermal.jsonl
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import warps  # noqa: E402

SIZE = 4096
COLD_IDLE_S, COLD_LAUNCHES, HEAT_S = 2.0, 5, 1.0


def sm_clock_mhz() -> float:
    out = subprocess.run(
        ["nvidia-smi", "--query-gpu=clocks.sm,power.draw", "--format=csv,noheader,nounits"],
        capture_output=True, text=True, timeout=20,
    )  # fmt: skip
    try:
        mhz, watts = (float(x) for x in out.stdout.strip().split(","))
    except ValueError:
        return float("nan")
    return mhz


def main() -> int:
    import statistics

    import torch
    import triton

    from kernels.triton.gemm import matmul

    torch.manual_seed(0)
    a = torch.randn(SIZE, SIZE, device="cuda", dtype=torch.float16)
    b = torch.randn(SIZE, SIZE, device="cuda", dtype=torch.float16)
    flush = torch.empty(256 * 1024 * 1024 // 4, dtype=torch.int32, device="cuda")
    for c in warps.CASES:
        bm, bn, bk, w, s, g = c
        cfg = dict(block_m=bm, block_n=bn, block_k=bk, group_m=g, num_warps=w, num_stages=s)
        matmul(a, b, **cfg)
        torch.cuda.synchronize()
        time.sleep(COLD_IDLE_S)
        times = []
        for _ in range(COLD_LAUNCHES):
            flush.zero_()
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            matmul(a, b, **cfg)
            end.record()
            torch.cuda.synchronize()
            times.append(start.elapsed_time(end) * 1e3)
        cold_mhz = sm_clock_mhz()
        t_end = time.time() + HEAT_S
        while time.time() < t_end:
            for _ in range(20):
                matmul(a, b, **cfg)
            torch.cuda.synchronize()
        hot = triton.testing.do_bench(lambda cfg=cfg: matmul(a, b, **cfg), warmup=25, rep=100)
        hot_mhz = sm_clock_mhz()
        row = {"case": warps.name(c), "size": SIZE, "cold_us": statistics.median(times), "cold_all_us": times,
               "cold_mhz_after": cold_mhz, "hot_us": hot * 1e3, "hot_mhz_after": hot_mhz}  # fmt: skip
        print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
