"""RMSNorm forward, ``y = x / sqrt(mean(x^2) + eps) * w``, one program per row.

Unlike the single-block softmax and LayerNorm kernels, this one walks the row in ``BLOCK``-wide chunks twice
(sum of squares, then scale and store), so rows of any width fit and the frontend sees a loop over columns.
"""

from __future__ import annotations

import triton
import triton.language as tl


@triton.jit
def rmsnorm_kernel(x_ptr, y_ptr, w_ptr, stride_x_row, stride_y_row, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    x_row = x_ptr + row * stride_x_row
    y_row = y_ptr + row * stride_y_row
    sq = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_row + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
        sq += x * x
    rrms = 1.0 / tl.sqrt(tl.sum(sq, axis=0) / n_cols + eps)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        inside = cols < n_cols
        x = tl.load(x_row + cols, mask=inside, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + cols, mask=inside, other=0.0).to(tl.float32)
        tl.store(y_row + cols, (x * rrms * w).to(y_ptr.dtype.element_ty), mask=inside)


def rmsnorm(x, weight, *, eps=1e-6, block=1024, num_warps=4):
    import torch

    if x.ndim != 2 or x.stride(1) != 1 or weight.shape != (x.shape[1],):
        raise ValueError(f"rmsnorm: x {tuple(x.shape)}, weight {tuple(weight.shape)}")
    n_rows, n_cols = x.shape
    y = torch.empty_like(x)
    rmsnorm_kernel[(n_rows,)](
        x, y, weight, x.stride(0), y.stride(0), n_cols, eps, BLOCK=min(block, triton.next_power_of_2(n_cols)),
        num_warps=num_warps,
    )  # fmt: skip
    return y
