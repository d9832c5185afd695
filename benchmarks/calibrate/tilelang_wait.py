#!/usr/bin/env python3
"""Probe (GPU): what a TileLang ``T.gemm`` costs per call in a loop, against Triton's dot chain.

    OUT=/some/dir python3 benchmarks/calibrate/tilelang_wait.py --out $OUT/calibration_tilelang_wait.json

TileLang's ``T.gemm`` is synchronous: on Hopper it waits for its ``wgmma`` group to finish before the warps
go on (``tilelang.language.gemm``'s documentation), where a Triton loop keeps one group in flight while it
issues the next. Both run here on operands loaded into shared memory once (no memory traffic in the loop),
``ITERS`` dependent calls per program, one and two programs per SM, for the consumer tile shapes the TileLang
sweep uses (block_M x block_N x block_K on 128 or 256 threads; Triton: the same tile on 4 or 8 warps). The
difference per call at one program per SM is the wait a lone block exposes (read by
``benchmarks/calibrate/analysis.py::tilelang_gemm_wait`` into the profile's ``tc_sync_wait_s``).

Needs TileLang (the carried wheels: ``benchmarks/device/install_wheels.sh``) besides torch and Triton.
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

ITERS = 1024
# (block_M, block_N, block_K, TileLang threads); Triton runs the same tile on threads / 32 warps
SHAPES = (
    (128, 128, 16, 128),
    (128, 128, 32, 128),
    (128, 128, 64, 128),
    (64, 128, 64, 128),
    (128, 256, 32, 256),
    (128, 256, 64, 256),
    (256, 128, 32, 256),
)
PER_SM = (1, 2)
TARGET = {"kind": "cuda", "arch": "sm_90a"}


def tilelang_chain(programs: int, block_m: int, block_n: int, block_k: int, threads: int, iters: int):
    """``iters`` T.gemm calls per program on shared-memory operands copied in once; C out per program."""
    import tilelang.language as T

    dtype, acc = "float16", "float32"

    @T.prim_func
    def main(
        A: T.Tensor((block_m, block_k), dtype),
        B: T.Tensor((block_k, block_n), dtype),
        C: T.Tensor((programs * block_m, block_n), acc),
    ):
        with T.Kernel(programs, threads=threads) as bx:
            a_s = T.alloc_shared((block_m, block_k), dtype)
            b_s = T.alloc_shared((block_k, block_n), dtype)
            c_l = T.alloc_fragment((block_m, block_n), acc)
            T.copy(A[0, 0], a_s)
            T.copy(B[0, 0], b_s)
            T.clear(c_l)
            for _ in T.serial(iters):
                T.gemm(a_s, b_s, c_l)
            T.copy(c_l, C[bx * block_m, 0])

    return main


# The same tiles in TileLang's pipelined, warp-specialised loop: every step copies (TMA) a [block_M, block_K]
# tile of the program's own K panel and a [block_K, block_N] tile of a shared one, PANEL_STEPS steps long and
# re-read cyclically (L2-resident), then runs T.gemm on them: per step, what the pipeline costs beyond the
# tensor-core work of the on-chip chain above. (block_M, block_N, block_K, stages, threads)
PIPELINE_SHAPES = (
    (128, 128, 32, 3, 128),
    (128, 128, 64, 3, 128),
    (64, 128, 64, 4, 128),
    (128, 256, 32, 3, 256),
    (128, 256, 64, 3, 256),
    (256, 128, 32, 3, 256),
)
PANEL_STEPS = 4


def tilelang_pipeline(
    programs: int, block_m: int, block_n: int, block_k: int, stages: int, threads: int, iters: int
):
    """``iters`` pipelined steps per program over cyclically re-read L2-resident K panels."""
    import tilelang.language as T

    dtype, acc = "float16", "float32"

    @T.prim_func
    def main(
        A: T.Tensor((programs * block_m, PANEL_STEPS * block_k), dtype),
        B: T.Tensor((PANEL_STEPS * block_k, block_n), dtype),
        C: T.Tensor((programs * block_m, block_n), acc),
    ):
        with T.Kernel(programs, threads=threads) as bx:
            a_s = T.alloc_shared((block_m, block_k), dtype)
            b_s = T.alloc_shared((block_k, block_n), dtype)
            c_l = T.alloc_fragment((block_m, block_n), acc)
            T.clear(c_l)
            for k in T.Pipelined(iters, num_stages=stages):
                T.copy(A[bx * block_m, (k % PANEL_STEPS) * block_k], a_s)
                T.copy(B[(k % PANEL_STEPS) * block_k, 0], b_s)
                T.gemm(a_s, b_s, c_l)
            T.copy(c_l, C[bx * block_m, 0])

    return main


def _time_kernel(func, inputs: tuple, out, ref) -> dict:
    """Compile ``func`` for TARGET, check its first run's ``out`` against ``ref``, time it (median seconds,
    ``benchmarks.calibrate.measure.bench_s``); with the compiled kernel's source."""
    import tilelang
    import torch

    from benchmarks.calibrate.measure import bench_s

    kernel = tilelang.compile(func, target=TARGET)
    kernel(*inputs)
    torch.cuda.synchronize()
    rel_err = float((out - ref).abs().max() / ref.abs().max().clamp_min(1e-6))
    return {
        "rel_err": rel_err,
        "s": bench_s(functools.partial(kernel, *inputs)),
        "source": kernel.get_kernel_source(),
    }


def _error(exc: Exception) -> str:
    return f"{type(exc).__name__}: {exc}"[:1500]


def chain_points() -> list[dict]:
    """Per call of :func:`tilelang_chain` and per dot of Triton's ``dot_chain`` on the same tile."""
    import torch

    from benchmarks.calibrate import kernels as K
    from benchmarks.calibrate.measure import bench_s, n_sm

    points = []
    for bm, bn, bk, threads in SHAPES:
        a = torch.randn(bm, bk, device="cuda", dtype=torch.float16)
        b = torch.randn(bk, bn, device="cuda", dtype=torch.float16)
        for per_sm in PER_SM:
            programs = n_sm() * per_sm
            c = torch.empty(programs * bm, bn, device="cuda", dtype=torch.float32)
            point = {
                "BM": bm,
                "BN": bn,
                "BK": bk,
                "threads": threads,
                "programs_per_sm": per_sm,
                "iters": ITERS,
            }
            try:
                func = tilelang_chain(programs, bm, bn, bk, threads, ITERS)
                run = _time_kernel(func, (a, b, c), c[:bm], (a.float() @ b.float()) * ITERS)
                point["rel_err"] = run["rel_err"]
                point["tilelang_s"] = run["s"]
                point["tilelang_s_per_call"] = run["s"] / (ITERS * per_sm)
                point["tilelang_source_has_wait"] = "warpgroup_wait<0>" in run["source"]
            except Exception as exc:  # recorded per point, never swallowed
                point["tilelang_error"] = _error(exc)
            out = torch.empty(programs * bm * bn, device="cuda", dtype=torch.float32)
            kw = dict(BM=bm, BN=bn, BK=bk, num_warps=threads // 32)
            t = bench_s(functools.partial(K.dot_chain[(programs,)], a, b, out, ITERS, **kw))
            point["triton_s"] = t
            point["triton_s_per_dot"] = t / (ITERS * per_sm)
            points.append(point)
            print(json.dumps(point), flush=True)
    return points


# The same loop on tiles so small that a step moves 2-8 KB and its dot is 33-131 KFLOP: what a lone
# warp-specialised step costs when neither L2 nor the tensor cores bound it (the producer-consumer handshake),
# one program per SM. (block_M, block_N, block_K, stages, threads)
HANDSHAKE_SHAPES = (
    (64, 64, 16, 2, 128),
    (64, 64, 16, 3, 128),
    (64, 64, 16, 4, 128),
    (64, 32, 16, 3, 128),
    (64, 64, 32, 3, 128),
    (128, 64, 16, 3, 256),
)


def pipeline_points(shapes: tuple = PIPELINE_SHAPES, per_sm_list: tuple = PER_SM) -> list[dict]:
    """Seconds per pipelined step of :func:`tilelang_pipeline` at one and two programs per SM."""
    import torch

    from benchmarks.calibrate.measure import n_sm

    points = []
    for bm, bn, bk, stages, threads in shapes:
        for per_sm in per_sm_list:
            programs = n_sm() * per_sm
            point = {
                "BM": bm,
                "BN": bn,
                "BK": bk,
                "stages": stages,
                "threads": threads,
                "programs_per_sm": per_sm,
            }
            try:
                a = torch.randn(programs * bm, PANEL_STEPS * bk, device="cuda", dtype=torch.float16)
                b = torch.randn(PANEL_STEPS * bk, bn, device="cuda", dtype=torch.float16)
                c = torch.empty(programs * bm, bn, device="cuda", dtype=torch.float32)
                func = tilelang_pipeline(programs, bm, bn, bk, stages, threads, ITERS)
                ref = (a[:bm].float() @ b.float()) * (ITERS // PANEL_STEPS)
                run = _time_kernel(func, (a, b, c), c[:bm], ref)
                point["rel_err"] = run["rel_err"]
                point["s"] = run["s"]
                point["s_per_step"] = run["s"] / (ITERS * per_sm)
                point["source_has_mbarrier"] = "mbarrier" in run["source"].lower()
            except Exception as exc:  # recorded per point, never swallowed
                point["error"] = _error(exc)
            points.append(point)
            print(json.dumps(point), flush=True)
    return points


def main(argv: list[str] | None = None) -> int:
    from benchmarks.calibrate import tilelang_probe

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--only-pipeline", action="store_true", help="skip the on-chip chains")
    ap.add_argument("--only-handshake", action="store_true", help="only the small-tile pipelined steps")
    args = ap.parse_args(argv)
    if not tilelang_probe.gpu_ready():
        return 2
    if args.only_handshake:
        pts = pipeline_points(HANDSHAKE_SHAPES, (1,))
        tilelang_probe.write(args.out, {"tilelang_handshake": {"points": pts}})
        return 0
    t0 = time.time()
    chains = [] if args.only_pipeline else chain_points()
    elapsed = round(time.time() - t0, 2)
    tilelang_probe.write(
        args.out,
        {
            "tilelang_wait": {"points": chains, "elapsed_s": elapsed},
            "tilelang_pipeline": {"points": pipeline_points()},
        },
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
