"""2-D transpose ``Y = X^T`` of a row-major ``(M, N)`` matrix, one ``BLOCK_M x BLOCK_N`` tile per program.

A program reads a tile along X's rows (contiguous) and writes it down Y's columns: the store side strides by
Y's row length, the pattern that makes transposes slower than copies. Grid ``(cdiv(M, BLOCK_M),
cdiv(N, BLOCK_N))``.
"""

from __future__ import annotations

import triton
import triton.language as tl


@triton.jit
def transpose_kernel(
    x_ptr, y_ptr, M, N, stride_x_row, stride_y_row, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr
):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    inside = (rows[:, None] < M) & (cols[None, :] < N)
    tile = tl.load(x_ptr + rows[:, None] * stride_x_row + cols[None, :], mask=inside, other=0.0)
    tl.store(y_ptr + cols[None, :] * stride_y_row + rows[:, None], tile, mask=inside)


def transpose(x, *, block_m=64, block_n=64, num_warps=4):
    """``x.T`` made contiguous, for a 2-D tensor with contiguous rows."""
    import torch

    if x.ndim != 2 or x.stride(1) != 1:
        raise ValueError(f"transpose: needs a 2-D tensor with contiguous rows, got shape {tuple(x.shape)}")
    m, n = x.shape
    y = torch.empty((n, m), device=x.device, dtype=x.dtype)
    grid = (triton.cdiv(m, block_m), triton.cdiv(n, block_n))
    transpose_kernel[grid](
        x, y, m, n, x.stride(0), y.stride(0), BLOCK_M=block_m, BLOCK_N=block_n, num_warps=num_warps
    )
    return y
