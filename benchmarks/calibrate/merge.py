"""Merge probe-subset calibration runs (``run.py --only ...``) into one calibration JSON and recompute its
profile fields (CPU only).

    python benchmarks/calibrate/merge.py benchmarks/data/calibration_h200.json \\
        benchmarks/data/calibration_l2peak.json benchmarks/data/calibration_l2async.json

Later files' measurements replace earlier ones of the same probe; each merged file's command and date are
kept under ``meta.merged``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.calibrate import analysis  # noqa: E402


def merge(base: dict, extra: list[dict]) -> dict:
    out = json.loads(json.dumps(base))
    for doc in extra:
        out["measurements"].update(doc["measurements"])
        out["meta"].setdefault("merged", []).append(
            {k: doc["meta"].get(k) for k in ("command", "datetime_utc", "gpu", "triton", "torch")}
            | {"probes": sorted(doc["measurements"])}
        )
    out["profile_fields"] = analysis.profile_fields(out["measurements"], out["meta"].get("sm_count"))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("base", type=Path, help="calibration JSON to update in place")
    ap.add_argument("extra", type=Path, nargs="+", help="probe-subset runs to merge into it")
    args = ap.parse_args(argv)
    doc = merge(json.loads(args.base.read_text()), [json.loads(p.read_text()) for p in args.extra])
    args.base.write_text(json.dumps(doc, indent=2) + "\n")
    print(f"{args.base}: {len(doc['profile_fields'])} profile fields")
    return 0


if __name__ == "__main__":
    sys.exit(main())
