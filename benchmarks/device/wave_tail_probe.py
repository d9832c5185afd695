#!/usr/bin/env python3
"""Time the tutorial GEMM at grids of one full wave plus a tail against two whole waves (GPU).

    python benchmarks/device/wave_tail_probe.py --out OUT.json          # on the GPU
    python benchmarks/device/wave_tail_probe.py --score benchmarks/data/wave_tail/wave_tail_h100.json \
        --hw h100                                                        # on the CPU

Stop 89's question: after a launch's only full wave, do the tail's blocks cost a second wave started
together (the 527-tile grid of 64 x 256 tiles at two blocks an SM as fast as the 528 of two whole waves), or
the staggered envelope the model gave before? Each config at 396, 500, 527 and 528 tiles (N one tile wide,
K 4096, fp16), ``triton.testing.do_bench`` as the sweeps time.
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

# (BLOCK_M, BLOCK_N, BLOCK_K, num_warps, num_stages)
CONFIGS = [(64, 256, 128, 4, 1), (128, 128, 64, 4, 3), (128, 256, 64, 8, 2), (64, 128, 64, 4, 2)]
TILES = (396, 500, 527, 528)
K = 4096


def predict_us(row: dict, hw: str) -> float:
    """The model's latency for one timed row (CPU): the launch the sweeps' ``gemm_case`` builds, predicted
    as ``accuracy.py`` predicts a measured case."""
    for folder in (ROOT / "benchmarks", ROOT / "benchmarks" / "triton_sweep"):
        if str(folder) not in sys.path:
            sys.path.insert(0, str(folder))
    import accuracy
    import sweep_cases

    cfg = sweep_cases.GemmConfig(*row["config"], group_m=1)
    case = sweep_cases.gemm_case("grouped", ("wave_tail", row["M"], row["N"], row["K"]), "float16", cfg)
    return accuracy.predict_us(case.to_json(), case.id, hw)


def score(path: Path, hw: str) -> int:
    """Measured against predicted for each row, and each config's grids over its two-whole-wave grid."""
    import warnings

    warnings.filterwarnings("ignore", module="triton")
    data = json.loads(path.read_text())
    rows = data["rows"]
    print(f"{path} ({data['meta']['gpu']}), predicted for the {hw} profile")
    errors = []
    for cfg in dict.fromkeys(tuple(r["config"]) for r in rows):
        mine = sorted((r for r in rows if tuple(r["config"]) == cfg), key=lambda r: r["tiles"])
        whole = mine[-1]
        pw = predict_us(whole, hw)
        for r in mine:
            p = predict_us(r, hw) if r is not whole else pw
            errors.append(abs(p / r["p50_us"] - 1))
            us, of = r["p50_us"], r["p50_us"] / whole["p50_us"]
            print(f"  {cfg} {r['tiles']:4d} tiles: measured {us:7.1f} us ({of:.3f} of {whole['tiles']}), "
                  f"predicted {p:7.1f} ({p / pw:.3f}), error {p / us - 1:+.1%}")  # fmt: skip
    print(f"MAPE {100 * sum(errors) / len(errors):.1f}% over {len(errors)}")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, help="time the grids here (GPU)")
    ap.add_argument("--score", type=Path, help="a timed file to score against the model (CPU)")
    ap.add_argument("--hw", default="h200")
    args = ap.parse_args()
    if args.score is not None:
        if not args.score.is_file():
            ap.error(f"--score {args.score}: no such file")
        return score(args.score, args.hw)
    if args.out is None:
        ap.error("--out or --score")
    import torch
    import triton

    from kernels.triton.gemm import matmul_kernel

    rows = []
    for bm, bn, bk, w, s in CONFIGS:
        for tiles in TILES:
            m, n = bm * tiles, bn
            a = torch.randn(m, K, device="cuda", dtype=torch.float16)
            b = torch.randn(K, n, device="cuda", dtype=torch.float16)
            c = torch.empty(m, n, device="cuda", dtype=torch.float16)

            run = functools.partial(
                matmul_kernel[(tiles,)], a, b, c, m, n, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                c.stride(0), c.stride(1), BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=1, num_warps=w,
                num_stages=s,
            )  # fmt: skip

            run()
            torch.cuda.synchronize()
            p50, p20, p80 = triton.testing.do_bench(run, warmup=25, rep=100, quantiles=[0.5, 0.2, 0.8])
            row = {"config": [bm, bn, bk, w, s], "tiles": tiles, "M": m, "N": n, "K": K,
                   "p50_us": 1e3 * p50, "p20_us": 1e3 * p20, "p80_us": 1e3 * p80}  # fmt: skip
            print(json.dumps(row), flush=True)
            rows.append(row)
    meta = {"command": " ".join(["python", *sys.argv]), "gpu": torch.cuda.get_device_name(),
            "date": time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime()), "triton": triton.__version__,
            "torch": torch.__version__}  # fmt: skip
    args.out.write_text(json.dumps({"meta": meta, "rows": rows}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
