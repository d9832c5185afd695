#!/usr/bin/env python3
"""Probe (GPU): how a pipelined GEMM-shaped loop's iteration time falls with its stages, at one to four
programs per SM, against how much it reads (data for the GEMM stage bias in docs/known-gaps.md).

    python3 benchmarks/calibrate/stage_latency.py --out $OUT/calibration_stage_latency.json

Validation 16 measured the same 128x128x64 4-warp GEMM tile at 3072^3 148 / 124 / 110 us at 2 / 3 / 4 stages
where TileSight predicts 111 / 106 / 121: a load's latency under a busy L2 looks far longer than the profile's
figures. This loop isolates it. Every program runs ``ITERS`` steps of ``acc += A_tile @ B_tile``: a
``BLOCK_M x BLOCK_K`` tile of A (its own rows, cycling over ``K_TILES`` K blocks, so A stays in L2) and a
``BLOCK_K x N`` tile of B, pipelined by Triton over ``num_stages`` (async copies, as a GEMM's are). ``N`` sets
the tensor-core work per step against the same A bytes: 16 columns (the loads almost alone) or 128 (a GEMM
tile). The grid is ``per_sm`` programs per SM, all resident at once where shared memory and registers allow
(``n_regs`` and ``smem_bytes`` are recorded so a point whose programs did not fit is visible). TileSight
predicts every point too (``predicted_us``). With ``--dram`` every program reads its own rows of A and never
the same K block twice (``ITERS`` K blocks), so A streams from DRAM while B stays in L2.

``--lone`` (implies ``--dram``) times what a block alone on its SM waits for a DRAM tile (stop 64's open
question: is the one-block DRAM rate of the ``sm_stream`` probe, 55 GB/s, the SM's copy rate or its in-flight
bytes over the latency?): one program an SM on 16 or 132 SMs, N 16 (the loads almost alone), two and three
stages, A tiles of 4-32 KB at 128-byte rows (``BLOCK_M`` 32-256 at ``BLOCK_K`` 64) and 16 KB at 64- and
256-byte rows. A step's time against the tile's bytes at two stages is the latency plus the bytes at the rate.

    python3 benchmarks/calibrate/stage_latency.py --lone --out $OUT/calibration_lone_step.json

``--deep`` (implies ``--lone``) asks what stop 66 left open: the lone-block GEMMs of the pooled sets run
slower than the lone probe's line the more bytes they hold in flight (measured / predicted 0.94 under 16 KB of
``(stages - 1) x`` the tile, 1.21 above 128 KB), where the probe stops at three stages. At 16 SMs, four and
five stages of 64-256 x 64 A tiles (up to 128 KB in flight), each at N 16 (the loads almost alone) and N 128
(a GEMM tile's dot), on 4 and 8 warps: whether the step keeps falling as ``1 / (stages - 1)``, and whether the
dot or the warps change that.

    python3 benchmarks/calibrate/stage_latency.py --deep --out $OUT/calibration_lone_deep.json
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from pathlib import Path

import triton
import triton.language as tl

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

ITERS = 512
K_TILES = 32  # K blocks each program cycles over: A rows x 32 x BLOCK_K stay in L2
ROW_BLOCKS = 16  # distinct A row blocks; program p reads block p % ROW_BLOCKS
SMS = 132
# (BLOCK_M, BLOCK_K, N, num_warps)
TILES = ((128, 64, 16, 4), (128, 64, 128, 4), (128, 32, 128, 4), (64, 64, 128, 4))
STAGES = (2, 3, 4, 5)
PER_SM = (1, 2, 3, 4)


@triton.jit
def stage_latency_kernel(
    a_ptr, b_ptr, out_ptr, iters, K_TILES: tl.constexpr, ROWS: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr, N: tl.constexpr,
):  # fmt: skip
    pid = tl.program_id(0)
    rows = ((pid % ROWS) * BLOCK_M + tl.arange(0, BLOCK_M)).to(tl.int64)  # --dram's A passes 2**31 elements
    ks = tl.arange(0, BLOCK_K)
    cols = tl.arange(0, N)
    width = K_TILES * BLOCK_K
    acc = tl.zeros((BLOCK_M, N), dtype=tl.float32)
    for it in range(iters):
        k0 = (it % K_TILES) * BLOCK_K
        a = tl.load(a_ptr + rows[:, None] * width + (k0 + ks)[None, :])
        b = tl.load(b_ptr + (k0 + ks)[:, None] * N + cols[None, :])
        acc = tl.dot(a, b, acc)
    tl.store(out_ptr + pid * BLOCK_M * N + tl.arange(0, BLOCK_M)[:, None] * N + cols[None, :], acc)


# --lone: (BLOCK_M, BLOCK_K) of A at N 16 on 4 warps, one program an SM on LONE_SMS SMs, LONE_STAGES stages
LONE_TILES = ((32, 64), (64, 64), (128, 64), (256, 64), (256, 32), (64, 128))
LONE_SMS = (16, 132)
LONE_STAGES = (2, 3)
# --deep: (BLOCK_M, BLOCK_K) of A, N and warps, one program an SM on 16 SMs, DEEP_STAGES stages
DEEP_TILES = ((64, 64), (128, 64), (256, 64))
DEEP_N = (16, 128)
DEEP_WARPS = (4, 8)
DEEP_STAGES = (2, 3, 4, 5)


def points(lone: bool = False, deep: bool = False) -> list[dict]:
    if not (lone or deep):
        return [
            {"block_m": bm, "block_k": bk, "n": n, "warps": w, "stages": s, "per_sm": r}
            for (bm, bk, n, w), s, r in itertools.product(TILES, STAGES, PER_SM)
        ]
    # one program an SM streaming its own rows of A from DRAM: (tile, N, warps, stages, SMs)
    if deep:
        grid = itertools.product(DEEP_TILES, DEEP_N, DEEP_WARPS, DEEP_STAGES, (16,))
    else:
        grid = (
            (tile, 16, 4, s, sms) for tile, sms, s in itertools.product(LONE_TILES, LONE_SMS, LONE_STAGES)
        )
    return [
        {"block_m": bm, "block_k": bk, "n": n, "warps": w, "stages": s, "per_sm": 1, "sms": sms, "dram": True}
        for (bm, bk), n, w, s, sms in grid
    ]


def _shape(p: dict) -> tuple[int, int]:
    """(row blocks, K blocks) of A for point ``p``: shared L2-resident rows, or with ``dram`` one row block
    a program and ``ITERS`` K blocks (A streams from DRAM)."""
    if p.get("dram"):
        return p.get("sms", SMS) * p["per_sm"], ITERS
    return ROW_BLOCKS, K_TILES


def _args(p: dict, make):
    """(a, b, out) built by ``make(shape, dtype)`` for point ``p`` (``sms``: the SMs it runs on, all 132 where
    the point does not say); its grid."""
    programs = p.get("sms", SMS) * p["per_sm"]
    rows, k_tiles = _shape(p)
    a = make((rows * p["block_m"], k_tiles * p["block_k"]), "float16")
    b = make((k_tiles * p["block_k"], p["n"]), "float16")
    out = make((programs * p["block_m"], p["n"]), "float32")
    return (a, b, out), (programs,)


def _meta(p: dict) -> dict:
    rows, k_tiles = _shape(p)
    return dict(
        K_TILES=k_tiles, ROWS=rows, BLOCK_M=p["block_m"], BLOCK_K=p["block_k"], N=p["n"],
        num_warps=p["warps"], num_stages=p["stages"],
    )  # fmt: skip


def predict_us(p: dict, hw: str = "h200") -> float:
    """TileSight's prediction of point ``p`` (CPU)."""
    import tilesight
    from tilesight import TensorSpec

    args, grid = _args(p, lambda shape, dtype: TensorSpec(shape, dtype))
    return tilesight.estimate(stage_latency_kernel, grid, *args, ITERS, hw=hw, **_meta(p)).latency_us


def main(argv: list[str] | None = None) -> int:
    import torch

    from benchmarks.calibrate.measure import timed_launch

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--no-predict", action="store_true", help="leave out TileSight's predictions")
    ap.add_argument("--dram", action="store_true", help="A streams from DRAM (see the module docstring)")
    ap.add_argument(
        "--lone", action="store_true", help="lone blocks' DRAM steps over tile sizes (implies --dram)"
    )
    ap.add_argument(
        "--deep",
        action="store_true",
        help="lone blocks at 2-5 stages, N 16 and 128, 4 and 8 warps (implies --lone)",
    )
    args = ap.parse_args(argv)
    args.lone = args.lone or args.deep
    args.dram = args.dram or args.lone
    torch.manual_seed(0)
    t0 = time.time()
    out = []
    dtypes = {"float16": torch.float16, "float32": torch.float32}

    def make(shape: tuple[int, ...], dtype: str):
        return torch.randn(shape, device="cuda", dtype=dtypes[dtype]) * 0.1

    for p in points(args.lone, args.deep):
        p = {**p, "dram": args.dram}
        tensors, grid = _args(p, make)
        timed = timed_launch(stage_latency_kernel, grid, (*tensors, ITERS), _meta(p))
        if "error" in timed:
            out.append({**p, **timed})
            continue
        row = {**p, **timed, "s_per_iter": timed["s"] / ITERS}
        row["a_bytes_per_sm_per_s"] = p["per_sm"] * p["block_m"] * p["block_k"] * 2 * ITERS / timed["s"]
        if not args.no_predict:
            try:
                row["predicted_us"] = predict_us(p)
            except Exception as e:  # the model's refusal is recorded with the point
                row["predicted_error"] = f"{type(e).__name__}: {str(e)[:200]}"
        out.append(row)
        print(json.dumps(row), flush=True)
    doc = {
        "probe": "stage_latency",
        "iters": ITERS,
        "k_tiles": ITERS if args.dram else K_TILES,
        "row_blocks": "one a program" if args.dram else ROW_BLOCKS,
        "dram": args.dram,
        "lone": args.lone,
        "deep": args.deep,
        "device": torch.cuda.get_device_name(0),
        "triton": triton.__version__,
        "elapsed_s": round(time.time() - t0, 1),
        "points": out,
    }
    args.out.write_text(json.dumps(doc, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
