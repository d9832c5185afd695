#!/usr/bin/env python3
r"""Score the serving sweep's predictions, recorded before measuring, against GPU timings (CPU only).

    python benchmarks/robustness/serving/score.py \
        --predicted benchmarks/data/robustness/serving_results.json \
        --measured benchmarks/data/robustness/serving_h200.jsonl

Each predicted case's ``latency_us`` (``run.py``) is set against its measured p50 (``measure.py``), next to
the case's floor ``bound_us`` (its ideal bytes at the profile's DRAM rate or its flops at the tensor-core
rate, whichever is longer: a roofline on the same case). Per family (attention, GEMM, memory) the mean
absolute percentage error of both; cases refused, not run or failing on the GPU are listed apart.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

# Case-name parts that say a launch's family (the first that matches); everything else is memory-bound work.
FAMILIES = (
    ("reduce_segments", "memory"),
    ("stage2", "memory"),
    ("merge_attn", "memory"),
    ("decode", "attention"),
    ("unified", "attention"),
    ("prefill", "attention"),
    ("paged", "attention"),
    ("moe", "gemm"),
    ("_mm_", "gemm"),
    ("lora", "gemm"),
)


def family(name: str) -> str:
    return next((fam for part, fam in FAMILIES if part in name), "memory")


def score(predicted: dict, measured: list[dict]) -> tuple[list[dict], list[str]]:
    """Rows of (case, family, measured, predicted, floor) for every case predicted and timed; and a line
    for each case that is not (refused, failing on the GPU, not measured)."""
    by_case = {r["case"]: r for r in predicted["records"]}
    rows, apart = [], []
    for m in measured:
        name = m["case"]
        p = by_case.get(name)
        if p is None:
            apart.append(f"{name}: not in the predictions")
        elif m.get("status") != "ok":
            apart.append(f"{name}: not timed on the GPU ({m.get('error', '')[:120]})")
        elif p.get("outcome") != "predicted":
            apart.append(f"{name}: {p.get('outcome')} ({str(p.get('error', ''))[:120]})")
        else:
            rows.append(
                {
                    "case": name,
                    "family": family(name),
                    "measured_us": m["p50_us"],
                    "predicted_us": p["latency_us"],
                    "floor_us": p["bound_us"],
                    "bottleneck": p.get("bottleneck", ""),
                }
            )
    return rows, apart


def _mape(rows: list[dict], key: str) -> float:
    return 100.0 * sum(abs(r[key] / r["measured_us"] - 1.0) for r in rows) / len(rows)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--predicted", type=Path, required=True, help="run.py's results (recorded before)")
    ap.add_argument("--measured", type=Path, required=True, help="measure.py's timings (JSON lines)")
    args = ap.parse_args()
    predicted = json.loads(args.predicted.read_text())
    measured = [json.loads(x) for x in args.measured.read_text().splitlines() if x.strip()]
    rows, apart = score(predicted, measured)
    head = f"{'case':40s} {'family':9s} {'measured':>9s} {'predicted':>9s} {'error':>7s} {'floor err':>9s}"
    print(f"{head}  bound")
    for r in sorted(rows, key=lambda r: (r["family"], r["case"])):
        err = r["predicted_us"] / r["measured_us"] - 1.0
        floor = r["floor_us"] / r["measured_us"] - 1.0
        print(
            f"{r['case']:40s} {r['family']:9s} {r['measured_us']:9.1f} {r['predicted_us']:9.1f} "
            f"{100 * err:+6.1f}% {100 * floor:+8.1f}%  {r['bottleneck']}"
        )
    print()
    for fam in sorted({r["family"] for r in rows}):
        part = [r for r in rows if r["family"] == fam]
        print(
            f"{fam:9s} n={len(part):2d}  TileSight MAPE {_mape(part, 'predicted_us'):5.1f}%  "
            f"roofline (floor) MAPE {_mape(part, 'floor_us'):5.1f}%"
        )
    if rows:
        print(
            f"{'all':9s} n={len(rows):2d}  TileSight MAPE {_mape(rows, 'predicted_us'):5.1f}%  "
            f"roofline (floor) MAPE {_mape(rows, 'floor_us'):5.1f}%"
        )
    for line in apart:
        print(f"apart: {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
