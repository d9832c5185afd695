"""Split-K GEMM ``C += A @ B`` (fp16 inputs, fp32 output): program (tile, s) sums the K blocks s, s + SPLIT,
... of its output tile and adds its partial tile to C with ``tl.atomic_add`` (C must start at zero). The
usual form for skinny problems whose output tiles alone do not fill the GPU. ``ATOMIC=False`` stores the
partial tile instead (every split overwriting C: wrong sums, the same loop), which the ``splitk_atomic``
probe (``benchmarks/ncu_diag/splitk_atomic.py``) times beside the real kernel."""

from __future__ import annotations

import triton
import triton.language as tl


@triton.jit
def splitk_kernel(
    a_ptr,
    b_ptr,
    c_ptr,
    M,
    N,
    K,
    stride_am,
    stride_bk,
    stride_cm,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_K: tl.constexpr,
    SPLIT_K: tl.constexpr,
    ATOMIC: tl.constexpr = True,
):
    pid = tl.program_id(0)
    split = tl.program_id(1)
    tiles_n = tl.cdiv(N, BLOCK_N)
    rows = (pid // tiles_n) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = (pid % tiles_n) * BLOCK_N + tl.arange(0, BLOCK_N)
    ks = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(split * BLOCK_K, K, BLOCK_K * SPLIT_K):
        a = tl.load(a_ptr + rows[:, None] * stride_am + (k + ks)[None, :], mask=rows[:, None] < M, other=0.0)
        b = tl.load(b_ptr + (k + ks)[:, None] * stride_bk + cols[None, :], mask=cols[None, :] < N, other=0.0)
        acc = tl.dot(a, b, acc)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    if ATOMIC:
        tl.atomic_add(c_ptr + rows[:, None] * stride_cm + cols[None, :], acc, mask=mask)
    else:  # a plain store of the partial tile (wrong sums; the splitk_atomic probe times the atomics by it)
        tl.store(c_ptr + rows[:, None] * stride_cm + cols[None, :], acc, mask=mask)


def splitk_grid(M: int, N: int, meta: dict) -> tuple[int, int]:
    return (triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(N, meta["BLOCK_N"]), meta["SPLIT_K"])
