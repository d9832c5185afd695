"""TileSight's predictions for the TileLang survey set (CPU), recorded before the set is measured.

    python benchmarks/survey_tilelang/predict.py \
        --out benchmarks/data/survey_tilelang/predicted_before_measuring.json
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import run_gpu  # noqa: E402

import tilesight  # noqa: E402
from tilesight.errors import TileSightError  # noqa: E402


def predict(which: str = "survey") -> dict:
    registry = run_gpu._registry()
    out = {}
    for name in run_gpu.runnable(which):
        c = registry[name][1]()
        row: dict = {"roofline_us": c.roofline_s() * 1e6}
        try:
            r = tilesight.estimate(c.func, hw="h200")
            row.update(predicted_us=round(float(r.latency_us), 3), bottleneck=str(r.bottleneck))
        except TileSightError as e:
            row["refused"] = f"{type(e).__name__}: {e}"[:600]
        out[name] = row
        print(name, row.get("predicted_us", row.get("refused", "")[:100]), flush=True)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--set", choices=tuple(run_gpu.SETS), default="survey")
    args = ap.parse_args()
    rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=HERE)
    dirty = subprocess.run(["git", "status", "--short", "-uno"], capture_output=True, text=True, cwd=HERE)
    out = {
        "commit": rev.stdout.strip(),
        "uncommitted": dirty.stdout.split()[1::2],
        "cases": predict(args.set),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
