"""TileSight's predictions for the Triton survey set (CPU): what it predicts, refuses, and why.

python benchmarks/survey_triton/predict.py --out benchmarks/data/survey_triton/predicted_before_measuring.json
    [--set NAME] [--hw h100]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import harness  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--set", choices=tuple(harness.SETS), default="survey")
    ap.add_argument("--hw", default="h200", help="the GPU profile to predict for")
    args = ap.parse_args()
    rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=HERE)
    dirty = subprocess.run(["git", "status", "--short", "-uno"], capture_output=True, text=True, cwd=HERE)
    out: dict = {
        "commit": rev.stdout.strip(),
        "uncommitted": dirty.stdout.split()[1::2],
        "hw": args.hw,
        "cases": {},
    }
    for c in harness.cases_of(args.set):
        row = c.predict(args.hw)
        if "predicted_us" in row:
            row["predicted_us"] = round(row["predicted_us"], 3)
        else:
            row["refused"] = row["refused"][:600]
        out["cases"][c.name] = row
        print(c.name, row.get("predicted_us", row.get("refused", "")[:100]), flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
