"""Score the Triton survey set (CPU): predictions recorded before measuring against the H200 timings.

    python benchmarks/survey_triton/score.py [--data benchmarks/data/survey_triton] [--now] [--set NAME]
        [--hw h100]

Families by kernel name: ``gemm_*``, ``w4a16*``, ``w8a16*``, ``fused_moe*`` and ``dot_scaled*`` are GEMMs;
``flash_*``, ``decode_*``, ``attn_*``, ``paged_*`` and ``varlen_fwd*`` attention; the rest memory-bound. MAPE
per family beside the roofline (each case's compulsory DRAM bytes over 4.8 TB/s or its FLOPs over the
datasheet peak), the refusals, and the worst cases. ``--hw h100`` scores a set's H100 timings
(``{set}h100.jsonl``) against its predictions for the H100 profile. ``--now`` predicts with the code as it is
instead of reading the recorded predictions; ``--set`` scores another case set (``harness.SETS``). Integer
tensors without given contents are zeros on the GPU (outputs, labels); a case whose gather indices were such
zeros (``ZERO_INDICES``) reads one row over and over, not the access pattern the prediction assumed, and is
listed apart.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import harness  # noqa: E402
import survey_table  # noqa: E402

GEMM_PREFIXES = ("gemm_", "w4a16", "w8a16", "fused_moe", "dot_scaled")
# cases whose gather indices had no contents: every program read the same embedding row on the GPU
ZERO_INDICES = frozenset({"embedding_int64_assert"})
ATTENTION_PREFIXES = ("flash_", "decode_", "attn_", "paged_", "varlen_fwd")


def family(name: str) -> str:
    if name.startswith(GEMM_PREFIXES):
        return "gemm"
    if name.startswith(ATTENTION_PREFIXES):
        return "attention"
    return "memory"


def _now(which: str, hw: str = "h200") -> dict:
    return {c.name: c.predict(hw) for c in harness.cases_of(which)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=HERE.parents[1] / "benchmarks" / "data" / "survey_triton")
    ap.add_argument("--now", action="store_true", help="predict with the current code")
    ap.add_argument(
        "--set", choices=tuple(harness.SETS), default="survey", help="which case set (harness.SETS)"
    )
    ap.add_argument(
        "--hw", default="h200", help="the GPU whose timings to score ({set}{hw}.jsonl) and its profile"
    )
    args = ap.parse_args()
    recorded = args.data / harness.predicted_file(args.set, args.hw)
    pred = _now(args.set, args.hw) if args.now else json.loads(recorded.read_text())["cases"]
    measured = args.data / harness.measured_file(args.set, args.hw)
    rows = [json.loads(x) for x in measured.read_text().splitlines() if x]
    fams: dict[str, list[tuple[float, float]]] = {}
    zeros, refused, errors = [], [], []
    scored = []
    for r in rows:
        p = pred.get(r["name"], {})
        if r.get("status") != "ok":
            errors.append(f"{r['name']}: {r.get('error', '')[:80]}")
            continue
        if "predicted_us" not in p:
            refused.append(f"{r['name']}: {p.get('refused', 'not predicted')[:100]}")
            continue
        if r["name"] in ZERO_INDICES:
            zeros.append(r["name"])
            continue
        err, roof = p["predicted_us"] / r["p50_us"] - 1, p["roofline_us"] / r["p50_us"] - 1
        fams.setdefault(family(r["name"]), []).append((abs(err), abs(roof)))
        scored.append((abs(err), err, r["name"], r["p50_us"], p["predicted_us"]))
    zeros_line = f"gather indices filled with zeros, not scored ({len(zeros)}): " + ", ".join(zeros)
    survey_table.print_scores(fams, refused, errors, scored, 28, (zeros_line,))
    return 0


if __name__ == "__main__":
    sys.exit(main())
