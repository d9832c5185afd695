"""The blind NCU sets: the cache model's predictions recorded before measuring, and their blind score.

    python benchmarks/ncu_l2/blind.py --predict benchmarks/data/ncu_l2_blind36_predicted_before_measuring.json
    NCU_L2_SET=blind36 NCU_L2_EXTRA=<lrc counters> OUT=$OUT bash benchmarks/ncu_l2/run.sh     # on the H200
    python benchmarks/ncu_l2/blind.py --score benchmarks/data/ncu_l2_blind36_h200{,_run2}.json [--now]

``--set blind56`` (stop 56) does the same for the second blind set, whose recorded predictions are
``benchmarks/data/ncu_l2_blind56_predicted_before_measuring.json``, and ``--set crowded`` (stop 62) for the
narrow tiles an SM holds 7-14 of (``ncu_cases.build_crowded_cases``), ``--set crowded62`` for the blind test
of the latency-paced rule it prompted, ``--set onewave`` (stop 83) for grids of at most one wave at GROUP_M 1,
2, 4 and 8.

The set (:func:`ncu_cases.build_blind_cases`) holds shapes and shape x config pairs that neither the main nor
the narrow study has. Its recorded predictions were made before anything was measured, with shared memory
estimated and, as the narrow study's were, no register limit; ``score_l2.plan_for`` has estimated the
registers since (the Triton frontend's estimate), so ``--predict`` now writes predictions with them.
``--score`` compares the recorded predictions (or, with ``--now``, the current model's, with the measured
registers and shared memory) against NCU, the mean of the runs given (``score_l2.mean_cases``; the coalescer
counters are the first run's): L2 hit-rate MAE over every case,
DRAM bytes' mean relative error, the GROUP_M direction check of ``score_l2.py``, and, where the run read the
L2 request coalescer's counters, the merged share of the read requests against the model's.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import ncu_cases  # noqa: E402
import score_l2  # noqa: E402

from tilesight.cache.model import SdcmCacheModel  # noqa: E402
from tilesight.hardware import load_profile  # noqa: E402

SET = "blind36"
COALESCABLE = "lrc__request_sectors_op_read_coalescable.sum"
COALESCED = "lrc__request_sectors_op_read_coalescing_achieved_type_hardware.sum"


def _commit() -> str:
    try:
        git = ["git", "rev-parse", "HEAD"]
        run = subprocess.run(git, capture_output=True, text=True, cwd=HERE, check=True)
        return run.stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def _prediction(case: dict, hw, model) -> dict:
    traffic, rows = model.breakdown(score_l2.plan_for(case, hw), hw)
    reads = [r for r in rows if not r.write]
    requested = sum(r.requested_bytes for r in reads)
    merged = sum(r.l2_merged * r.requested_bytes for r in reads) / requested if requested else 0.0
    return {
        "case_id": case["case_id"],
        "pred_hit_pct": 100.0 * traffic.l2_hit_rate,
        "pred_dram_read": traffic.dram_read_bytes,
        "pred_dram_write": traffic.dram_write_bytes,
        "pred_dram": traffic.dram_bytes,
        "pred_merged_share": merged,
    }


def predict(out: Path, name: str = SET) -> int:
    hw, model = load_profile("h200"), SdcmCacheModel()
    rows = [_prediction(c, hw, model) for c in ncu_cases.cases_of(name)]
    doc = {
        "command": f"python benchmarks/ncu_l2/blind.py --set {name} --predict {out}",
        "model_commit": _commit(),
        "note": "registers and shared memory estimated: nothing measured yet",
        "rows": rows,
    }
    out.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"{len(rows)} predictions -> {out}")
    return 0


def score(measured: list[Path], recorded: Path, now: bool, name: str = SET) -> int:
    cases = score_l2.mean_cases([json.loads(p.read_text()) for p in measured])
    if now:
        hw, model = load_profile("h200"), SdcmCacheModel()
        pred = {c["case_id"]: _prediction(c, hw, model) for c in cases}
    else:
        pred = {r["case_id"]: r for r in json.loads(recorded.read_text())["rows"]}
    missing = [c["case_id"] for c in cases if c["case_id"] not in pred]
    if missing:
        print(f"error: {len(missing)} measured case(s) lack a prediction, e.g. {missing[0]}", file=sys.stderr)
        return 2
    rows = []
    for c in cases:
        p = pred[c["case_id"]]
        rows.append(
            {
                **p,
                "meas_hit_pct": c["l2_hit_pct"],
                "meas_dram": c["dram_read_bytes"] + c["dram_write_bytes"],
                "meas_dram_read": c["dram_read_bytes"],
                "meas_dram_write": c["dram_write_bytes"],
            }
        )
    agree, total, failures = score_l2.swizzle_check(cases, rows)
    errors = np.array([r["pred_hit_pct"] - r["meas_hit_pct"] for r in rows])
    print(
        f"{name} ({'current model' if now else 'recorded before measuring'}), {len(rows)} cases, "
        f"{len(measured)} NCU run(s): L2 hit MAE "
        f"{np.mean(np.abs(errors)):.2f} pp (mean error {np.mean(errors):+.2f} pp); DRAM bytes mean rel. err. "
        f"{100 * score_l2._dram_rel(rows):.1f}%; GROUP_M direction {agree}/{total}"
    )
    for f in failures:
        print(f"    {f}")
    for kind in ("grouped", "persistent"):
        part = [abs(e) for e, c in zip(errors, cases, strict=True) if c["kernel"] == kind]
        if part:
            print(f"    {kind}: {len(part)} cases, MAE {np.mean(part):.2f} pp")
    merges = [
        (c[COALESCED] / c[COALESCABLE], pred[c["case_id"]]["pred_merged_share"])
        for c in cases
        if c.get(COALESCABLE)
    ]
    if merges:
        m, p = np.array(merges).T
        r = float(np.corrcoef(m, p)[0, 1]) if len(merges) > 2 else float("nan")
        mae = float(np.mean(np.abs(m - p)))
        print(f"    coalescer merged share: MAE {mae:.3f}, correlation {r:.2f} ({len(m)} cases)")
    worst = sorted(zip(np.abs(errors), rows, strict=True), key=lambda t: -t[0])[:8]
    print("largest L2 hit-rate errors:")
    for _, r in worst:
        print(f"    {r['case_id']}: model {r['pred_hit_pct']:.1f}%  NCU {r['meas_hit_pct']:.1f}%")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--predict", type=Path, help="write the current model's predictions here")
    ap.add_argument("--score", type=Path, nargs="+", help="NCU runs of the set (ncu_parse.py's JSON)")
    blind_sets = [name for name in ncu_cases.SETS if name.startswith(("blind", "crowded", "onewave"))]
    ap.add_argument("--set", default=SET, choices=blind_sets, help="which blind set")
    ap.add_argument(
        "--recorded",
        type=Path,
        help="the predictions recorded before measuring (default: the set's own file in benchmarks/data)",
    )
    ap.add_argument("--now", action="store_true", help="score the current model instead of the recorded one")
    args = ap.parse_args(argv)
    if args.predict:
        return predict(args.predict, args.set)
    if args.score:
        own = HERE.parent / "data" / f"ncu_l2_{args.set}_predicted_before_measuring.json"
        recorded = args.recorded or own
        return score(args.score, recorded, args.now, args.set)
    ap.error("give --predict OUT or --score MEASURED")
    return 2


if __name__ == "__main__":
    sys.exit(main())
