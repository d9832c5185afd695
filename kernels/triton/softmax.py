"""Row softmax: one program per row, the whole row in one ``BLOCK`` (the next power of two of ``n_cols``)."""

from __future__ import annotations

import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, stride_x_row, stride_y_row, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    inside = cols < n_cols
    x = tl.load(x_ptr + row * stride_x_row + cols, mask=inside, other=-float("inf")).to(tl.float32)
    shifted = x - tl.max(x, axis=0)
    e = tl.exp(shifted)
    y = e / tl.sum(e, axis=0)
    tl.store(y_ptr + row * stride_y_row + cols, y.to(y_ptr.dtype.element_ty), mask=inside)


def softmax(x, *, num_warps=4, num_stages=1):
    """Softmax over the last dim of a 2-D tensor whose rows are contiguous."""
    import torch

    if x.ndim != 2 or x.stride(1) != 1:
        raise ValueError(f"softmax: needs a 2-D tensor with contiguous rows, got shape {tuple(x.shape)}")
    n_rows, n_cols = x.shape
    y = torch.empty_like(x)
    softmax_kernel[(n_rows,)](
        x, y, n_cols, x.stride(0), y.stride(0),
        BLOCK=triton.next_power_of_2(n_cols), num_warps=num_warps, num_stages=num_stages,
    )  # fmt: skip
    return y


@triton.jit
def softmax_rows_kernel(
    x_ptr, y_ptr, n_rows, n_cols, stride_x_row, stride_y_row, BLOCK: tl.constexpr, ROW_STAGES: tl.constexpr
):
    """The same row softmax with a fixed number of programs, each striding over rows
    (``row = pid, pid + programs, ...``) and prefetching ``ROW_STAGES`` rows ahead: the fused-softmax
    tutorial's shape, with a grid sized to the GPU rather than to the rows."""
    cols = tl.arange(0, BLOCK)
    inside = cols < n_cols
    for row in tl.range(tl.program_id(0), n_rows, tl.num_programs(0), num_stages=ROW_STAGES):
        x = tl.load(x_ptr + row * stride_x_row + cols, mask=inside, other=-float("inf")).to(tl.float32)
        e = tl.exp(x - tl.max(x, axis=0))
        y = e / tl.sum(e, axis=0)
        tl.store(y_ptr + row * stride_y_row + cols, y.to(y_ptr.dtype.element_ty), mask=inside)
