"""Compare the plan's launch resources with what TileLang's own lowering decides, on CPU (no GPU, no nvcc).

    python benchmarks/tilelang_sweep/check_lowering.py [--ids gemm-000,flash_attention-084] [--every 7]

For each case: lower the prim_func for sm_90a with ``tilelang.engine.lower`` (TileLang's passes up to CUDA
source; nothing is compiled), read the kernel's ``thread_extent`` and ``dyn_shared_memory_buf`` attributes
(plus the 1 KiB of static barrier memory warp-specialised kernels add), and print them beside the TilePlan's
``resources.threads`` and ``resources.smem_bytes``. A check of the frontend's rules (warp-specialised
producer threads, multi-buffered and liveness-merged shared memory), not part of the model.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import cases as case_list  # noqa: E402


def lowered_resources(func) -> tuple[int, int]:
    from tilelang.engine.lower import lower
    from tvm.target import Target

    target = Target({"kind": "cuda", "arch": "sm_90a"})
    with target:
        art = lower(func, target=target)
    for _, f in art.device_mod.functions.items():
        ext = f.attrs["thread_extent"]
        threads = int(ext["threadIdx.x"]) * int(ext.get("threadIdx.y", 1)) * int(ext.get("threadIdx.z", 1))
        smem = int(f.attrs["dyn_shared_memory_buf"]) if "dyn_shared_memory_buf" in f.attrs else 0
        return threads, smem
    raise RuntimeError("no device function in the lowered module")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ids", default="")
    ap.add_argument("--every", type=int, default=1, help="check every n-th case")
    args = ap.parse_args()
    from tilesight.frontends.tilelang import plan_prim_func
    from tilesight.frontends.tilelang.lower import WS_BARRIER_SMEM_BYTES
    from tilesight.frontends.tilelang.walker import walk

    from tilesight.hardware import load_profile

    hw = load_profile("h200")
    cases = case_list.all_cases()
    if args.ids:
        wanted = set(args.ids.split(","))
        cases = [c for c in cases if c["id"] in wanted]
    cases = cases[:: args.every]
    bad = 0
    for c in cases:
        func = case_list.build(c)
        plan = plan_prim_func(func, hw)
        start = time.time()
        threads, smem = lowered_resources(func)
        # the attribute counts dynamic shared memory; warp-specialised kernels add static barriers
        static = WS_BARRIER_SMEM_BYTES if threads > walk(func).threads else 0
        smem += static
        same = threads == plan.resources.threads and smem == plan.resources.smem_bytes
        bad += not same
        print(
            f"{c['id']:22s} threads {threads:4d} plan {plan.resources.threads:4d}  smem {smem:7d} plan "
            f"{plan.resources.smem_bytes:7d}  {'ok' if same else 'DIFF'}  ({time.time() - start:.1f} s)",
            flush=True,
        )
    print(f"{len(cases) - bad}/{len(cases)} match")
    return 0


if __name__ == "__main__":
    sys.exit(main())
