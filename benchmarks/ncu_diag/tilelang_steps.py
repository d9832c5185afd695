#!/usr/bin/env python3
"""Where a TileLang GEMM's loop step goes: ncu of block_K 32 against 64 and 2 against 3 stages (GPU).

    PYTHONPATH=/tmp/tilelang_site python3 benchmarks/ncu_diag/tilelang_steps.py --out $OUT/steps.json
    ncu --section ... python3 benchmarks/ncu_diag/tilelang_steps.py --launch-only     # two launches a config

The model predicts the reference GEMM's block_K=32 configs 10-20% fast and its 2-stage configs 11-15% slow
(docs/tilelang.md: the biases per block configuration; docs/known-gaps.md: TileLang GEMM); every config
runs one block per SM. This times the configs at 4096^3 fp16
and, under ncu, gives the tensor pipe's activity and the warps' stall reasons per config: the data for a
per-step cost of warp-specialised loops. Every config is launched twice (compile, then the launch ncu keeps).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tilelang_sweep"))

import cases as case_list  # noqa: E402

SIZE = 4096
# (block_M, block_N, block_K, num_stages, threads): the reference set's block_K 32 / 64 pairs and a stage pair
CONFIGS = (
    (128, 128, 32, 3, 128),
    (128, 128, 64, 3, 128),
    (128, 256, 32, 3, 256),
    (128, 256, 64, 3, 256),
    (128, 128, 64, 2, 256),
    (128, 128, 64, 3, 256),
)


def _case(cfg: tuple) -> dict:
    bm, bn, bk, st, th = cfg
    params = dict(M=SIZE, N=SIZE, K=SIZE, block_M=bm, block_N=bn, block_K=bk, num_stages=st, threads=th)
    params.update(dtype="float16", accum_dtype="float32", use_swizzle=True, panel_size=10)
    return {"id": f"gemm_m{bm}n{bn}k{bk}s{st}t{th}", "family": "gemm", "kernel": "gemm", "params": params}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path)
    ap.add_argument("--launch-only", action="store_true", help="two launches per config (for ncu), no timing")
    args = ap.parse_args()
    import tilelang
    import torch
    import triton

    rows = []
    for cfg in CONFIGS:
        case = _case(cfg)
        print(f"NCU_DIAG_CASE {case['id']}", flush=True)
        kernel = tilelang.compile(case_list.build(case), target={"kind": "cuda", "arch": "sm_90a"})
        a = torch.randn(SIZE, SIZE, device="cuda", dtype=torch.float16)
        b = torch.randn(SIZE, SIZE, device="cuda", dtype=torch.float16)
        c = torch.empty(SIZE, SIZE, device="cuda", dtype=torch.float16)
        kernel(a, b, c)
        kernel(a, b, c)
        torch.cuda.synchronize()
        if args.launch_only:
            continue
        ms = triton.testing.do_bench(lambda k=kernel, a=a, b=b, c=c: k(a, b, c), warmup=25, rep=100)
        rows.append({"case": case["id"], "config": cfg, "p50_us": ms * 1e3, "tflops": 2 * SIZE**3 / ms / 1e9})
        print(json.dumps(rows[-1]), flush=True)
    if args.out is not None:
        meta = {"command": " ".join([sys.executable, *sys.argv]), "gpu": torch.cuda.get_device_name(0),
                "tilelang": tilelang.__version__, "torch": torch.__version__}  # fmt: skip
        args.out.write_text(json.dumps({"meta": meta, "rows": rows}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
