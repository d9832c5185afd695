"""Persistent GEMM: ``min(NUM_SMS, tiles)`` programs stride over the output tiles in GROUP_M-swizzled order.

Program ``p`` handles launch indices ``p, p + NUM_SMS, p + 2 * NUM_SMS, ...``; each launch index is mapped to
a tile exactly as in :mod:`kernels.triton.gemm` and computed with a masked K loop and an fp32 accumulator.
"""

from __future__ import annotations

import triton
import triton.language as tl


@triton.jit
def matmul_persistent_kernel(
    a_ptr,
    b_ptr,
    c_ptr,
    M,
    N,
    K,
    stride_am,
    stride_ak,
    stride_bk,
    stride_bn,
    stride_cm,
    stride_cn,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_K: tl.constexpr,
    GROUP_M: tl.constexpr,
    NUM_SMS: tl.constexpr,
):
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    k_steps = tl.cdiv(K, BLOCK_K)
    launches_per_group = GROUP_M * tiles_n
    ks = tl.arange(0, BLOCK_K)
    for launch in tl.range(tl.program_id(0), tiles_m * tiles_n, NUM_SMS):
        group_row0 = (launch // launches_per_group) * GROUP_M
        rows_here = tl.minimum(tiles_m - group_row0, GROUP_M)
        in_group = launch % launches_per_group
        tile_m = group_row0 + in_group % rows_here
        tile_n = in_group // rows_here

        rows = tile_m * BLOCK_M + tl.arange(0, BLOCK_M)
        cols = tile_n * BLOCK_N + tl.arange(0, BLOCK_N)
        row_ok = rows < M
        col_ok = cols < N
        a_tile = a_ptr + rows[:, None] * stride_am + ks[None, :] * stride_ak
        b_tile = b_ptr + ks[:, None] * stride_bk + cols[None, :] * stride_bn
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k_step in range(0, k_steps):
            k_left = K - k_step * BLOCK_K
            a = tl.load(a_tile, mask=row_ok[:, None] & (ks[None, :] < k_left), other=0.0)
            b = tl.load(b_tile, mask=(ks[:, None] < k_left) & col_ok[None, :], other=0.0)
            acc = tl.dot(a, b, acc)
            a_tile += BLOCK_K * stride_ak
            b_tile += BLOCK_K * stride_bk
        c_tile = c_ptr + rows[:, None] * stride_cm + cols[None, :] * stride_cn
        tl.store(c_tile, acc.to(c_ptr.dtype.element_ty), mask=row_ok[:, None] & col_ok[None, :])


def persistent_grid(M: int, N: int, meta: dict) -> tuple[int]:
    """As many programs as SMs, never more than there are tiles."""
    tiles = triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(N, meta["BLOCK_N"])
    return (min(meta["NUM_SMS"], tiles),)


def matmul_persistent(
    a, b, *, block_m, block_n, block_k, group_m, num_warps, num_stages, num_sms, out_dtype=None
):
    """``a @ b`` with the persistent kernel; ``num_sms`` is the device's SM count (the caller reads it)."""
    import torch

    from .gemm import output_dtype

    if a.ndim != 2 or b.ndim != 2 or a.shape[1] != b.shape[0]:
        raise ValueError(f"matmul_persistent: shapes {tuple(a.shape)} @ {tuple(b.shape)} do not chain")
    M, K = a.shape
    N = b.shape[1]
    c = torch.empty((M, N), device=a.device, dtype=out_dtype or output_dtype(a))
    meta = {"BLOCK_M": block_m, "BLOCK_N": block_n, "NUM_SMS": num_sms}
    matmul_persistent_kernel[persistent_grid(M, N, meta)](
        a, b, c, M, N, K,
        a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
        BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_K=block_k, GROUP_M=group_m, NUM_SMS=num_sms,
        num_warps=num_warps, num_stages=num_stages,
    )  # fmt: skip
    return c
