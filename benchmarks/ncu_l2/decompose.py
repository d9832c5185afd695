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
sys.path.insert(0, str(HERE))

import oracle  # noqa: E402

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
        m, meas = oracle.modelled_terms(c, hw, model), oracle.measured_terms(c)
        hits, lookups = m["base"] - m["merged"], 1.0 - m["merged"] + m["fabric"]
        tex = c["lts__t_sectors_srcunit_tex_op_read.sum"]
        near_hit = c["lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum"] / tex
        fab = c[oracle.FABRIC]
        fab_hit = c["lts__t_sectors_srcunit_ltcfabric_op_read_lookup_hit.sum"] / max(fab, 1.0)
        print(
            f"{c['case_id'][:62]:62s} | {meas['merged']:5.2f} {m['merged']:5.2f} | {near_hit:5.2f} | "
            f"{meas['fabric']:5.2f} {m['fabric']:5.2f} | {fab_hit:6.2f} | {meas['p2']:5.2f} {m['p2']:5.2f} | "
            f"{c['l2_read_hit_pct']:5.1f} {100 * hits / lookups:5.1f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
