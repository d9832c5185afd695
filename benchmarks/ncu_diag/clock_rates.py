#!/usr/bin/env python3
"""Probe: is the gap between the profile's two fp16 tensor-core rates the SM clock?

The profile's ``[tensor_core] float16`` (656 TFLOP/s) is cuBLAS's 8192^3 GEMM; ``wgmma_chain_flops_per_s``
(805) and the dot_shapes probe (830-850) are dependent-dot chains on on-chip operands. The clocks probe found
tensor-core-bound GEMMs held at 1350-1605 MHz under sustained load and attention near 1980. This probe runs
both workloads while ``nvidia-smi`` samples the clock: cuBLAS 8192^3 fp16 (``torch.matmul``) sustained for
1.5 s (``clocks.SECONDS``) and under do_bench, and the calibration's dot_shapes chains
(``benchmarks/calibrate/measure.py``), and writes each one's FLOP/s, median SM clock and power, and FLOP/s
per GHz.

    python3 benchmarks/ncu_diag/clock_rates.py > clock_rates.jsonl
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))


def _row(name: str, flops_per_s: float, window: tuple[float, float], sampler, **extra) -> dict:
    mhz, watts, n = sampler.between(*window)
    row = {"case": name, "tflops": flops_per_s / 1e12, "sm_mhz": mhz, "watts": watts, "samples": n}
    row["tflops_per_ghz"] = row["tflops"] / (mhz / 1e3) if n else float("nan")
    return row | extra


def main() -> int:
    import clocks
    import torch
    import triton

    from benchmarks.calibrate import measure as M

    sampler = clocks.Sampler()
    time.sleep(0.5)
    try:
        n = 8192
        a = torch.randn(n, n, device="cuda", dtype=torch.float16)
        b = torch.randn(n, n, device="cuda", dtype=torch.float16)
        flops = 2.0 * n**3
        torch.matmul(a, b)
        torch.cuda.synchronize()
        time.sleep(2.0)  # let the clock recover before the short run
        t0 = time.monotonic()
        ms = triton.testing.do_bench(lambda: torch.matmul(a, b), warmup=25, rep=100)
        t1 = time.monotonic()
        print(json.dumps(_row("cublas_8192_do_bench", flops / (ms * 1e-3), (t0, t1), sampler)), flush=True)
        row = clocks.sustained(lambda: torch.matmul(a, b), sampler)
        now = time.monotonic()
        sustained = _row("cublas_8192_sustained", flops / (row["p50_us"] * 1e-6), (now - 1.5, now), sampler)
        print(json.dumps(sustained), flush=True)
        time.sleep(2.0)
        for shape in M.DOT_SHAPES:
            t0 = time.monotonic()
            got = M.dot_shapes((shape,))
            t1 = time.monotonic()
            for p in got["points"]:
                name = "dot_chain_{BM}x{BN}x{BK}_w{warps}_b{blocks_per_sm}".format(**p)
                print(json.dumps(_row(name, p["flops_per_s"], (t0, t1), sampler)), flush=True)
    finally:
        sampler.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
