#!/usr/bin/env python3
"""Read stop 61's persistent_waits ncu pass (CPU): per case its time, SM cycles a K step, L2 hit rate, the
read lookups that missed, DRAM bytes and the five largest warp-stall reasons per issue.

    python benchmarks/ncu_diag/persistent_waits_report.py [PATH]   # default: the committed pass's CSV

The CSV is ncu's ``--csv`` page of ``run_persistent_waits.sh``, with the cases' own JSON lines (printed by
``persistent_tiles.py --waits``, one per case) among ncu's rows; each case launches its kernel twice and the
second profile is the one read. A case without ``block_k`` (the first pass's) has ``BLOCK_K`` 64; one with
``num_warps`` also gets its copies a thread a K step, ``(BLOCK_M + BLOCK_N) x BLOCK_K x 2 / 16 / threads``.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from kmajor import ncu_metrics_by_id  # noqa: E402

DEFAULT = Path(__file__).resolve().parents[2] / "benchmarks/data/persistent_waits/persistent_waits_ncu.csv"
BLOCK_K = 64


def read(text: str) -> list[dict]:
    """One row per case: the case's fields plus ``metrics`` (name -> float) of its second launch."""
    cases = [json.loads(line) for line in text.splitlines() if line.startswith("{")]
    launches = ncu_metrics_by_id(text)
    ids = sorted(launches)
    if len(ids) != 2 * len(cases):
        raise ValueError(f"{len(ids)} profiled launches for {len(cases)} cases (expected two each)")
    # "n/a" (a counter this chip does not have) is left out
    return [
        dict(case, metrics={k: v for k, v in launches[ids[2 * i + 1]].items() if not math.isnan(v)})
        for i, case in enumerate(cases)
    ]


def summary(row: dict) -> dict:
    m = row["metrics"]
    bk = row.get("block_k", BLOCK_K)
    steps = row["tiles_per_program"] * row["K"] // bk
    warps = row.get("num_warps")
    copies = (row["block_m"] + row["block_n"]) * bk * 2 / 16 / (32 * warps) if warps else None
    stalls = {k.split("stalled_")[1].split("_per_")[0]: v for k, v in m.items() if "_stalled_" in k}
    reads = m.get("lts__t_sectors_srcunit_tex_op_read.sum", 0.0)
    missed = m.get("lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum", 0.0)
    return {
        "case": f"{row['kernel']} {row['block_m']}x{row['block_n']}x{bk}"
        + (f" w{warps} s{row['num_stages']}" if warps else "")
        + f" T{row['tiles_per_program']}",
        "copies": copies,
        "us": m["gpu__time_duration.sum"] / 1e3,
        "cycles_per_step": m["sm__cycles_active.avg"] / steps,
        "l2_hit_pct": m.get("lts__t_sector_hit_rate.pct", float("nan")),
        "read_miss": missed / reads if reads else float("nan"),
        "dram_mb": m.get("dram__bytes_read.sum", 0.0) / 1e6,
        "stalls": sorted(stalls.items(), key=lambda kv: -kv[1])[:5],
    }


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    path = Path(args[0]) if args else DEFAULT
    try:
        rows = read(path.read_text())
    except (OSError, ValueError) as e:
        print(f"persistent_waits_report.py: error: {path}: {e}", file=sys.stderr)
        return 2
    for row in rows:
        s = summary(row)
        stalls = ", ".join(f"{k} {v:.2f}" for k, v in s["stalls"])
        each = f" ({s['copies']:.0f} copies a thread)" if s["copies"] else ""
        print(f"{s['case']:28s} {s['us']:8.1f} us, {s['cycles_per_step']:5.0f} cycles a K step{each}, L2 hit "
              f"{s['l2_hit_pct']:5.1f}%, read lookups missed {s['read_miss']:.3f}, "
              f"DRAM {s['dram_mb']:6.1f} MB; stalls per issue: {stalls}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
