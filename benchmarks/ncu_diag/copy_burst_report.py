#!/usr/bin/env python3
"""Rescore the copy-burst probe (``copy_burst.cu``) on CPU: what issuing asynchronous copies costs a warp.

    python benchmarks/ncu_diag/copy_burst_report.py [benchmarks/data/ncu_warps/copy_burst/copy_burst.jsonl]

Each row of the run is a (threads, blocks an SM, burst bytes, row bytes, depth) point with the mean clock64
cycles a warp took to issue a round's ``depth`` bursts (``issue_cycles``) and the whole round. A burst is
``burst / (16 x threads)`` cp.async instructions a thread and one commit group, so for each (threads, blocks
an SM) the issue time is fitted, by least squares over the points, as ``a + f x (depth - 1) + c x copies``
with ``copies`` the instructions a thread issued in the round: ``c`` the cycles one more copy instruction
costs a warp, ``f`` what one more commit group costs, ``a`` the first group's fixed part (with the clock
reads). Warps a scheduler: ``threads / 128 x blocks``. The effective clock is the round cycles over the
launch's time (launch overhead included) on the longest launches.
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

ROUNDS = 64  # copy_burst.cu's rounds a launch


def fit(rows: list[dict]) -> tuple[float, float, float, float]:
    """(a, f, c, rms residual) of issue_cycles ~ a + f (depth - 1) + c copies (module docstring)."""
    x = np.array([[1.0, r["depth"] - 1, r["depth"] * r["burst_bytes"] / (16 * r["threads"])] for r in rows])
    y = np.array([r["issue_cycles"] for r in rows])
    coef, *_ = np.linalg.lstsq(x, y, rcond=None)
    resid = float(np.sqrt(np.mean((x @ coef - y) ** 2)))
    return float(coef[0]), float(coef[1]), float(coef[2]), resid


def main() -> int:
    path = (
        Path(sys.argv[1])
        if len(sys.argv) > 1
        else Path("benchmarks/data/ncu_warps/copy_burst/copy_burst.jsonl")
    )
    rows = [json.loads(line) for line in path.open()]
    groups: dict[tuple[int, int], list[dict]] = defaultdict(list)
    for r in rows:
        groups[(r["threads"], r["blocks_per_sm"])].append(r)
    head = ("threads", "blocks/SM", "warps/sched", "a", "f (group)", "c (copy)", "rms")
    print(" ".join(f"{h:>{w}}" for h, w in zip(head, (7, 9, 11, 7, 10, 9, 6), strict=True)))
    for (threads, blocks), pts in sorted(groups.items()):
        a, f, c, rms = fit(pts)
        print(
            f"{threads:7d} {blocks:9d} {threads // 128 * blocks:11d} {a:7.0f} {f:10.0f} {c:9.1f} {rms:6.0f}"
        )
    long = sorted(rows, key=lambda r: -r["ms"])[:20]
    clocks = [r["round_cycles"] * ROUNDS / (r["ms"] * 1e6) for r in long]
    print(f"effective clock over the 20 longest launches: {np.median(clocks):.2f} GHz "
          f"({min(clocks):.2f}-{max(clocks):.2f}; launch overhead included)")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
