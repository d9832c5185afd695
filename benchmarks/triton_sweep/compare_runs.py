"""Two timings of one sweep set against each other (CPU): how far a GPU's repeat run moved each launch.

    python benchmarks/triton_sweep/compare_runs.py benchmarks/data/h100_validation84 \
        benchmarks/data/h100_validation84/run2

Reads ``triton_{gemm,memory,attention}.jsonl`` of both folders (``run.sh``'s output) and, per family with
launches timed ``ok`` in both, prints how many, the median of the second run's p50 over the first's and the
largest relative move, with the launch that made it.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

FAMILIES = ("gemm", "memory", "attention")


def p50s(path: Path) -> dict[str, float]:
    """Launch id -> p50 us of the launches timed ``ok`` in one sweep file (none if the file is absent)."""
    if not path.is_file():
        return {}
    rows = (json.loads(line) for line in path.open() if line.strip())
    return {
        r["id"]: float(r["measured_us"]["p50"])
        for r in rows
        if r.get("status") == "ok" and r.get("measured_us")
    }


def compare(first: Path, second: Path) -> list[tuple[str, int, float, float, str]]:
    """Per family timed in both folders: (family, launches, median second / first, largest |ratio - 1|, the
    launch with it)."""
    out = []
    for family in FAMILIES:
        a, b = (p50s(folder / f"triton_{family}.jsonl") for folder in (first, second))
        ratios = {i: b[i] / a[i] for i in a.keys() & b.keys() if a[i] > 0}
        if ratios:
            worst = max(ratios, key=lambda i: abs(ratios[i] - 1.0))
            out.append(
                (family, len(ratios), statistics.median(ratios.values()), abs(ratios[worst] - 1.0), worst)
            )
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("first", type=Path)
    ap.add_argument("second", type=Path)
    args = ap.parse_args()
    for folder in (args.first, args.second):
        if not folder.is_dir():
            raise SystemExit(f"compare_runs.py: no folder {folder}")
    rows = compare(args.first, args.second)
    if not rows:
        raise SystemExit(f"compare_runs.py: no launch timed ok in both {args.first} and {args.second}")
    for family, n, median, worst, ident in rows:
        move = f"largest move {100 * worst:.1f}% ({ident})"
        print(f"{family:10s} {n:4d} launches: median second / first {median:.4f}, {move}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
