#!/usr/bin/env python3
"""Probe: the descriptor attention kernel against its pointer twin at the same configs (stop 65).

At validation 25's shape (2 x 24 x 3072, d 64, fp16) the descriptor kernel (``kernels/triton/
attention_tma.py``, the tutorial's Hopper path: four tensor maps built on the device, K/V copies by TMA behind
mbarriers) runs 5-30% slower than the staged pointer kernel (``kernels/triton/attention_staged.py``, the same
loops with ``cp.async`` copies) at the same config, while the model predicts the two alike (128 x 32 on 8
warps: 406 / 349 us measured, 311 / 312 predicted). This probe times the pairs and, under ncu, reads the
tensor pipe, the issue slots, L2 and DRAM, the SM clock and the warps' stall reasons, to say where the
descriptor kernel's cycles go: the tensor-map setup (a fixed cost a program), the copies' waits (a cost an
iteration) or the tensor cores.

    python3 benchmarks/ncu_diag/tma_attn.py --time > tma_attn_timing.jsonl   # do_bench p50/p20/p80
    ncu ... --metrics ... python3 benchmarks/ncu_diag/tma_attn.py            # two launches a case
    python3 benchmarks/ncu_diag/tma_attn.py --report DIR                     # CPU: the run in DIR

(``run_tma_attn.sh`` runs the first two and writes ``$OUT``.)
"""

from __future__ import annotations

import functools
import json
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

BATCH, HEADS, N_CTX = 2, 24, 3072
# (causal, head_dim, BLOCK_M, BLOCK_N, num_warps, num_stages): each timed with both kernels. The first four
# are the widest gaps of validation 25 (8 warps), then 4-warp and causal controls and one head-dim-128 pair.
CONFIGS = (
    (False, 64, 128, 32, 8, 3),
    (False, 64, 128, 128, 8, 3),
    (False, 64, 64, 64, 8, 3),
    (False, 64, 128, 64, 8, 3),
    (False, 64, 64, 32, 4, 3),
    (False, 64, 128, 64, 4, 3),
    (True, 64, 128, 32, 8, 3),
    (True, 64, 64, 64, 4, 3),
    (False, 128, 128, 64, 8, 3),
)
KERNELS = ("tma", "staged")

# What --report shows of each ncu launch (the ncu names, shortened) and the scale it shows them at
REPORT_METRICS = {
    "gpu__time_duration.sum": "us",
    "sm__cycles_active.avg": "kcycles",
    "sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active": "gmma%",
    "smsp__issue_active.avg.pct_of_peak_sustained_active": "issue%",
    "lts__t_sectors.avg.pct_of_peak_sustained_elapsed": "L2%",
    "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio": "lg_sb",
    "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio": "barrier",
    "smsp__average_warps_issue_stalled_wait_per_issue_active.ratio": "wait",
    "smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio": "math",
    "smsp__average_warps_issue_stalled_sleeping_per_issue_active.ratio": "sleep",
    "smsp__average_warps_issue_stalled_membar_per_issue_active.ratio": "membar",
}
_SCALE = {"gpu__time_duration.sum": 1e-3, "sm__cycles_active.avg": 1e-3}  # ns -> us, cycles -> kcycles


def name(kernel: str, c: tuple) -> str:
    causal, d, bm, bn, w, s = c
    return f"{kernel}-{'causal' if causal else 'full'}/d{d}/m{bm}n{bn}w{w}s{s}"


def pairs(timing: dict[str, float]) -> list[dict]:
    """One row per config: both kernels' do_bench p50 (us; None where not timed) and the descriptor
    kernel's over the pointer kernel's (nan where either is missing)."""
    rows = []
    for c in CONFIGS:
        tma, staged = timing.get(name("tma", c)), timing.get(name("staged", c))
        ratio = tma / staged if tma and staged else math.nan
        rows.append(
            {"config": name("tma", c).split("-", 1)[1], "tma_us": tma, "staged_us": staged, "ratio": ratio}
        )
    return rows


def report(folder: Path) -> int:
    """Print the run in ``folder`` (tma_attn_timing.jsonl, tma_attn_ncu.csv): per config both kernels' p50s
    and their ratio, then each kernel's second ncu launch."""
    from kmajor import ncu_launches

    timing = {r["case"]: r["p50_us"] for r in map(json.loads, (folder / "tma_attn_timing.jsonl").open())}
    csv = folder / "tma_attn_ncu.csv"
    ncu = ncu_launches(csv.read_text()) if csv.exists() else {}
    print(f"{'config':28s} {'tma us':>8s} {'staged us':>9s} {'ratio':>6s}")
    for row in pairs(timing):
        print(f"{row['config']:28s} {row['tma_us'] or math.nan:8.1f} {row['staged_us'] or math.nan:9.1f} "
              f"{row['ratio']:6.3f}")  # fmt: skip
    if ncu:
        print(f"\n{'case':36s} " + " ".join(f"{v:>8s}" for v in REPORT_METRICS.values()))
        for case, metrics in ncu.items():
            shown = [metrics.get(m, math.nan) * _SCALE.get(m, 1.0) for m in REPORT_METRICS]
            print(f"{case:36s} " + " ".join(f"{v:8.2f}" for v in shown))
    return 0


def main() -> int:
    if "--report" in sys.argv:
        return report(Path(sys.argv[sys.argv.index("--report") + 1]))
    import torch
    from kmajor import time_or_mark

    from kernels.triton.attention_staged import attention_staged
    from kernels.triton.attention_tma import attention_tma

    timing = "--time" in sys.argv
    torch.manual_seed(0)
    fns = {"tma": attention_tma, "staged": attention_staged}
    for c in CONFIGS:
        causal, d, bm, bn, w, s = c
        q, k, v = (torch.randn(BATCH, HEADS, N_CTX, d, device="cuda", dtype=torch.float16) for _ in range(3))
        cfg = dict(causal=causal, block_m=bm, block_n=bn, num_warps=w, num_stages=s)
        for kernel in KERNELS:
            time_or_mark(name(kernel, c), functools.partial(fns[kernel], q, k, v, **cfg), timing)
    return 0


if __name__ == "__main__":
    sys.exit(main())
