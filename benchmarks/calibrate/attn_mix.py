#!/usr/bin/env python3
"""Probe (GPU): how an attention loop's CUDA-core and special-function work adds to its tensor-core work.

    python3 benchmarks/calibrate/attn_mix.py --out $OUT/calibration_attn_mix.json

An attention iteration runs ``S = Q K^T``, element-wise work on ``S`` and ``O += P V`` in the same warps, each
step waiting for the one before. How much of the element-wise work hides under the dots is what this probe
measures: one loop of ``ITERS`` iterations per program, each reading the next K and V blocks of its head as
the real kernel does (``QUERY_BLOCKS`` programs share a head, so its blocks are fetched once and hit L2 for
the others), and between the two dots a controlled amount of work on ``S``:

* ``exp``: ``P = exp2(S)`` (special-function units) or ``P = S``;
* ``masks``: that many causal-style masks, ``S = where(rows + i >= keys, S, -1e6)`` (an integer compare and a
  select an element, as the causal kernel's mask compiles);
* ``fmas``: that many ``S = S * a + b`` (one fused multiply-add an element).

Tiles (``BLOCK_M x BLOCK_N``, head dim 64, 4 or 8 warps) and one or two programs per SM (a grid of 132 or
264) vary the issue slots and the overlap between blocks. ``tilesight`` predicts every point too (the
``predicted_us`` field), so the model's treatment of this work is scored on the same launches.
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

ITERS = 256
HEAD_DIM = 64
QUERY_BLOCKS = 8  # programs of one head, reading the same K and V blocks (a 1024-token head at BLOCK_M 128)
SMS = 132
# (BLOCK_M, BLOCK_N, num_warps)
TILES = ((128, 64, 4), (128, 64, 8), (128, 128, 8), (64, 64, 4))
EXPS = (False, True)
MASKS = (0, 2, 4)
FMAS = (0, 4, 8)
PER_SM = (1, 2)


@triton.jit
def attn_mix_kernel(
    q_ptr,
    k_ptr,
    v_ptr,
    o_ptr,
    iters,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    HEAD: tl.constexpr,
    QB: tl.constexpr,
    EXP: tl.constexpr,
    MASKS: tl.constexpr,
    FMAS: tl.constexpr,
):
    pid = tl.program_id(0)
    rows = tl.arange(0, BLOCK_M)
    dims = tl.arange(0, HEAD)
    q = tl.load(q_ptr + pid * BLOCK_M * HEAD + rows[:, None] * HEAD + dims[None, :])
    acc = tl.zeros((BLOCK_M, HEAD), dtype=tl.float32)
    head = (pid // QB).to(tl.int64) * iters * BLOCK_N * HEAD
    for it in range(iters):
        keys = tl.arange(0, BLOCK_N)
        kv = head + it * BLOCK_N * HEAD
        kt = tl.load(k_ptr + kv + keys[None, :] * HEAD + dims[:, None])
        s = tl.dot(q, kt)
        for i in tl.static_range(MASKS):
            s = tl.where(rows[:, None] + (i + it) >= keys[None, :], s, -1.0e6)
        for i in tl.static_range(FMAS):
            s = s * 0.999 + 0.001 * (i + 1)
        if EXP:
            p = tl.math.exp2(s * 0.01)
        else:
            p = s
        v = tl.load(v_ptr + kv + keys[:, None] * HEAD + dims[None, :])
        acc += tl.dot(p.to(tl.float16), v)
    tl.store(o_ptr + pid * BLOCK_M * HEAD + rows[:, None] * HEAD + dims[None, :], acc)


def points(tiles=TILES, masks=MASKS, fmas=FMAS) -> list[dict]:
    return [
        {"block_m": bm, "block_n": bn, "warps": w, "exp": e, "masks": m, "fmas": f, "per_sm": r}
        for (bm, bn, w), e, m, f, r in itertools.product(tiles, EXPS, masks, fmas, PER_SM)
    ]


def _tiles(text: str) -> tuple[tuple[int, int, int], ...]:
    """``"128x32x4,64x32x8"`` -> ((128, 32, 4), (64, 32, 8)): BLOCK_M x BLOCK_N x num_warps."""
    try:
        return tuple(tuple(int(x) for x in t.split("x")) for t in text.split(","))  # type: ignore[misc]
    except ValueError as e:
        raise argparse.ArgumentTypeError(f"--tiles {text!r}: expected BMxBNxWARPS[,...]") from e


def _args(p: dict, make):
    """(q, k, v, o) built by ``make(shape)`` for point ``p``; its grid."""
    programs = SMS * p["per_sm"]
    q = make((programs * p["block_m"], HEAD_DIM))
    heads = -(-programs // QUERY_BLOCKS)
    k = make((heads * ITERS * p["block_n"], HEAD_DIM))
    v = make((heads * ITERS * p["block_n"], HEAD_DIM))
    o = make((programs * p["block_m"], HEAD_DIM), "float32")
    return (q, k, v, o), (programs,)


def _meta(p: dict) -> dict:
    return dict(
        BLOCK_M=p["block_m"], BLOCK_N=p["block_n"], HEAD=HEAD_DIM, QB=QUERY_BLOCKS, EXP=p["exp"],
        MASKS=p["masks"], FMAS=p["fmas"], num_warps=p["warps"], num_stages=2,
    )  # fmt: skip


def predict_us(p: dict, hw: str = "h200") -> float:
    """TileSight's prediction of point ``p`` (CPU)."""
    import tilesight
    from tilesight import TensorSpec

    args, grid = _args(p, lambda shape, dtype="float16": TensorSpec(shape, dtype))
    return tilesight.estimate(attn_mix_kernel, grid, *args, ITERS, hw=hw, **_meta(p)).latency_us


def main(argv: list[str] | None = None) -> int:
    import torch

    from benchmarks.calibrate.measure import timed_launch

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--tiles", type=_tiles, default=TILES, help="BMxBNxWARPS,... (default: TILES)")
    ap.add_argument("--plain", action="store_true", help="no masks or FMAs: the dots alone and with exp2")
    args = ap.parse_args(argv)
    torch.manual_seed(0)
    t0 = time.time()
    out = []
    dtypes = {"float16": torch.float16, "float32": torch.float32}

    def make(shape: tuple[int, ...], dtype: str = "float16"):
        return torch.randn(shape, device="cuda", dtype=dtypes[dtype]) * 0.1

    for p in points(args.tiles, (0,), (0,)) if args.plain else points(args.tiles):
        tensors, grid = _args(p, make)
        timed = timed_launch(attn_mix_kernel, grid, (*tensors, ITERS), _meta(p))
        if "error" in timed:
            out.append({**p, **timed})
            continue
        out.append({**p, **timed, "s_per_iter": timed["s"] / ITERS})
        print(json.dumps(out[-1]), flush=True)
    doc = {
        "probe": "attn_mix",
        "iters": ITERS,
        "head_dim": HEAD_DIM,
        "device": torch.cuda.get_device_name(0),
        "triton": triton.__version__,
        "elapsed_s": round(time.time() - t0, 1),
        "points": out,
    }
    args.out.write_text(json.dumps(doc, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
