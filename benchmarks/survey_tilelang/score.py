"""Score the TileLang survey set (CPU): predictions recorded before measuring against the H200 timings.

    python benchmarks/survey_tilelang/score.py [--data benchmarks/data/survey_tilelang] [--set SET] [--now]
        [--predictions FILE]

Families by name: ``gemm*``, ``bmm*``, ``gemv*``, ``conv*`` and ``ws_gemm*`` are GEMMs; ``fa_*``,
``flash_*`` and ``sliding_*`` attention; the rest memory-bound. MAPE per family beside the roofline (each
case's compulsory bytes over 4.8 TB/s or its FLOPs over the datasheet peak), the refusals and the worst
cases. ``--now`` predicts with the code as it is.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import run_gpu  # noqa: E402
import survey_table  # noqa: E402


def family(name: str) -> str:
    if name.startswith(("gemm", "bmm", "gemv", "conv", "ws_gemm")):
        return "gemm"
    if name.startswith(("fa_", "flash_", "sliding_")):
        return "attention"
    return "memory"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=HERE.parents[1] / "benchmarks" / "data" / "survey_tilelang")
    ap.add_argument("--now", action="store_true", help="predict with the current code")
    ap.add_argument(
        "--predictions", default=None, help="another recorded predictions file in --data (default: the set's)"
    )
    ap.add_argument("--set", choices=tuple(run_gpu.SETS), default="survey")
    args = ap.parse_args()
    if args.now:
        import predict

        pred = predict.predict(args.set)
    else:
        recorded = args.predictions or run_gpu.predicted_file(args.set)
        pred = json.loads((args.data / recorded).read_text())["cases"]
    measured = args.data / run_gpu.measured_file(args.set)
    rows = [json.loads(x) for x in measured.read_text().splitlines() if x]
    fams: dict[str, list[tuple[float, float]]] = {}
    refused, errors, scored = [], [], []
    for r in rows:
        p = pred.get(r["name"], {})
        if r.get("error") or "p50_us" not in r:
            errors.append(f"{r['name']}: {(r.get('error') or '')[:80]}")
            continue
        if "predicted_us" not in p:
            refused.append(f"{r['name']}: {p.get('refused', 'not predicted')[:100]}")
            continue
        err, roof = p["predicted_us"] / r["p50_us"] - 1, p["roofline_us"] / r["p50_us"] - 1
        fams.setdefault(family(r["name"]), []).append((abs(err), abs(roof)))
        scored.append((abs(err), err, r["name"], r["p50_us"], p["predicted_us"]))
    survey_table.print_scores(fams, refused, errors, scored, 32)
    return 0


if __name__ == "__main__":
    sys.exit(main())
