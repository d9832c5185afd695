#!/usr/bin/env python3
"""Probe: what a block-wide reduction costs an SM's issue slots, by warps and elements a thread.

Validation 28's row-striding softmax on 1024-wide rows runs 1.3-2.2x slower than predicted on 8 and 16 warps
and does not speed up with more rows in flight, while the one-program-per-row kernels of the main set are
predicted well. The model prices a ``tl.max`` / ``tl.sum`` of ``n`` elements at ``n`` element operations;
Triton lowers it (ReduceOpToLLVM) to each thread's serial folds (``elements a thread - 1``), a butterfly of
``log2(32)`` shuffle rounds inside every warp and, where warps split the row, ``log2(warps)`` more after a
trip through shared memory, which every thread of the block runs. This probe times that work at full
occupancy, where issue throughput, not one chain's latency, sets the time.

Each program loads one row of ``BLOCK`` fp32 values into registers, then runs ``R`` dependent steps
``x = x * a - max(x) * b`` (``max``), ``x = x * a - sum(x) * b`` (``sum``) or ``x = x * a - b`` (``control``:
the same element work without the reduction) and stores the row. Grids hold 132 x as many programs as fit
on an SM (2048 threads, 32 blocks), so the SM interleaves many programs and the time per step and SM
measures issue throughput. Per warps in 1, 2, 4, 8, 16 and elements a thread in 1, 2, 4, 8, 16, 32: SM
time per reduction = (max or sum - control) / (R x programs per SM).

    python3 benchmarks/ncu_diag/reduce_issue.py > reduce_issue.jsonl   # one row per launch
"""

from __future__ import annotations

import json
import sys

import torch
import triton
import triton.language as tl

SMS = 132
THREADS_PER_SM = 2048  # Hopper's resident threads per SM
BLOCKS_PER_SM = 32  # and blocks
STEPS = 256
WARPS = (1, 2, 4, 8, 16)
PER_THREAD = (1, 2, 4, 8, 16, 32)


@triton.jit
def reduce_steps(x_ptr, y_ptr, a, b, STEPS: tl.constexpr, BLOCK: tl.constexpr, REDUCE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    for _ in range(STEPS):
        if REDUCE == 1:
            x = x * a - tl.max(x, axis=0) * b
        elif REDUCE == 2:
            x = x * a - tl.sum(x, axis=0) * b
        else:
            x = x * a - b
    tl.store(y_ptr + offs, x)


def main() -> int:
    out = sys.stdout
    for warps in WARPS:
        threads = 32 * warps
        programs_per_sm = min(THREADS_PER_SM // threads, BLOCKS_PER_SM)
        grid = (SMS * programs_per_sm,)
        for per_thread in PER_THREAD:
            block = threads * per_thread
            if block > 65536:
                continue
            x = torch.randn(grid[0] * block, device="cuda", dtype=torch.float32)
            y = torch.empty_like(x)
            row = {"warps": warps, "per_thread": per_thread, "block": block, "programs": grid[0]}
            for reduce in (1, 2, 0):
                meta = dict(STEPS=STEPS, BLOCK=block, REDUCE=reduce, num_warps=warps)

                def fn(grid=grid, x=x, y=y, meta=meta):
                    reduce_steps[grid](x, y, 0.999, 0.001, **meta)

                fn()
                torch.cuda.synchronize()
                p50, p20, p80 = triton.testing.do_bench(fn, warmup=25, rep=100, quantiles=[0.5, 0.2, 0.8])
                kernel = reduce_steps.warmup(x, y, 0.999, 0.001, grid=grid, **meta)
                key = ("control", "max", "sum")[reduce]
                row[f"{key}_us"] = p50 * 1e3
                row[f"{key}_p20_us"] = p20 * 1e3
                row[f"{key}_p80_us"] = p80 * 1e3
                row[f"{key}_regs"] = kernel.n_regs
                row[f"{key}_spills"] = kernel.n_spills
            steps_per_sm = STEPS * programs_per_sm
            for op in ("max", "sum"):
                row[f"sm_ns_per_{op}"] = (row[f"{op}_us"] - row["control_us"]) * 1e3 / steps_per_sm
            out.write(json.dumps(row) + "\n")
            out.flush()
    meta = {
        "meta": True,
        "gpu": torch.cuda.get_device_name(),
        "triton": triton.__version__,
        "torch": torch.__version__,
        "steps": STEPS,
        "command": "python3 benchmarks/ncu_diag/reduce_issue.py",
    }
    out.write(json.dumps(meta) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
