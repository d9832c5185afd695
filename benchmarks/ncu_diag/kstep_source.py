#!/usr/bin/env python3
"""Rescore the source-level pass of ``run_kstep_source.sh`` on CPU: where the GEMM loop's warps stall.

    python benchmarks/ncu_diag/kstep_source.py benchmarks/data/ncu_warps/kstep

``kstep_source.csv`` is ncu's source page (``--page source --csv --print-source sass``) of the stages probe's
128x128 GEMM tile at three configs, two launches each (the second of each case is read). For each, the main
loop (the longest backward branch) and the share of its warp-state samples that sit

* at ``WARPGROUP.DEPBAR`` (the warps wait for their previous wgmma group: the tensor cores are busy),
* at the ``HGMMA`` instructions (issuing the group),
* at the ``LDGSTS`` copies and the address and predicate arithmetic between them (issuing the next stage),
* on a block barrier (``barrier`` samples anywhere else),
* on the data (``long_sb`` samples at the two instructions after ``DEPBAR.LE SB0``, the wait for a stage),

and the stall reasons of the whole loop. ``kstep_smem.csv`` (the shared-memory pass) is printed beside:
cycles, HGMMA and LDGSTS shared-memory bank conflicts.
"""

from __future__ import annotations

import csv
import io
import re
import sys
from collections import Counter
from pathlib import Path

CASES = ("m128n128k64w4s3g8", "m128n128k32w4s4g8", "m128n128k64w8s3g8")  # WARPS_ONLY's order in the run
SAMPLES = "Warp Stall Sampling (All Samples)"
_KERNEL = re.compile(r'^"Kernel Name","[^"]*",\s*$', re.M)
_BRANCH = re.compile(r"BRA (0x[0-9a-f]+)")


def kernels(text: str) -> list[list[dict[str, str]]]:
    """Each profiled launch's rows of the source page, in launch order."""
    parts = [p.strip() for p in _KERNEL.split(text) if p.strip()]
    return [list(csv.DictReader(io.StringIO(p))) for p in parts]


def main_loop(rows: list[dict[str, str]]) -> list[dict[str, str]]:
    """The rows of the longest loop: from a backward branch's target to the branch."""
    where = {int(r["Address"], 16): i for i, r in enumerate(rows)}
    best = (0, -1)
    for i, r in enumerate(rows):
        m = _BRANCH.search(r["Source"])
        if m and (j := where.get(int(m.group(1), 16))) is not None and j < i and i - j > best[1] - best[0]:
            best = (j, i)
    return rows[best[0] : best[1] + 1]


def n(r: dict[str, str], col: str) -> int:
    return int((r.get(col) or "0").replace(",", "") or 0)


def shares(loop: list[dict[str, str]]) -> dict[str, float]:
    total = sum(n(r, SAMPLES) for r in loop) or 1
    out = Counter()
    after_depbar = 0
    for r in loop:
        src = r["Source"].strip()
        s = n(r, SAMPLES)
        if after_depbar:
            out["data wait"] += n(r, "stall_long_sb")
            after_depbar -= 1
        if "DEPBAR.LE SB0" in src:
            after_depbar = 2
        if "WARPGROUP.DEPBAR" in src:
            out["tc wait"] += s
        elif "HGMMA" in src or "WARPGROUP.ARRIVE" in src:
            out["hgmma issue"] += s
        else:
            out["barrier"] += n(r, "stall_barrier")
    ldg = [i for i, r in enumerate(loop) if "LDGSTS" in r["Source"]]
    if ldg:  # the copies' issue: from the first copy to the last, less the barrier samples in between
        span = loop[ldg[0] : ldg[-1] + 1]
        out["copies issue"] = sum(n(r, SAMPLES) - n(r, "stall_barrier") for r in span)
    return {k: v / total for k, v in out.items()}


def reasons(loop: list[dict[str, str]]) -> dict[str, float]:
    cols = [c for c in loop[0] if c.startswith("stall_") and "Not Issued" not in c]
    total = sum(n(r, SAMPLES) for r in loop) or 1
    return {c[6:]: sum(n(r, c) for r in loop) / total for c in cols}


def report(folder: Path) -> int:
    launches = kernels((folder / "kstep_source.csv").read_text())
    if len(launches) != 2 * len(CASES):
        expected = 2 * len(CASES)
        print(f"{folder}/kstep_source.csv: {len(launches)} launches, expected {expected}", file=sys.stderr)
        return 1
    cols = ("tc wait", "hgmma issue", "copies issue", "barrier", "data wait")
    header = " ".join(f"{c:>12s}" for c in cols)
    print(f"{'case':20s} {'instr':>5s} {header}   top stall reasons (loop)")
    for i, case in enumerate(CASES):
        loop = main_loop(launches[2 * i + 1])
        sh = shares(loop)
        top = sorted(reasons(loop).items(), key=lambda kv: -kv[1])[:4]
        print(
            f"{case:20s} {len(loop):5d} "
            + " ".join(f"{100 * sh.get(c, 0.0):11.1f}%" for c in cols)
            + "   "
            + ", ".join(f"{k} {100 * v:.0f}%" for k, v in top)
        )
    smem = folder / "kstep_smem.csv"
    if smem.exists():
        from kmajor import ncu_launches  # the two-launch CSV reader of the stages probe

        print("\nshared-memory pass (second launch of each stages case):")
        names = (
            "sm__cycles_active.avg",
            "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_gmma.sum",
            "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum",
            "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_gmma.sum",
        )
        print(f"{'case':20s} {'kcycles':>9s} {'gmma confl':>11s} {'ldgsts confl':>13s} {'gmma wavefr':>12s}")
        for case, metrics in ncu_launches(smem.read_text()).items():
            vals = [metrics.get(m, float("nan")) for m in names]
            print(f"{case:20s} {vals[0] / 1e3:9.1f} {vals[1]:11.0f} {vals[2]:13.0f} {vals[3]:12.0f}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    sys.exit(report(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("benchmarks/data/ncu_warps/kstep")))
