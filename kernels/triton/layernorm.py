"""LayerNorm forward with weight and bias; also writes each row's mean and 1/std (for a backward pass).

One program per row; the row is held in one ``BLOCK`` (the next power of two of ``n_cols``); statistics are
fp32.
"""

from __future__ import annotations

import triton
import triton.language as tl


@triton.jit
def layernorm_kernel(
    x_ptr,
    y_ptr,
    w_ptr,
    b_ptr,
    mean_ptr,
    rstd_ptr,
    stride_x_row,
    stride_y_row,
    n_cols,
    eps,
    BLOCK: tl.constexpr,
):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    inside = cols < n_cols
    x = tl.load(x_ptr + row * stride_x_row + cols, mask=inside, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / n_cols
    centred = tl.where(inside, x - mean, 0.0)
    rstd = 1.0 / tl.sqrt(tl.sum(centred * centred, axis=0) / n_cols + eps)
    w = tl.load(w_ptr + cols, mask=inside, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + cols, mask=inside, other=0.0).to(tl.float32)
    y = centred * rstd * w + b
    tl.store(y_ptr + row * stride_y_row + cols, y.to(y_ptr.dtype.element_ty), mask=inside)
    tl.store(mean_ptr + row, mean)
    tl.store(rstd_ptr + row, rstd)


def layernorm(x, weight, bias, *, eps=1e-5, num_warps=4):
    """Returns ``(y, mean, rstd)`` for a 2-D ``x`` normalised over its last dim."""
    import torch

    if x.ndim != 2 or x.stride(1) != 1 or weight.shape != (x.shape[1],) or bias.shape != (x.shape[1],):
        shapes = f"x {tuple(x.shape)}, weight {tuple(weight.shape)}, bias {tuple(bias.shape)}"
        raise ValueError(f"layernorm: needs rows of x contiguous and 1-D weight/bias of its width: {shapes}")
    n_rows, n_cols = x.shape
    y = torch.empty_like(x)
    mean = torch.empty(n_rows, device=x.device, dtype=torch.float32)
    rstd = torch.empty(n_rows, device=x.device, dtype=torch.float32)
    layernorm_kernel[(n_rows,)](
        x, y, weight, bias, mean, rstd, x.stride(0), y.stride(0), n_cols, eps,
        BLOCK=triton.next_power_of_2(n_cols), num_warps=num_warps,
    )  # fmt: skip
    return y, mean, rstd


@triton.jit
def layernorm_chunked_kernel(
    x_ptr,
    y_ptr,
    w_ptr,
    b_ptr,
    mean_ptr,
    rstd_ptr,
    stride_x_row,
    stride_y_row,
    n_cols,
    eps,
    BLOCK: tl.constexpr,
):
    """LayerNorm for rows wider than one ``BLOCK``: a pass over the row's chunks for the mean, one for the
    variance, one to normalise (the row is read three times; after the first, from L2). Same arguments and
    outputs as :func:`layernorm_kernel`."""
    row = tl.program_id(0)
    x_row = x_ptr + row * stride_x_row
    total = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        total += tl.load(x_row + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
    mean = tl.sum(total, axis=0) / n_cols
    squares = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_row + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
        d = tl.where(cols < n_cols, x - mean, 0.0)
        squares += d * d
    rstd = 1.0 / tl.sqrt(tl.sum(squares, axis=0) / n_cols + eps)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        inside = cols < n_cols
        x = tl.load(x_row + cols, mask=inside, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + cols, mask=inside, other=0.0).to(tl.float32)
        b = tl.load(b_ptr + cols, mask=inside, other=0.0).to(tl.float32)
        y = (x - mean) * rstd * w + b
        tl.store(y_ptr + row * stride_y_row + cols, y.to(y_ptr.dtype.element_ty), mask=inside)
    tl.store(mean_ptr + row, mean)
    tl.store(rstd_ptr + row, rstd)
