"""Record TileSight's predictions for a TileLang case set before it is measured (CPU).

    python benchmarks/tilelang_sweep/predict_set.py validation6 \\
        --out benchmarks/data/tilelang_validation6/predicted_before_measuring.json

Builds every case of ``sweep.SETS[name]`` as ``score.py`` does (``cases.build``, ``cases.launch_args``, the
TileLang frontend) and writes ``{"note", "predicted_us": {case id: us}, "refused": {case id: error}}`` with
the commit the predictions came from; ``score.py --data DIR --recorded`` scores them once the set is measured.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import cases as case_list  # noqa: E402
import sweep  # noqa: E402
from tilesight.frontends.tilelang import TileLangFrontend  # noqa: E402

import tilesight  # noqa: E402
from tilesight.errors import TileSightError  # noqa: E402
from tilesight.hardware import load_profile  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("name", choices=sorted(sweep.SETS), help="case set (sweep.py --set)")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--hw", default="h200")
    args = ap.parse_args()
    hw = load_profile(args.hw)
    rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=HERE)
    dirty = subprocess.run(["git", "status", "--short", "-uno"], capture_output=True, text=True, cwd=HERE)
    state = f"commit {rev.stdout.strip()}" + (" with uncommitted changes" if dirty.stdout.strip() else "")
    out: dict = {
        "note": f"predictions of sweep.py --set {args.name} written before it was measured, by the model at "
        f"{state}; tilesight.estimate on the TileLang frontend's plan of each case",
        "predicted_us": {},
        "refused": {},
    }
    for case in sweep.SETS[args.name]():
        try:
            func = case_list.build(case)
            plan = TileLangFrontend().plan(func, case_list.launch_args(case), {}, hw)
            out["predicted_us"][case["id"]] = round(tilesight.estimate(plan, hw=hw).latency_s * 1e6, 2)
        except TileSightError as e:
            out["refused"][case["id"]] = str(e)[:400]
        print(case["id"], out["predicted_us"].get(case["id"], "refused"), flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
