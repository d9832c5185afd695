"""Speed of tilesight.estimate on a Triton GEMM (CPU): a new config, and a new shape of a seen config.

Targets (issue "Triton frontend"): < 0.25 s for a new config, < 5 ms for a new shape of a config already seen.
Run: python benchmarks/bench_triton_frontend.py
"""

from __future__ import annotations

import time

import triton
from tilesight.kernels.triton.gemm import matmul_kernel

import tilesight
from tilesight import TensorSpec


def _estimate(size: int, block_m: int) -> float:
    a, b, c = (TensorSpec((size, size), "float16") for _ in range(3))

    def grid(meta: dict) -> tuple[int]:
        return (triton.cdiv(size, meta["BLOCK_M"]) * triton.cdiv(size, meta["BLOCK_N"]),)

    t0 = time.perf_counter()
    tilesight.estimate(
        matmul_kernel,
        grid,
        a,
        b,
        c,
        size,
        size,
        size,
        size,
        1,
        size,
        1,
        size,
        1,
        BLOCK_M=block_m,
        BLOCK_N=128,
        BLOCK_K=64,
        GROUP_M=8,
        num_warps=8,
        num_stages=3,
    )
    return time.perf_counter() - t0


def main() -> None:
    _estimate(1024, 128)  # warm imports and Triton's own caches
    new_config = [_estimate(1024, bm) for bm in (64, 256)]
    seen = [_estimate(2048 + 64 * i, 128) for i in range(1, 11)]
    print(f"new config: {max(new_config) * 1e3:.1f} ms (target 250 ms)")
    print(f"new shape, seen config: median {sorted(seen)[len(seen) // 2] * 1e3:.2f} ms (target 5 ms)")


if __name__ == "__main__":
    main()
