"""Which part of the cache model the L2 hit-rate error comes from (CPU only; a diagnostic, not a rule).

    python benchmarks/ncu_l2/oracle.py [--worst N]

The model's NCU hit rate (``tilesight.cache.model``) is a formula of three modelled terms per requested read
sector: ``p2``, the share not read from DRAM (the reuse distances through the SDCM), the share the L2 request
coalescer merges, and the share looked up again across the partition fabric:

    hit rate = (R (base - merged) + W) / (R (1 - merged + fabric) + W)

with ``R`` the requested read bytes, ``W`` the written ones (NCU counts every written sector a hit) and
``base`` the read hits before merging (``p2`` plus the near-partition terms). Run 3 of the NCU study
(``benchmarks/data/ncu_l2_h200_run3.json``) also read the counters of all three
(``dram__bytes_read``, ``lrc__request_sectors_op_read_coalescing_achieved_type_hardware`` over
``..._coalescable``, ``lts__t_sectors_srcunit_ltcfabric_op_read``). For each launch this script puts the
measured value in place of one modelled term at a time (then all three) and scores the hit rate against the
mean of the three NCU runs, on the calibration and held-out thirds as ``benchmarks/score_l2.py`` splits them:
how far the MAE would fall if that one sub-model were exact. Stop 56 read it: held-out 2.30 pp with the model,
1.74 with the measured DRAM reuse, 2.11 with the measured merges, 2.19 with the measured fabric lookups, 0.84
with all three (so the formula itself holds, and the reuse distances are the largest lever); after that
stop's per-block execution skew, 2.15 / 1.77 / 1.98 / 2.08 / 0.85. ``decompose.py`` prints the same terms
launch by launch.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import score_l2  # noqa: E402

RUN3 = HERE.parent / "data" / "ncu_l2_h200_run3.json"
COALESCED = "lrc__request_sectors_op_read_coalescing_achieved_type_hardware.sum"
COALESCABLE = "lrc__request_sectors_op_read_coalescable.sum"
FABRIC = "lts__t_sectors_srcunit_ltcfabric_op_read.sum"
SECTOR_BYTES = 32.0
TERMS = ("model", "p2", "merged", "fabric", "all three")


def hit_rate_pct(reads: float, writes: float, base: float, merged: float, fabric: float) -> float:
    """NCU's L2 sector hit rate (percent) from the model's per-read-sector terms: ``reads`` and ``writes``
    requested bytes, ``base`` the read hits before the coalescer's merges, ``merged`` the merged share
    (neither hit nor lookup), ``fabric`` the extra lookups across the partition fabric; a written sector is a
    hit."""
    lookups = reads * (1.0 - merged + fabric) + writes
    return 100.0 * (reads * (base - merged) + writes) / lookups if lookups > 0 else 0.0


def measured_terms(case: dict) -> dict[str, float]:
    """Run 3's ``p2``, merged share and fabric lookups per requested (coalescable) read sector."""
    requested = case[COALESCABLE]
    return {
        "p2": 1.0 - case["dram_read_bytes"] / SECTOR_BYTES / requested,
        "merged": case[COALESCED] / requested,
        "fabric": case[FABRIC] / requested,
    }


def modelled_terms(case: dict, hw, model) -> dict[str, float]:
    """The model's read and write bytes and its per-read-sector ``p2``, ``base``, merged share and fabric
    lookups for one launch (requested-byte weighted over its reads)."""
    _, rows = model.breakdown(score_l2.plan_for(case, hw), hw)
    reads = [r for r in rows if not r.write]
    req = sum(r.requested_bytes for r in reads)

    def mean(field: str) -> float:
        return sum(getattr(r, field) * r.requested_bytes for r in reads) / req  # noqa: B023

    merged = mean("l2_merged")
    return {
        "reads": req,
        "writes": sum(r.requested_bytes for r in rows if r.write),
        "p2": mean("l2_hit"),
        "base": mean("l2_sector_hit") + merged,
        "merged": merged,
        "fabric": mean("l2_lookups") - (1.0 - merged),
    }


def substituted(m: dict[str, float], meas: dict[str, float], term: str) -> float:
    """The hit rate with ``term`` (one of :data:`TERMS`) taken from the measurement, the rest modelled
    (``"model"``: none taken, the model's own hit rate)."""
    p2 = meas["p2"] if term in ("p2", "all three") else m["p2"]
    merged = meas["merged"] if term in ("merged", "all three") else m["merged"]
    fabric = meas["fabric"] if term in ("fabric", "all three") else m["fabric"]
    # a measured p2 moves the read hits by the same share (the near-partition terms ride on top of it)
    return hit_rate_pct(m["reads"], m["writes"], m["base"] + (p2 - m["p2"]), merged, fabric)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--worst", type=int, default=0, help="list the N launches the measured p2 helps most")
    args = ap.parse_args(argv)
    from tilesight.cache.model import SdcmCacheModel
    from tilesight.hardware import load_profile

    hw, model = load_profile("h200"), SdcmCacheModel()
    _, mean_cases = score_l2._load(score_l2.DEFAULT_DATA)
    target = {c["case_id"]: c["l2_hit_pct"] for c in mean_cases}
    held_out = score_l2._split()
    rows = []
    for case in json.loads(RUN3.read_text())["cases"]:
        m, meas = modelled_terms(case, hw, model), measured_terms(case)
        rates = {t: substituted(m, meas, t) for t in TERMS}  # "model": no term replaced
        rows.append((case["case_id"], target[case["case_id"]], rates))
    print("L2 hit MAE (pp) against the mean of the three NCU runs, one modelled term replaced by run 3's")
    print(f"{'third':12s} {'n':>4s} " + " ".join(f"{t:>10s}" for t in TERMS))
    for third, pick in (("calibration", False), ("held-out", True)):
        sel = [r for r in rows if held_out(r[0]) is pick]
        maes = [sum(abs(r[2][t] - r[1]) for r in sel) / len(sel) for t in TERMS]
        print(f"{third:12s} {len(sel):4d} " + " ".join(f"{x:10.2f}" for x in maes))
    if args.worst:
        gain = sorted(rows, key=lambda r: abs(r[2]["p2"] - r[1]) - abs(r[2]["model"] - r[1]))
        for cid, meas_pct, rates in gain[: args.worst]:
            model_pct, with_p2 = rates["model"], rates["p2"]
            print(f"{cid:64s} NCU {meas_pct:5.1f}  model {model_pct:5.1f}  measured p2 {with_p2:5.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
