#!/usr/bin/env python3
"""Probe: what one tile costs a persistent GEMM program, against the same tiles launched one per block.

Validation 25 measured every descriptor persistent GEMM 5-14% faster than the model (the pointer persistent
GEMM of the main set 12% by median) where non-persistent GEMMs with one block per SM are near the model. The
model times a persistent program's tiles one after another, each with its K loop's fill, its steady
iterations and its convert-and-store. This probe separates the per-tile and per-iteration costs: 132 programs
(one per SM) each run exactly ``T`` tiles (M = BLOCK_M x 11 x T, N = BLOCK_N x 12) for T = 1, 2, 4, 8 at two
K, so ``time = T x (tile overhead + K / BLOCK_K x iteration)`` reads both off the slopes; the grouped kernel
(one block per tile, the tile order of GROUP_M 8) runs the same shapes beside it.

    python3 benchmarks/ncu_diag/persistent_tiles.py > persistent_tiles.jsonl   # one row per launch
    python3 benchmarks/ncu_diag/persistent_tiles.py --waits   # stop 61's cases (run_persistent_waits.sh)
    python3 benchmarks/ncu_diag/persistent_tiles.py --copies  # copies-a-thread series (WAITS_SET=--copies)
    python3 benchmarks/ncu_diag/persistent_tiles.py --copies --time > copies.jsonl   # do_bench rows of it
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import torch  # noqa: E402
import triton  # noqa: E402

from kernels.triton.gemm import matmul_kernel  # noqa: E402
from kernels.triton.persistent_gemm import matmul_persistent_kernel  # noqa: E402
from kernels.triton.tma_gemm import install_allocator  # noqa: E402
from kernels.triton.tma_persistent_gemm import matmul_tma_persistent_kernel  # noqa: E402

PROGRAMS = 132  # the H200's SMs: one persistent program each
TILES_PER_PROGRAM = (1, 2, 4, 8)
KS = (1024, 4096)
# (kernel, BLOCK_M, BLOCK_N, BLOCK_K, warps, stages)
CONFIGS = (
    ("tma_persistent", 128, 128, 64, 4, 3),
    ("tma_persistent", 128, 128, 64, 4, 4),
    ("tma_persistent", 128, 256, 64, 8, 3),
    ("persistent", 128, 128, 64, 4, 3),
    ("persistent", 64, 64, 64, 4, 3),
    ("grouped", 128, 128, 64, 4, 3),
    ("grouped", 64, 64, 64, 4, 3),
)


def launch(kind, a, b, c, bm, bn, bk, warps, stages):
    M, K = a.shape
    N = b.shape[1]
    tiles = triton.cdiv(M, bm) * triton.cdiv(N, bn)
    meta = dict(BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=8, num_warps=warps, num_stages=stages)
    if kind == "tma_persistent":
        grid = (min(PROGRAMS, tiles),)
        return lambda: matmul_tma_persistent_kernel[grid](
            a, b, c, M, N, K, a.stride(0), b.stride(0), c.stride(0), NUM_SMS=PROGRAMS, FLATTEN=False, **meta
        )
    strides = (*a.stride(), *b.stride(), *c.stride())
    if kind == "persistent":
        grid = (min(PROGRAMS, tiles),)
        return lambda: matmul_persistent_kernel[grid](a, b, c, M, N, K, *strides, NUM_SMS=PROGRAMS, **meta)
    return lambda: matmul_kernel[(tiles,)](a, b, c, M, N, K, *strides, **meta)


# ``--waits``: the cases stop 61 profiles under ncu (run_persistent_waits.sh): the pointer kernel's 64x64 and
# 128x128 tiles alone on their SMs, at one tile a program and at eight, where the model's steady iteration is
# right for 128x128 at every T and grows 1.07 -> 1.44x too slow for 64x64 (docs/known-gaps.md, persistent
# GEMMs); each launched twice (the second is the one to read), without do_bench's hundred repetitions.
WAIT_CONFIGS = (
    ("persistent", 64, 64, 64, 4, 3),
    ("persistent", 128, 128, 64, 4, 3),
    ("grouped", 64, 64, 64, 4, 3),
)
WAIT_TILES = (1, 8)
WAIT_K = 4096
# ``--copies``: the same pass over lone persistent programs (eight tiles each) whose copies a thread a K step
# run from 4 to 16 ((BLOCK_M + BLOCK_N) x BLOCK_K x 2 bytes / 16 / threads), at one and four times the
# tensor-core work a copy, 2-8 warps and 3-4 stages: the cycles a step against the copies a thread that
# issue it (stop 61: 506 cycles at 8 copies, 912 at 16 on 4 warps).
COPY_CONFIGS = (
    ("persistent", 64, 64, 32, 4, 3),
    ("persistent", 64, 64, 64, 4, 4),
    ("persistent", 128, 64, 64, 4, 3),
    ("persistent", 64, 128, 64, 4, 3),
    ("persistent", 128, 128, 32, 4, 3),
    ("persistent", 128, 128, 64, 8, 3),
    ("persistent", 64, 64, 64, 2, 3),
    ("persistent", 128, 256, 64, 8, 3),
)
COPY_TILES = (8,)


def main() -> None:
    install_allocator()
    torch.manual_seed(0)
    copies = "--copies" in sys.argv[1:]
    chosen = copies or "--waits" in sys.argv[1:]
    # --time: do_bench rows (as without a flag) for the chosen set, not the two bare launches ncu reads
    waits = chosen and "--time" not in sys.argv[1:]
    configs, ks, tiles = (WAIT_CONFIGS, (WAIT_K,), WAIT_TILES) if chosen else (CONFIGS, KS, TILES_PER_PROGRAM)
    if copies:
        configs, tiles = COPY_CONFIGS, COPY_TILES
    for kind, bm, bn, bk, warps, stages in configs:
        for K in ks:
            for per in tiles:
                M, N = bm * 11 * per, bn * 12
                a = torch.randn((M, K), device="cuda", dtype=torch.float16)
                b = torch.randn((K, N), device="cuda", dtype=torch.float16)
                c = torch.empty((M, N), device="cuda", dtype=torch.float16)
                run = launch(kind, a, b, c, bm, bn, bk, warps, stages)
                run()
                torch.cuda.synchronize()
                if waits:
                    run()  # the launch to read under ncu
                    torch.cuda.synchronize()
                    tile = dict(
                        kernel=kind, block_m=bm, block_n=bn, block_k=bk, num_warps=warps, num_stages=stages
                    )
                    print(json.dumps(dict(tile, tiles_per_program=per, M=M, N=N, K=K)))
                    continue
                ok = torch.allclose(c.float(), (a.float() @ b.float()), atol=1.0, rtol=2e-2)
                p50, p20, p80 = triton.testing.do_bench(run, warmup=25, rep=100, quantiles=[0.5, 0.2, 0.8])
                row = dict(
                    kernel=kind, block_m=bm, block_n=bn, block_k=bk, num_warps=warps, num_stages=stages,
                    tiles_per_program=per, M=M, N=N, K=K, correct=bool(ok),
                    p50_us=p50 * 1e3, p20_us=p20 * 1e3, p80_us=p80 * 1e3,
                )  # fmt: skip
                print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
