"""Record TileSight's predictions for a validation set before it is measured (CPU).

    python benchmarks/triton_sweep/predict_set.py validation8 \
        --out benchmarks/data/validation8/predicted_before_measuring.json

Rebuilds every case of ``sweep_cases.<name>_cases()`` as ``benchmarks/accuracy.py`` does and writes
``{"note", "predicted_us": {case id: us}}`` with the commit the predictions came from; a case the model
refuses is recorded with its error instead.
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

import accuracy  # noqa: E402
import sweep_cases  # noqa: E402

from tilesight.errors import TileSightError  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("name", help="validation set name, e.g. validation8 (sweep_cases.<name>_cases)")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--hw", default="h200")
    args = ap.parse_args()
    cases = getattr(sweep_cases, f"{args.name}_cases")()
    rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=HERE)
    dirty = subprocess.run(["git", "status", "--short", "-uno"], capture_output=True, text=True, cwd=HERE)
    state = f"commit {rev.stdout.strip()}" + (" with uncommitted changes" if dirty.stdout.strip() else "")
    out: dict = {"note": f"predictions written before the set was measured, by the model at {state}",
                 "predicted_us": {}, "refused": {}}  # fmt: skip
    for c in cases:
        try:
            out["predicted_us"][c.id] = round(accuracy.predict_us(c.to_json(), c.id, args.hw), 2)
        except (TileSightError, accuracy.DataError) as e:
            out["refused"][c.id] = str(e)[:400]
        print(c.id, out["predicted_us"].get(c.id, "refused"), flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
