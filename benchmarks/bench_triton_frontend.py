"""Speed of tilesight.estimate on a Triton GEMM (CPU): a new config, and a new shape of a seen config.

Targets (issue "Triton frontend"): < 0.25 s for a new config, < 5 ms for a new shape of a config already seen.
Run: python benchmarks/bench_triton_frontend.py
Both wall-clock and process CPU time are reported: on a shared machine (several processes per core) wall time
includes waiting for a core, CPU time is what the estimate itself costs.
"""

from __future__ import annotations

import time

import triton
from tilesight.kernels.triton.gemm import matmul_kernel

import tilesight
from tilesight import TensorSpec


def _estimate(size: int, block_m: int) -> tuple[float, float]:
    a, b, c = (TensorSpec((size, size), "float16") for _ in range(3))

    def grid(meta: dict) -> tuple[int]:
        return (triton.cdiv(size, meta["BLOCK_M"]) * triton.cdiv(size, meta["BLOCK_N"]),)

    t0, c0 = time.perf_counter(), time.process_time()
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
    return time.perf_counter() - t0, time.process_time() - c0


def main() -> None:
    _estimate(1024, 128)  # warm imports and Triton's own caches
    new_config = [_estimate(1024, bm) for bm in (64, 256)]
    seen = [_estimate(2048 + 64 * i, 128) for i in range(1, 11)]
    for i, what in enumerate(("wall", "cpu")):
        worst = max(t[i] for t in new_config)
        median = sorted(t[i] for t in seen)[len(seen) // 2]
        print(f"{what}: new config {worst * 1e3:.1f} ms (target 250 ms); ", end="")
        print(f"new shape of a seen config, median {median * 1e3:.2f} ms (target 5 ms)")


if __name__ == "__main__":
    main()
