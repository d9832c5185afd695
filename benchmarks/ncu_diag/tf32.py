#!/usr/bin/env python3
"""Why fp32 (TF32) Triton GEMMs run 3-4x slower than the TF32 rate: time, SASS and an ncu profile (GPU).

    python3 benchmarks/ncu_diag/tf32.py --out $OUT/tf32.json            # time + SASS counts (no ncu)
    ncu ... python3 benchmarks/ncu_diag/tf32.py --launch-only           # two launches per case, for ncu

Validation 7 measured fp32 GEMMs of ``kernels.triton.gemm`` at 82-87 TFLOP/s on the H200. Triton compiles
a TF32 ``tl.dot`` to ``wgmma`` with both operands K-major in shared memory, so a row-major B tile (N
contiguous in global memory) is stored transposed and copied one 4-byte element per ``cp.async``
(``LDGSTS.E``; the A tile beside it moves 16-byte vectors). The control here is the same GEMM with B stored
K-major (column-major strides): its tile needs no transposition. Each case records p50 time, achieved
TFLOP/s, registers, and the count of each ``LDGSTS`` / ``HGMMA`` form in the kernel's SASS (cuobjdump of
the cubin Triton built), so the lowering the GPU's Triton chose is on record beside the timing.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import torch  # noqa: E402
import triton  # noqa: E402
from sass import sass_counts  # noqa: E402

from kernels.triton.gemm import matmul_kernel  # noqa: E402

SIZE = 4096
# (block_m, block_n, block_k, num_warps, num_stages, group_m)
CONFIGS = ((128, 64, 32, 4, 4, 8), (128, 128, 32, 4, 3, 8), (128, 256, 32, 8, 3, 8))
SASS_OPS = re.compile(r"\b(LDGSTS[\w.]*|HGMMA[\w.]*|LDS[\w.]*|STS[\w.]*|LDG[\w.]*|BAR[\w.]*)\b")


def _operands(b_layout: str) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    a = torch.randn(SIZE, SIZE, device="cuda", dtype=torch.float32)
    b = torch.randn(SIZE, SIZE, device="cuda", dtype=torch.float32)
    if b_layout == "k_major":  # the same values, stored column-major: strides (1, K)
        b = b.t().contiguous().t()
    return a, b, torch.empty(SIZE, SIZE, device="cuda", dtype=torch.float32)


def _launch(a, b, c, cfg):
    bm, bn, bk, warps, stages, group = cfg
    grid = (triton.cdiv(SIZE, bm) * triton.cdiv(SIZE, bn),)
    strides = (*a.stride(), *b.stride(), *c.stride())
    return matmul_kernel[grid](
        a, b, c, SIZE, SIZE, SIZE, *strides,
        BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=group, num_warps=warps, num_stages=stages,
    )  # fmt: skip


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path)
    ap.add_argument("--launch-only", action="store_true", help="two launches per case (for ncu), no timing")
    args = ap.parse_args()
    rows = []
    for b_layout in ("row_major", "k_major"):
        a, b, c = _operands(b_layout)
        for cfg in CONFIGS:
            name = f"tf32_{b_layout}_m{cfg[0]}n{cfg[1]}k{cfg[2]}w{cfg[3]}s{cfg[4]}g{cfg[5]}"
            print(f"NCU_DIAG_CASE {name}", flush=True)
            compiled = _launch(a, b, c, cfg)
            _launch(a, b, c, cfg)
            torch.cuda.synchronize()
            if args.launch_only:
                continue
            err = float((c - a @ b).abs().max() / (a @ b).abs().max())
            ms = triton.testing.do_bench(
                lambda a=a, b=b, c=c, cfg=cfg: _launch(a, b, c, cfg), warmup=25, rep=100, quantiles=[0.5]
            )
            ms = ms[0] if isinstance(ms, (list, tuple)) else ms
            rows.append(
                {
                    "case": name,
                    "b_layout": b_layout,
                    "config": cfg,
                    "p50_us": ms * 1e3,
                    "tflops": 2 * SIZE**3 / (ms * 1e-3) / 1e12,
                    "max_rel_err": err,
                    "n_regs": int(compiled.n_regs),
                    "n_spills": int(compiled.n_spills),
                    "sass": sass_counts(compiled, SASS_OPS),
                }
            )
            print(json.dumps(rows[-1]), flush=True)
    if args.out is not None:
        meta = {"command": " ".join([sys.executable, *sys.argv]), "gpu": torch.cuda.get_device_name(0),
                "triton": triton.__version__, "torch": torch.__version__}  # fmt: skip
        args.out.write_text(json.dumps({"meta": meta, "rows": rows}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
