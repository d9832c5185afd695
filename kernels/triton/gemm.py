"""Tiled GEMM ``C = A @ B`` with the GROUP_M launch swizzle (the project's reference Triton GEMM).

One program computes one ``BLOCK_M x BLOCK_N`` tile of C, walking K in ``BLOCK_K`` steps with an fp32
accumulator. Launch index ``pid`` is mapped to a tile so that ``GROUP_M`` consecutive tile rows are swept
column by column before the next group starts (better L2 reuse of B). Every load is masked, so M, N and K need
not be multiples of the blocks. Inputs may be fp16, bf16 or fp8; the result is cast to C's element type.

The name and signature of :func:`matmul_kernel` are a contract: the NCU harness and the benchmarks import it.
"""

from __future__ import annotations

import triton
import triton.language as tl


@triton.jit
def matmul_kernel(
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
):
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    # GROUP_M swizzle: a group is GROUP_M tile rows times every tile column, walked column by column.
    launches_per_group = GROUP_M * tiles_n
    group = pid // launches_per_group
    group_row0 = group * GROUP_M
    rows_here = tl.minimum(tiles_m - group_row0, GROUP_M)
    in_group = pid % launches_per_group
    tile_m = group_row0 + in_group % rows_here
    tile_n = in_group // rows_here

    rows = tile_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tile_n * BLOCK_N + tl.arange(0, BLOCK_N)
    ks = tl.arange(0, BLOCK_K)
    row_ok = rows < M
    col_ok = cols < N
    a_tile = a_ptr + rows[:, None] * stride_am + ks[None, :] * stride_ak
    b_tile = b_ptr + ks[:, None] * stride_bk + cols[None, :] * stride_bn

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k_step in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - k_step * BLOCK_K
        a = tl.load(a_tile, mask=row_ok[:, None] & (ks[None, :] < k_left), other=0.0)
        b = tl.load(b_tile, mask=(ks[:, None] < k_left) & col_ok[None, :], other=0.0)
        acc = tl.dot(a, b, acc)
        a_tile += BLOCK_K * stride_ak
        b_tile += BLOCK_K * stride_bk

    c_tile = c_ptr + rows[:, None] * stride_cm + cols[None, :] * stride_cn
    tl.store(c_tile, acc.to(c_ptr.dtype.element_ty), mask=row_ok[:, None] & col_ok[None, :])


def matmul_grid(M: int, N: int, meta: dict) -> tuple[int]:
    """One program per output tile."""
    return (triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(N, meta["BLOCK_N"]),)


def output_dtype(a):
    """C's dtype for inputs like ``a``: the input's own type for 16-bit floats, fp16 for 8-bit inputs."""
    import torch

    return a.dtype if a.element_size() >= 2 else torch.float16


def matmul(a, b, *, block_m, block_n, block_k, group_m, num_warps, num_stages, out_dtype=None):
    """``a @ b`` for 2-D torch tensors of any strides; returns a new row-major C."""
    import torch

    if a.ndim != 2 or b.ndim != 2 or a.shape[1] != b.shape[0]:
        raise ValueError(f"matmul: shapes {tuple(a.shape)} @ {tuple(b.shape)} do not chain")
    M, K = a.shape
    N = b.shape[1]
    c = torch.empty((M, N), device=a.device, dtype=out_dtype or output_dtype(a))
    meta = {"BLOCK_M": block_m, "BLOCK_N": block_n}
    matmul_kernel[matmul_grid(M, N, meta)](
        a, b, c, M, N, K,
        a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
        BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_K=block_k, GROUP_M=group_m,
        num_warps=num_warps, num_stages=num_stages,
    )  # fmt: skip
    return c
