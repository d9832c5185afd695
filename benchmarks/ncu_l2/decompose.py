"""Where the cache model's L2 hit rate departs from NCU's, term by term (CPU only).

    python benchmarks/ncu_l2/decompose.py [SUBSTRING ...]

For each launch of the NCU study's third run (``benchmarks/data/ncu_l2_h200_run3.json``, the run that also
read the request coalescer's and the fabric's counters) whose id contains one of the substrings (default:
every persistent GEMM), it prints the measured and the modelled value of each term of the hit rate, per
requested read sector:

* ``merged``: requests the L2 request coalescer answered without an L2 lookup
  (``lrc__request_sectors_op_read_coalescing_achieved_type_hardware`` over ``..._coalescable``), against the
  model's :data:`tilesight.cache.model.LRC_MERGE_SPREAD` rule;
* ``nearhit``: hits among the lookups in the reader's own partition (measured only);
* ``fabric/req``: lookups sent across the partition fabric, measured and modelled;
* ``fabhit``: hits among the fabric lookups (measured only);
* ``p2``: the share of requested sectors not read from DRAM (1 - DRAM read sectors / requested);
* ``hit``: NCU's read hit rate and the model's.

Stop 35 read it: where the model's DRAM bytes are right and its hit rate is not (most persistent GEMMs, the
128x256 tiles), the error is almost all in ``merged``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import score_l2  # noqa: E402

from tilesight.cache.model import SdcmCacheModel  # noqa: E402
from tilesight.hardware import load_profile  # noqa: E402

RUN3 = HERE.parent / "data" / "ncu_l2_h200_run3.json"


def main(argv: list[str] | None = None) -> int:
    patterns = (sys.argv[1:] if argv is None else argv) or ["persistent"]
    cases = json.loads(RUN3.read_text())["cases"]
    hw, model = load_profile("h200"), SdcmCacheModel()
    print(
        f"{'case':62s} | {'merged':>11s} | {'nearhit':>5s} | {'fabric/req':>11s} | {'fabhit':>6s} | "
        f"{'p2':>11s} | hit (NCU, model)"
    )
    for c in cases:
        if not any(p in c["case_id"] for p in patterns):
            continue
        _, rows = model.breakdown(score_l2.plan_for(c, hw), hw)
        reads = [r for r in rows if not r.write]
        req = sum(r.requested_bytes for r in reads)

        def mean(field: str) -> float:
            return sum(getattr(r, field) * r.requested_bytes for r in reads) / req  # noqa: B023

        merged, lookups = mean("l2_merged"), mean("l2_lookups")
        p2, hits = mean("l2_hit"), mean("l2_sector_hit")
        fabric = lookups - (1.0 - merged)
        requested = c["lrc__request_sectors_op_read_coalescable.sum"]
        m_merged = c["lrc__request_sectors_op_read_coalescing_achieved_type_hardware.sum"] / requested
        tex = c["lts__t_sectors_srcunit_tex_op_read.sum"]
        near_hit = c["lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum"] / tex
        fab = c["lts__t_sectors_srcunit_ltcfabric_op_read.sum"]
        fab_hit = c["lts__t_sectors_srcunit_ltcfabric_op_read_lookup_hit.sum"] / max(fab, 1.0)
        m_p2 = 1.0 - c["dram_read_bytes"] / 32.0 / requested
        print(
            f"{c['case_id'][:62]:62s} | {m_merged:5.2f} {merged:5.2f} | {near_hit:5.2f} | "
            f"{fab / requested:5.2f} {fabric:5.2f} | {fab_hit:6.2f} | {m_p2:5.2f} {p2:5.2f} | "
            f"{c['l2_read_hit_pct']:5.1f} {100 * hits / lookups:5.1f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
