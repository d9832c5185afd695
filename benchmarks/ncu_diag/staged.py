#!/usr/bin/env python3
"""Shared-memory stores of the staged-operand GEMMs (``benchmarks/survey_triton/k_staged.py``) on the GPU.

    python3 benchmarks/ncu_diag/staged.py --out $OUT/staged_sass.json         # SASS counts per case
    ncu --metrics ... python3 benchmarks/ncu_diag/staged.py --launch-only     # two launches per case

The model (``tilesight.frontends.triton.banks``) prices a tile the threads store into shared memory by the
wavefronts its ``st.shared`` instructions take, worked out from the register and shared layouts in the TTGIR
compiled on CPU (Triton 3.9 there). This records what the GPU's Triton (3.6) built: the count of each
``STS`` form in the SASS, registers, spills; under ncu, the executed shared-store instructions and their
wavefronts (``l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st``) per launch, the direct check of the
wavefront count. Every case is launched twice (compile, then the launch ncu keeps).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "survey_triton"))

import harness  # noqa: E402
import run_gpu  # noqa: E402
import torch  # noqa: E402
import triton  # noqa: E402
from sass import sass_counts  # noqa: E402

SASS_OPS = re.compile(r"\b(STS[\w.]*|LDS[\w.]*|LDGSTS[\w.]*|[HIQ]GMMA[\w.]*)\b")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path)
    ap.add_argument(
        "--launch-only", action="store_true", help="two launches per case (for ncu), nothing else"
    )
    ap.add_argument("--only", default="", help="comma-separated case names (default: every staged case)")
    args = ap.parse_args()
    wanted = set(filter(None, args.only.split(",")))
    rows = []
    for c in harness.cases_of("staged"):
        if wanted and c.name not in wanted:
            continue
        print(f"NCU_DIAG_CASE {c.name}", flush=True)
        zeros: list[str] = []
        launch_args = [
            run_gpu._tensor(a, zeros, i) if isinstance(a, harness.T) else a for i, a in enumerate(c.args)
        ]
        kernel = c.fn[tuple(c.grid)]
        compiled = kernel(*launch_args, **c.kw)
        kernel(*launch_args, **c.kw)
        torch.cuda.synchronize()
        if args.launch_only:
            continue
        rows.append(
            {
                "case": c.name,
                "grid": list(c.grid),
                "n_regs": int(compiled.n_regs),
                "n_spills": int(compiled.n_spills),
                "sass": sass_counts(compiled, SASS_OPS),
            }  # fmt: skip
        )
        print(json.dumps(rows[-1]), flush=True)
    if args.out is not None:
        meta = {"command": " ".join([sys.executable, *sys.argv]), "gpu": torch.cuda.get_device_name(0),
                "triton": triton.__version__, "torch": torch.__version__}  # fmt: skip
        args.out.write_text(json.dumps({"meta": meta, "rows": rows}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
