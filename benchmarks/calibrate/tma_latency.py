#!/usr/bin/env python3
"""Probe (GPU): how long one step of TileLang's warp-specialised TMA pipeline waits for its tiles when a block
is alone on its SM, from DRAM and from L2.

    PYTHONPATH=/tmp/tilelang_site python3 benchmarks/calibrate/tma_latency.py \
        --out $OUT/calibration_tma_latency.json

The kernel is the GEMM's loop (``T.Pipelined`` copying a [block_M, block_K] and a [block_K, block_N] tile to
shared memory, then ``T.gemm``), which TileLang 0.1.15 lowers on Hopper to a producer warpgroup issuing TMA
loads and consumers that wait for each ``wgmma`` group before they release the stage (the lowered CUDA:
``warpgroup_wait<0>`` then the stage's ``empty`` barrier). With ``s`` stages a stage's next load is issued
only once its tiles have been consumed, so in steady state a step lasts at least
``(latency + bytes / rate + mma) / s``: the load's latency, its transfer and the step's tensor-core work, once
around the ring of stages.

Each program reads tiles of its own (a batched GEMM, one batch a program), so no two SMs share a line:

- ``dram``: a K long enough that every step's tiles come from DRAM (a 2-8 GB stream, read once), at
  PROGRAMS programs (one per SM, few enough SMs that DRAM bandwidth is not the bound);
- ``l2``: the same programs re-reading a private panel of PANEL_STEPS steps cyclically (L2-resident after the
  first pass).

The step's tensor-core time comes from the same tiles with the loads taken out: ``T.gemm`` on tiles copied
once, the ``tilelang_wait`` probe's ``tilelang_chain``. Read by ``benchmarks/calibrate/analysis.py`` (hand-run
here: the analysis of the points is printed by ``python benchmarks/probe_report.py tma``).
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from benchmarks.calibrate.tilelang_wait import tilelang_chain  # noqa: E402  (the on-chip T.gemm chain)

ITERS = 1024  # pipelined steps per program
PANEL_STEPS = 8  # the l2 form's private panel, in steps
# (block_M, block_N, block_K, stages, threads): the TileLang GEMM sweep's consumer shapes and depths
SHAPES = (
    (128, 128, 32, 2, 128),
    (128, 128, 32, 3, 128),
    (128, 128, 32, 4, 128),
    (128, 128, 64, 2, 128),
    (128, 128, 64, 3, 128),
    (128, 128, 64, 2, 256),
    (64, 128, 64, 4, 128),
    (128, 256, 32, 3, 256),
)
PROGRAMS = (16, 66, 132)
TARGET = {"kind": "cuda", "arch": "sm_90a"}


def pipeline(programs: int, bm: int, bn: int, bk: int, stages: int, threads: int, panel: int | None):
    """``ITERS`` pipelined steps per program on its own A [programs, bm, K] and B [programs, K, bn] slices;
    ``panel``: re-read that many steps cyclically (None: a fresh tile every step)."""
    import tilelang.language as T

    dtype, acc = "float16", "float32"

    @T.prim_func
    def main(
        A: T.Tensor((programs, bm, (panel or ITERS) * bk), dtype),
        B: T.Tensor((programs, (panel or ITERS) * bk, bn), dtype),
        C: T.Tensor((programs, bm, bn), acc),
    ):
        with T.Kernel(programs, threads=threads) as bx:
            a_s = T.alloc_shared((bm, bk), dtype)
            b_s = T.alloc_shared((bk, bn), dtype)
            c_l = T.alloc_fragment((bm, bn), acc)
            T.clear(c_l)
            for k in T.Pipelined(ITERS, num_stages=stages):
                step = (k % panel) if panel else k
                T.copy(A[bx, 0, step * bk], a_s)
                T.copy(B[bx, step * bk, 0], b_s)
                T.gemm(a_s, b_s, c_l)
            T.copy(c_l, C[bx, 0, 0])

    return main


def _run(func, inputs: tuple) -> tuple[float, str]:
    import tilelang

    from benchmarks.calibrate.measure import bench_s

    kernel = tilelang.compile(func, target=TARGET)
    return bench_s(functools.partial(kernel, *inputs)), kernel.get_kernel_source()


def _builds() -> list[tuple]:
    """(builder name, arguments) of every kernel :func:`points` compiles."""
    out: list[tuple] = []
    for bm, bn, bk, stages, threads in SHAPES:
        out.append(("tilelang_chain", (1, bm, bn, bk, threads, ITERS)))
        for programs in PROGRAMS:
            for panel in (None, PANEL_STEPS):
                out.append(("pipeline", (programs, bm, bn, bk, stages, threads, panel)))
    return out


def _compile(build: tuple) -> str | None:
    """Compile one kernel (in a worker process: fills TileLang's kernel cache for the timing process)."""
    import tilelang

    name, args = build
    try:
        tilelang.compile(globals()[name](*args), target=TARGET)
    except Exception as exc:  # reported by the worker, raised again when the timing process compiles it
        return f"{name}{args}: {type(exc).__name__}: {exc}"[:400]
    return None


def precompile(workers: int = 12) -> None:
    """Compile every kernel in a spawn process pool first (nvcc dominates; one process would take minutes)."""
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing import get_context

    with ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn")) as pool:
        for err in pool.map(_compile, _builds()):
            if err:
                print(f"[tma_latency] compile failed: {err}", flush=True)


def points() -> list[dict]:
    import torch

    out = []
    for bm, bn, bk, stages, threads in SHAPES:
        base = {"BM": bm, "BN": bn, "BK": bk, "stages": stages, "threads": threads}
        try:
            c = torch.empty(bm, bn, device="cuda", dtype=torch.float32)
            a = torch.randn(bm, bk, device="cuda", dtype=torch.float16)
            b = torch.randn(bk, bn, device="cuda", dtype=torch.float16)
            t, _ = _run(tilelang_chain(1, bm, bn, bk, threads, ITERS), (a, b, c))
            chain_step = t / ITERS
        except Exception as exc:  # recorded, never swallowed
            chain_step = None
            print(json.dumps({**base, "chain_error": f"{type(exc).__name__}: {exc}"[:800]}), flush=True)
        for programs in PROGRAMS:
            for form, panel in (("dram", None), ("l2", PANEL_STEPS)):
                point = {**base, "form": form, "programs": programs, "chain_s_per_step": chain_step}
                try:
                    k_len = (panel or ITERS) * bk
                    a = torch.randn(programs, bm, k_len, device="cuda", dtype=torch.float16)
                    b = torch.randn(programs, k_len, bn, device="cuda", dtype=torch.float16)
                    c = torch.empty(programs, bm, bn, device="cuda", dtype=torch.float32)
                    t, src = _run(pipeline(programs, bm, bn, bk, stages, threads, panel), (a, b, c))
                    point["s"] = t
                    point["s_per_step"] = t / ITERS
                    point["bytes_per_step"] = (bm * bk + bk * bn) * 2
                    point["warp_specialised"] = "warpgroup_reg_alloc" in src
                    point["tma"] = "tma_load" in src
                    del a, b, c
                    torch.cuda.empty_cache()
                except Exception as exc:  # recorded per point, never swallowed
                    point["error"] = f"{type(exc).__name__}: {exc}"[:800]
                out.append(point)
                print(json.dumps(point), flush=True)
    return out


def main(argv: list[str] | None = None) -> int:
    from benchmarks.calibrate import tilelang_probe

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, type=Path)
    args = ap.parse_args(argv)
    if not tilelang_probe.gpu_ready():
        return 2
    precompile()
    doc = {"points": points(), "iters": ITERS, "panel": PANEL_STEPS}
    tilelang_probe.write(args.out, {"tma_latency": doc})
    return 0


if __name__ == "__main__":
    sys.exit(main())
