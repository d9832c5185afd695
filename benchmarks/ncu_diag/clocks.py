#!/usr/bin/env python3
"""Probe: the SM clock and board power each config sustains, GEMMs and attention.

The same 128x128 GEMM tile runs 6-11% slower under do_bench (launches back to back) than under ncu (one
launch at a time) on 8 warps, 1-6% on 4 (``benchmarks/data/ncu_warps``), and the attention probe's kernels
ran at 1.69-1.78 GHz where the profile says 1.98 (``benchmarks/data/ncu_attn_issue``). This probe runs each
config of the warps probe (4096^3 fp16) and of the attention probe back to back for ``SECONDS`` and samples
``nvidia-smi`` meanwhile, so each config's sustained clock and power can be read beside its do_bench time.

    python3 benchmarks/ncu_diag/clocks.py > clocks.jsonl   # one row per config: time, clock, power
    python3 benchmarks/ncu_diag/clocks.py --sfu-mix > clocks_sfu_mix.jsonl  # the sfu_mix probe's kernel (8
        # programs of 4 warps an SM) at 0-12 FMAs an exp2, and the FMA chain alone: whether the mixes'
        # time over the two pipelines' max is the clock they hold
"""

from __future__ import annotations

import functools
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # the warps and attention probes' config lists

SECONDS = float(os.environ.get("CLOCKS_SECONDS", "1.5"))
SKIP_S = 0.3  # the first samples of a config, while the clock settles


class Sampler:
    """``nvidia-smi`` every 20 ms in a thread: (monotonic time, SM MHz, watts)."""

    def __init__(self) -> None:
        self.rows: list[tuple[float, float, float]] = []
        self.proc = subprocess.Popen(
            ["nvidia-smi", "--query-gpu=clocks.sm,power.draw", "--format=csv,noheader,nounits", "-lms", "20"],
            stdout=subprocess.PIPE, text=True,
        )  # fmt: skip
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            parts = [p.strip() for p in line.split(",")]
            try:
                self.rows.append((time.monotonic(), float(parts[0]), float(parts[1])))
            except (ValueError, IndexError):
                continue

    def between(self, t0: float, t1: float) -> tuple[float, float, int]:
        got = [(mhz, w) for t, mhz, w in self.rows if t0 <= t <= t1]
        if not got:
            return float("nan"), float("nan"), 0
        return statistics.median(m for m, _ in got), statistics.median(w for _, w in got), len(got)

    def stop(self) -> None:
        self.proc.terminate()


def sustained(run, sampler: Sampler) -> dict:
    import torch

    run()
    torch.cuda.synchronize()
    start = time.monotonic()
    calls, events = 0, []
    while time.monotonic() - start < SECONDS:
        e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        e0.record()
        for _ in range(10):
            run()
        e1.record()
        events.append((e0, e1))
        calls += 10
        torch.cuda.synchronize()
    end = time.monotonic()
    per_call = sorted(e0.elapsed_time(e1) / 10 * 1e3 for e0, e1 in events)
    mhz, watts, n = sampler.between(start + SKIP_S, end)
    return {
        "calls": calls,
        "p50_us": per_call[len(per_call) // 2],
        "sm_mhz": mhz,
        "watts": watts,
        "samples": n,
    }


SFU_MIX_FMAS = (0, 8, 16, 24, 32, 48)


def sfu_mix_rows(sampler: Sampler) -> None:
    """The sfu_mix probe's kernel at :data:`SFU_MIX_FMAS` (FMAs an unrolled step of four exp2) and the FMA
    chain alone, sustained, one JSON row each."""
    import torch

    from benchmarks.calibrate import kernels as K
    from benchmarks.calibrate import measure as M

    grid = (M.n_sm() * M.COMPUTE_PROGRAMS_PER_SM,)
    x = torch.rand(grid[0] * M.SFU_BLOCK, device="cuda") * 0.5 + 0.5
    out = torch.empty_like(x)
    for fmas in SFU_MIX_FMAS:
        run = functools.partial(
            K.sfu_fma_mix[grid], x, out, M.SFU_ITERS, BLOCK=M.SFU_BLOCK, UNROLL=M.SFU_UNROLL, FMAS=fmas,
            num_warps=4,
        )  # fmt: skip
        row = {"family": "sfu_mix", "case": f"fmas_per_exp2={fmas / 4:g}"} | sustained(run, sampler)
        print(json.dumps(row), flush=True)
    xf = torch.rand(grid[0] * M.FMA_BLOCK, device="cuda") * 0.5 + 0.5
    outf = torch.empty_like(xf)
    run = functools.partial(
        K.fma_chain[grid], xf, outf, M.FMA_ITERS, BLOCK=M.FMA_BLOCK, CHAINS=M.FMA_CHAINS, num_warps=4
    )
    print(json.dumps({"family": "sfu_mix", "case": "fma_chain"} | sustained(run, sampler)), flush=True)


def main() -> int:
    if "--sfu-mix" in sys.argv[1:]:
        sampler = Sampler()
        time.sleep(0.5)
        try:
            sfu_mix_rows(sampler)
        finally:
            sampler.stop()
        return 0
    import attn_issue
    import torch
    import warps

    from kernels.triton.attention import attention
    from kernels.triton.attention_staged import attention_staged
    from kernels.triton.gemm import matmul

    sampler = Sampler()
    time.sleep(0.5)
    try:
        torch.manual_seed(0)
        a = torch.randn(4096, 4096, device="cuda", dtype=torch.float16)
        b = torch.randn(4096, 4096, device="cuda", dtype=torch.float16)
        for c in warps.CASES:
            bm, bn, bk, w, s, g = c
            cfg = dict(block_m=bm, block_n=bn, block_k=bk, group_m=g, num_warps=w, num_stages=s)
            row = {"family": "gemm", "case": warps.name(c), "size": 4096}
            row |= sustained(functools.partial(matmul, a, b, **cfg), sampler)
            print(json.dumps(row), flush=True)
        for c in attn_issue.CASES:
            kernel, causal, d, bm, bn, w, s = c
            shape = (attn_issue.BATCH, attn_issue.HEADS, attn_issue.N_CTX, d)
            q, k, v = (torch.randn(*shape, device="cuda", dtype=torch.float16) for _ in range(3))
            fn = attention if kernel == "loop" else attention_staged
            run = functools.partial(
                fn, q, k, v, causal=causal, block_m=bm, block_n=bn, num_warps=w, num_stages=s
            )
            row = {"family": "attention", "case": attn_issue.name(c)} | sustained(run, sampler)
            print(json.dumps(row), flush=True)
    finally:
        sampler.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
